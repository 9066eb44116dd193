import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, CalendarClock } from 'lucide-react';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useSearch } from 'wouter';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage, type Translate } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { cn } from '../../../lib/cn';
import { tierFromSearch } from '../../../lib/plan-links';
import { keepPlan, planChargesQuery, planQuery, refreshAfterChange, tiersQuery, type Plan, type PlanCharge, type Tier } from '../api';
import { formatDate, formatPrice, monthlyPrice } from '../format';
import { DowngradeDialog } from './downgrade-dialog';
import { PayDialog } from './pay-dialog';
import { TitledPage } from '../../../components/ui/titled-page';

// Opened on demand: the Plans screen's first paint does not carry it.
const PaymentCardDialog = lazy(() => import('./payment-card-dialog').then((m) => ({ default: m.PaymentCardDialog })));

/**
 * /plans (issue 16): the current plan with its billing period and usage, every plan on offer with Upgrade (paid now,
 * through the pay dialog) or Downgrade (at the period's end, undoable with "Keep <plan>"), and the plan payments.
 */
export function PlansPage() {
  const { t } = useLanguage();
  const plan = useQuery(planQuery());
  const tiers = useQuery(tiersQuery());
  const [paying, setPaying] = useState<Tier | null>(null);
  const [moving, setMoving] = useState<Tier | null>(null);
  // The plan chosen on the landing page's pricing cards (`?tier=<id>`, kept through sign-up): shown highlighted.
  const chosen = tierFromSearch(useSearch());

  let body;
  if (plan.isPending || tiers.isPending) {
    body = (
      <Card>
        <CardContent className="p-6 text-sm text-slate-600" aria-busy="true">
          {t('plans.loading')}
        </CardContent>
      </Card>
    );
  } else if (plan.isError || tiers.isError) {
    body = (
      <Card>
        <CardContent className="space-y-3 p-6" role="alert">
          <p className="font-medium text-red-800">{t('plans.loadFailed')}</p>
          <p className="text-sm text-slate-600">{messageOf(plan.error ?? tiers.error)}</p>
          <Button variant="outline" onClick={() => void Promise.all([plan.refetch(), tiers.refetch()])}>
            {t('plans.retry')}
          </Button>
        </CardContent>
      </Card>
    );
  } else {
    const current = plan.data;
    body = (
      <>
        <CurrentPlan plan={current} />
        <section aria-labelledby="plans-list-title" className="space-y-3">
          <h2 id="plans-list-title" className="text-lg font-semibold text-slate-900">
            {t('plans.list.heading')}
          </h2>
          <ul className="grid gap-4 md:grid-cols-3">
            {tiers.data.tiers.map((tier) => (
              <TierCard key={tier.id} tier={tier} plan={current} chosen={tier.id === chosen} onUpgrade={() => setPaying(tier)} onDowngrade={() => setMoving(tier)} />
            ))}
          </ul>
        </section>
        <Receipts />
        {paying && <PayDialog tier={paying} plan={current} onClose={() => setPaying(null)} />}
        {moving && <DowngradeDialog tier={moving} plan={current} onClose={() => setMoving(null)} />}
      </>
    );
  }

  return (
    <TitledPage back={{ label: t('plans.back'), testId: 'plans-back' }} title={t('plans.title')} subtitle={t('plans.subtitle')} width="wide">
      {body}
    </TitledPage>
  );
}

function usageText(t: Translate, u: { used: number; limit: number }) {
  return u.limit === -1 ? t('plans.usage.unlimited', { used: u.used }) : t('plans.usage.value', { used: u.used, limit: u.limit });
}

