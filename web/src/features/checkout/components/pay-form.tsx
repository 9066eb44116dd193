import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Loader2, ShieldCheck } from 'lucide-react';
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { insufficientDetailsOf, type InsufficientDetails } from '../../../lib/api-error-details';
import { formatCents, formatMoney, parseCents } from '../../../lib/money';
import { checkoutBenefitsQuery, checkoutSourcesQuery, payIntentRequest, publicIntentQuery, type PayAnswer, type PayBody, type PublicIntent } from '../api';
import { clampPercentage, DEFAULT_FEE_PERCENTAGE, planCheckout, splitsBody } from '../split';
import { isolate, Problem } from './checkout-parts';

/** Tells the merchant page (the widget in the opener) that the payment went through, then closes the popup. */
function reportToOpener(origin: string | null, paymentIntentId: string, status: string) {
  if (!origin || !window.opener) return;
  try {
    (window.opener as Window).postMessage({ type: 'bpay:payment_succeeded', paymentIntentId, status }, origin);
  } catch {
    /* The opener navigated away: nothing to tell. */
  }
}

/** The split form: a percentage per active source, the amount, fee and total, and Pay. */
export function PayForm({
  intent,
  clientSecret,
  returnOrigin,
  onPaid,
}: {
  intent: PublicIntent;
  clientSecret: string;
  returnOrigin: string | null;
  onPaid(answer: PayAnswer): void;
}) {
  const { t, dir } = useLanguage();
  const iso = isolate(dir);
  const qc = useQueryClient();
  const sources = useQuery(checkoutSourcesQuery());
  const benefits = useQuery(checkoutBenefitsQuery());
  const fee = benefits.data?.benefits.feePercentage ?? DEFAULT_FEE_PERCENTAGE;
  const active = useMemo(() => (sources.data ?? []).filter((s) => s.isActive), [sources.data]);
  const [splits, setSplits] = useState<Record<string, string>>({});
  const [shortfall, setShortfall] = useState<InsufficientDetails | null>(null);
  // One Idempotency-Key per body; reused only to resend the same body after an attempt that got no answer.
  const attempt = useRef<{ key: string; body: string; answered: boolean } | null>(null);

  const percentageOf = (id: string, fallback: number) => splits[id] ?? String(fallback);
  const plan = planCheckout(
    intent.amount,
    fee,
    active.map((s) => ({ id: s.id, name: s.name, balance: s.balance, percentage: clampPercentage(Number(percentageOf(s.id, s.defaultSplitPercentage) || '0')) })),
  );

  const pay = useMutation({
    mutationFn: ({ body, key }: { body: PayBody; key: string }) => payIntentRequest(intent.id, body, key),
    onSuccess: (answer) => {
      void qc.invalidateQueries({ queryKey: checkoutSourcesQuery().queryKey });
      const charged = parseCents(answer.bcard.totalCharged);
      toast({
        title: t('checkout.toast.success'),
        description: t('checkout.toast.successBody', { amount: iso(charged === null ? formatCents(plan.totalCents) : formatCents(charged)) }),
      });
      reportToOpener(returnOrigin, answer.paymentIntent.id, answer.paymentIntent.status);
      onPaid(answer);
    },
    onError: (error) => {
      void qc.invalidateQueries({ queryKey: checkoutSourcesQuery().queryKey });
      // The merchant changed the amount since the page was read: show the new one before the consumer pays again.
      if (error instanceof ApiError && error.code === 'amount_changed') void qc.invalidateQueries({ queryKey: publicIntentQuery(intent.id, clientSecret).queryKey });
      const message = messageOf(error) ?? '';
      const details = insufficientDetailsOf(error);
      if ((error instanceof ApiError && error.code === 'insufficient_funds') || message.includes('Insufficient funds')) {
        setShortfall(details ?? null);
        toast({
          title: t('checkout.toast.insufficient'),
          description: details
            ? t('checkout.toast.insufficientBody', { need: iso(formatMoney(details.totalRequired)), have: iso(formatMoney(details.totalAvailable)) })
            : message,
          variant: 'destructive',
        });
        return;
      }
      toast({ title: t('checkout.toast.failed'), description: message || t('checkout.toast.failedFallback'), variant: 'destructive' });
    },
  });

  const canPay = active.length > 0 && plan.totalOk && plan.insufficient.length === 0 && !pay.isPending;

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!canPay) return;
    setShortfall(null);
    const body: PayBody = { client_secret: clientSecret, amount: intent.amount, splits: splitsBody(plan) };
    const json = JSON.stringify(body);
    const previous = attempt.current;
    const key = previous && !previous.answered && previous.body === json ? previous.key : crypto.randomUUID();
    const current = { key, body: json, answered: false };
    attempt.current = current;
    pay.mutate(
      { body, key },
      {
        onSuccess: () => {
          current.answered = true;
        },
        onError: (error) => {
          if (error instanceof ApiError) current.answered = true;
        },
      },
    );
  }

  if (sources.isLoading || benefits.isLoading) {
    return (
      <p className="flex items-center gap-2 py-8 text-sm text-slate-600" aria-busy="true">
        <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
        {t('common.loading')}
      </p>
    );
  }
  if (sources.isError) {
    return <Problem title={t('checkout.sourcesFailed')} body={messageOf(sources.error) ?? ''} testId="checkout-sources-error" />;
  }

  const splitInvalid = active.length > 0 && !plan.totalOk;
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4" data-testid="checkout-form">
      <Card>
        <CardHeader className="pb-3">
          <CardTitle className="text-base">{t('checkout.split.title')}</CardTitle>
          <CardDescription>{t('checkout.split.description')}</CardDescription>
        </CardHeader>
        <CardContent className="space-y-3">
          {active.length === 0 ? (
            <div className="space-y-3 rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900" role="alert" data-testid="checkout-no-sources">
              <p>{t('checkout.split.noSources')}</p>
              <a href="/" target="_blank" rel="noopener" className={buttonClasses('outline', 'sm')}>
                {t('checkout.split.openDashboard')}
              </a>
            </div>
          ) : (
            <fieldset className="space-y-2">
              <legend className="sr-only">{t('checkout.split.title')}</legend>
              {active.map((s, i) => {
                const share = plan.shares[i];
                const short = plan.insufficient.some((x) => x.id === s.id);
                const inputId = `checkout-split-${s.id}`;
                return (
                  <div key={s.id} className="flex items-center gap-3 rounded-lg border border-slate-200 p-3" data-testid="checkout-split-row">
                    <div className="min-w-0 flex-1">
                      <Label htmlFor={inputId} className="block truncate">
                        {s.name} <span className="font-mono text-slate-400" dir="ltr">•••• {s.last4}</span>
                      </Label>
                      <p className={`text-xs ${short ? 'text-red-600' : 'text-slate-500'}`} data-testid="checkout-split-needs">
                        {s.balance === null
                          ? t('checkout.split.needsUnknown', { needs: iso(formatCents(share?.requiredCents ?? 0)) })
                          : t('checkout.split.needsHas', {
                              needs: iso(formatCents(share?.requiredCents ?? 0)),
                              has: iso(formatMoney(s.balance)),
                            })}
                      </p>
                    </div>
                    {/* A left-to-right island: physical sides, since logical ones are lowered by :lang(), not dir. */}
                    <div className="relative w-24 shrink-0" dir="ltr">
                      <Input
                        id={inputId}
                        data-testid="checkout-split"
                        type="number"
                        min={0}
                        max={100}
                        step={0.1}
                        inputMode="decimal"
                        dir="ltr"
                        className="pr-7 text-right"
                        value={percentageOf(s.id, s.defaultSplitPercentage)}
                        onChange={(e) => setSplits((prev) => ({ ...prev, [s.id]: e.target.value }))}
                        aria-invalid={splitInvalid || short}
                      />
                      <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-sm text-slate-400">%</span>
                    </div>
                  </div>
                );
              })}
            </fieldset>
          )}
          <dl className="space-y-1.5 rounded-lg bg-slate-50 p-4 text-sm" data-testid="checkout-summary">
            <div className="flex justify-between gap-4">
              <dt className="text-slate-600">{t('checkout.summary.amount')}</dt>
              <dd className="tabular-nums" dir="ltr" data-testid="checkout-amount">
                {formatCents(plan.amountCents)}
              </dd>
            </div>
            <div className="flex justify-between gap-4">
              <dt className="text-slate-600">{t('checkout.summary.fee', { fee })}</dt>
              <dd className="tabular-nums" dir="ltr" data-testid="checkout-fee">
                {formatCents(plan.feeCents)}
              </dd>
            </div>
            <div className="flex justify-between gap-4 border-t border-slate-200 pt-1.5 font-semibold">
              <dt>{t('checkout.summary.total')}</dt>
              <dd className="tabular-nums" dir="ltr" data-testid="checkout-total">
                {formatCents(plan.totalCents)}
              </dd>
            </div>
            <div className="flex justify-between gap-4 text-xs text-slate-500">
              <dt>{t('checkout.summary.split')}</dt>
              <dd className="tabular-nums" dir="ltr" data-testid="checkout-split-total">
                {plan.percentageTotal}%
              </dd>
            </div>
          </dl>
          {(splitInvalid || plan.insufficient.length > 0 || shortfall) && (
            <div className="space-y-2 text-sm text-red-600" role="alert" data-testid="checkout-split-error">
              {splitInvalid && <p className="font-medium">{t('checkout.split.totalError', { total: plan.percentageTotal })}</p>}
              {plan.insufficient.length > 0 && (
                <div>
                  <p className="font-medium">{t('checkout.split.fundsError')}</p>
                  <ul className="mt-1 list-disc space-y-0.5 ps-5">
                    {plan.insufficient.map((s) => (
                      <li key={s.id}>
                        {t('checkout.split.fundsLine', { name: s.name, needs: iso(formatCents(s.requiredCents)), has: iso(formatCents(s.availableCents ?? 0)) })}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
              {shortfall && plan.insufficient.length === 0 && (
                <div data-testid="checkout-shortfall">
                  <p className="font-medium">
                    {t('checkout.toast.insufficientBody', {
                      need: iso(formatMoney(shortfall.totalRequired)),
                      have: iso(formatMoney(shortfall.totalAvailable)),
                    })}
                  </p>
                  <ul className="mt-1 list-disc space-y-0.5 ps-5">
                    {shortfall.insufficientSources.map((s) => (
                      <li key={s.fundingSourceId ?? s.name}>
                        {s.availableBalance === null
                          ? t('checkout.split.fundsLineUnknown', { name: s.name, needs: iso(formatMoney(s.requiredAmount)) })
                          : t('checkout.split.fundsLine', { name: s.name, needs: iso(formatMoney(s.requiredAmount)), has: iso(formatMoney(s.availableBalance)) })}
                      </li>
                    ))}
                  </ul>
                </div>
              )}
            </div>
          )}
        </CardContent>
      </Card>
      <Button type="submit" size="lg" className="w-full" disabled={!canPay} data-testid="checkout-pay">
        {pay.isPending ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <ShieldCheck className="h-4 w-4" aria-hidden />}
        {pay.isPending ? t('checkout.paying') : t('checkout.pay', { amount: iso(formatCents(plan.totalCents)) })}
      </Button>
      <Button variant="ghost" className="w-full" onClick={() => window.close()} disabled={pay.isPending} data-testid="checkout-cancel">
        {t('common.cancel')}
      </Button>
      <p className="text-center text-xs text-slate-500">{t('checkout.bcardNote')}</p>
    </form>
  );
}