function CurrentPlan({ plan }: { plan: Plan }) {
  const { t, lang } = useLanguage();
  const queryClient = useQueryClient();
  const [keeping, setKeeping] = useState(false);
  const [changingCard, setChangingCard] = useState(false);
  const price = formatPrice(plan.tier.monthlyPrice);
  const end = plan.currentPeriodEnd ? formatDate(plan.currentPeriodEnd, lang) : null;

  async function keep() {
    setKeeping(true);
    try {
      const next = await keepPlan();
      toast({ title: t('plans.toast.kept', { plan: plan.tier.displayName }) });
      await refreshAfterChange(queryClient, next);
    } catch (error) {
      toast({ title: t('plans.toast.failed'), description: messageOf(error), variant: 'destructive' });
    } finally {
      setKeeping(false);
    }
  }

  const over = plan.usage.fundingSources.limit !== -1 && plan.usage.fundingSources.used > plan.usage.fundingSources.limit;
  return (
    <section aria-labelledby="plans-current-title" className="grid gap-4 md:grid-cols-2">
      <Card data-testid="plans-current">
        <CardContent className="space-y-3 p-6">
          <h2 id="plans-current-title" className="text-sm font-medium text-slate-500">
            {t('plans.current.heading')}
          </h2>
          <p className="text-2xl font-bold text-slate-900" data-testid="plans-current-name">
            {plan.tier.displayName}
          </p>
          <p className="text-sm text-slate-600" data-testid="plans-current-renewal">
            {end && !plan.pendingTier
              ? t('plans.current.renews', { date: end, price: monthlyPrice(t, plan.tier.monthlyPrice) })
              : plan.tier.monthlyPrice === 0
                ? t('plans.current.free')
                : end
                  ? price
                  : t('plans.current.notBilled')}
          </p>
          {end && (
            <div className="flex flex-wrap items-center justify-between gap-2">
              {plan.paymentSource ? (
                <p className="min-w-0 text-sm text-slate-600" data-testid="plans-current-card">
                  {t('plans.current.paidWith', { source: `${plan.paymentSource.name} (•••• ${plan.paymentSource.last4})` })}
                </p>
              ) : (
                <p className="min-w-0 text-sm text-amber-800">{t('plans.current.sourceRemoved')}</p>
              )}
              <Button size="sm" variant="outline" onClick={() => setChangingCard(true)} data-testid="plans-change-card">
                {plan.pastDueSince ? t('plans.card.payNow') : t('plans.card.change')}
              </Button>
            </div>
          )}
          {changingCard && (
            <Suspense fallback={null}>
              <PaymentCardDialog plan={plan} onClose={() => setChangingCard(false)} />
            </Suspense>
          )}
          {plan.pendingTier && end && (
            <div className="flex flex-col gap-3 rounded-lg border border-brand-100 bg-brand-50 p-3 text-sm text-slate-800 sm:flex-row sm:items-center sm:justify-between" data-testid="plans-pending">
              <p className="flex items-start gap-2">
                <CalendarClock className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
                {t('plans.pending', { plan: plan.pendingTier.displayName, date: end, current: plan.tier.displayName })}
              </p>
              <Button size="sm" variant="outline" onClick={() => void keep()} disabled={keeping} data-testid="plans-keep">
                {t('plans.pending.keep', { plan: plan.tier.displayName })}
              </Button>
            </div>
          )}
          {plan.pastDueSince && plan.graceEndsAt && (
            <p className="flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900" role="status" data-testid="plans-past-due">
              <AlertTriangle className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
              {t('plans.pastDue', { date: formatDate(plan.graceEndsAt, lang) })}
            </p>
          )}
        </CardContent>
      </Card>
      <Card data-testid="plans-usage">
        <CardContent className="space-y-3 p-6">
          <h2 className="text-sm font-medium text-slate-500">{t('plans.usage.heading')}</h2>
          <dl className="space-y-2 text-sm">
            <div className="flex justify-between gap-4">
              <dt className="text-slate-600">{t('plans.usage.sources')}</dt>
              <dd className="font-medium tabular-nums text-slate-900" data-testid="plans-usage-sources">
                {usageText(t, plan.usage.fundingSources)}
              </dd>
            </div>
            <div className="flex justify-between gap-4">
              <dt className="text-slate-600">{t('plans.usage.bcards')}</dt>
              <dd className="font-medium tabular-nums text-slate-900" data-testid="plans-usage-bcards">
                {usageText(t, plan.usage.bcardsThisMonth)}
              </dd>
            </div>
          </dl>
          {over && <p className="text-xs text-amber-800">{t('plans.usage.over')}</p>}
        </CardContent>
      </Card>
    </section>
  );
}

function TierCard({
  tier,
  plan,
  chosen,
  onUpgrade,
  onDowngrade,
}: {
  tier: Tier;
  plan: Plan;
  chosen: boolean;
  onUpgrade(): void;
  onDowngrade(): void;
}) {
  const { t, lang } = useLanguage();
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (chosen) ref.current?.scrollIntoView?.({ block: 'center' });
  }, [chosen]);
  const isCurrent = tier.id === plan.tier.id;
  const isPending = plan.pendingTier?.id === tier.id;
  const dearer = tier.monthlyPrice > plan.tier.monthlyPrice;
  const titleId = `plans-tier-${tier.id}`;
  let action;
  if (isCurrent) {
    action = (
      <Badge tone="brand" className="w-fit">
        {t('plans.action.current')}
      </Badge>
    );
  } else if (isPending && plan.currentPeriodEnd) {
    action = (
      <Badge tone="blue" className="w-fit">
        {t('plans.action.scheduled', { date: formatDate(plan.currentPeriodEnd, lang) })}
      </Badge>
    );
  } else {
    const label = dearer ? t('plans.action.upgrade') : tier.monthlyPrice === 0 ? t('plans.action.cancel') : t('plans.action.downgrade');
    action = (
      <Button
        variant={dearer ? 'primary' : 'outline'}
        className="w-full"
        onClick={dearer ? onUpgrade : onDowngrade}
        aria-label={t('plans.action.aria', { action: label, plan: tier.displayName })}
        data-testid={`plans-${dearer ? 'upgrade' : 'downgrade'}-${tier.name}`}
      >
        {label}
      </Button>
    );
  }
  return (
    <li
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={chosen ? `${titleId}-chosen` : undefined}
      className={cn(
        'flex flex-col gap-4 rounded-xl border bg-white p-5 shadow-sm',
        chosen ? 'border-brand-600 ring-2 ring-brand-600' : 'border-slate-200',
      )}
      data-testid="plans-tier"
      data-chosen={chosen || undefined}
    >
      <div>
        {chosen && (
          <Badge tone="brand" className="mb-2 w-fit" id={`${titleId}-chosen`} data-testid="plans-tier-chosen">
            {t('plans.chosen')}
          </Badge>
        )}
        <h3 id={titleId} className="text-lg font-semibold text-slate-900">
          {tier.displayName}
        </h3>
        <p className="mt-1 text-2xl font-bold text-slate-900">{monthlyPrice(t, tier.monthlyPrice)}</p>
      </div>
      <ul className="flex-1 space-y-1 text-sm text-slate-600">
        <li>
          {tier.limits.fundingSources === -1 ? t('plans.limit.unlimitedSources') : t('plans.limit.sources', { n: tier.limits.fundingSources })}
        </li>
        <li>{bcardLimit(t, tier)}</li>
        <li>{t('plans.limit.fee', { rate: (tier.transactionFeeRate * 100).toFixed(1) })}</li>
      </ul>
      {action}
    </li>
  );
}

function bcardLimit(t: Translate, tier: Tier) {
  const limits = [tier.limits.monthlyTransactions, tier.limits.bcardGenerationLimit].filter((l) => l !== -1);
  return limits.length === 0 ? t('plans.limit.unlimitedBcards') : t('plans.limit.bcards', { n: Math.min(...limits) });
}

function Receipts() {
  const { t, lang } = useLanguage();
  const charges = useQuery(planChargesQuery());
  const rows: PlanCharge[] = charges.data ?? [];
  return (
    <section aria-labelledby="plans-receipts-title" className="space-y-3">
      <h2 id="plans-receipts-title" className="text-lg font-semibold text-slate-900">
        {t('plans.receipts.heading')}
      </h2>
      {charges.isError ? (
        <p className="text-sm text-red-800" role="alert">
          {messageOf(charges.error)}
        </p>
      ) : rows.length === 0 ? (
        <p className="text-sm text-slate-600" data-testid="plans-receipts-empty">
          {charges.isPending ? t('plans.loading') : t('plans.receipts.empty')}
        </p>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white" data-testid="plans-receipts">
          {rows.map((c) => (
            <li key={c.id} className="grid gap-1 p-4 text-sm sm:grid-cols-[1fr_auto] sm:items-center" data-testid="plans-receipt">
              <div className="space-y-0.5">
                <p className="font-medium text-slate-900">
                  {c.planName} · {t(`plans.receipts.kind.${c.kind}`)}
                </p>
                <p className="text-slate-600">
                  {t('plans.receipts.period')}: {formatDate(c.periodStart, lang)} – {formatDate(c.periodEnd, lang)}
                </p>
                <p className="text-slate-600">
                  {t('plans.receipts.source')}: {c.fundingSource.name} (•••• {c.fundingSource.last4})
                </p>
                {c.proration && (
                  <dl className="mt-1 space-y-0.5 text-slate-600" data-testid="plans-receipt-proration">
                    <ProrationLine
                      label={t('plans.receipts.unused', { plan: c.proration.unusedPlanName, start: formatDate(c.periodStart, lang), end: formatDate(c.periodEnd, lang) })}
                      amount={`−${formatPrice(Number(c.proration.credit))}`}
                    />
                    <ProrationLine
                      label={t('plans.receipts.remaining', { plan: c.planName, start: formatDate(c.periodStart, lang), end: formatDate(c.periodEnd, lang) })}
                      amount={formatPrice(Number(c.proration.remaining))}
                    />
                    <ProrationLine label={t('plans.receipts.total')} amount={formatPrice(Number(c.amount))} />
                  </dl>
                )}
                {c.failureMessage && <p className="text-red-700">{c.failureMessage}</p>}
              </div>
              <div className="flex items-center gap-3 sm:flex-col sm:items-end">
                <span className="font-semibold tabular-nums text-slate-900" dir="ltr">
                  {formatPrice(Number(c.amount))}
                </span>
                <Badge tone={c.status === 'succeeded' ? 'green' : c.status === 'failed' ? 'red' : 'yellow'}>
                  {t(`plans.receipts.status.${c.status}`)}
                </Badge>
                <span className="text-xs text-slate-500">{formatDate(c.createdAt, lang)}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ProrationLine({ label, amount }: { label: string; amount: string }) {
  return (
    <div className="flex justify-between gap-3">
      <dt>{label}</dt>
      <dd className="shrink-0 tabular-nums" dir="ltr">
        {amount}
      </dd>
    </div>
  );
}
