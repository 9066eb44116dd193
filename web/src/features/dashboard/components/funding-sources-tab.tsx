import { useQuery } from '@tanstack/react-query';
import { BadgeCheck, CreditCard, IdCard, Sparkles, Wallet } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { Card } from '../../../components/ui/card';
import { useT, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { benefitsQuery } from '../api';
import { formatAmount } from '../transactions';
import type { FundingSource, SubscriptionBenefits } from '../types';
import { EmptyState } from './empty-state';

const brandLabel: Record<FundingSource['brand'], MessageKey> = {
  visa: 'dashboard.brand.visa',
  mastercard: 'dashboard.brand.mastercard',
  amex: 'dashboard.brand.amex',
  unknown: 'dashboard.brand.unknown',
};
const brandColor: Record<FundingSource['brand'], string> = {
  visa: 'from-blue-600 to-indigo-700',
  mastercard: 'from-orange-500 to-red-600',
  amex: 'from-sky-500 to-cyan-700',
  unknown: 'from-slate-500 to-slate-700',
};

function SourceCard({ source }: { source: FundingSource }) {
  const t = useT();
  return (
    <Card className="overflow-hidden" data-testid="funding-source">
      <div className={cn('bg-gradient-to-br p-5 text-white', brandColor[source.brand])}>
        <div className="flex items-center justify-between">
          <span className="text-xs font-semibold uppercase tracking-wider opacity-90">
            {t(brandLabel[source.brand])}
          </span>
          <CreditCard className="h-5 w-5 opacity-80" aria-hidden />
        </div>
        <p
          className="mt-6 font-mono text-lg tracking-widest"
          dir="ltr"
          aria-label={t('dashboard.sources.endingIn', { last4: source.last4 })}
        >
          •••• {source.last4}
        </p>
        <p className="mt-1 truncate text-sm font-medium opacity-95">{source.name}</p>
      </div>
      <dl className="grid grid-cols-2 gap-4 p-5 text-sm">
        <div>
          <dt className="text-xs text-slate-500">{t('dashboard.sources.balance')}</dt>
          <dd className="font-semibold tabular-nums text-slate-900" dir="ltr">
            {formatAmount(source.balance)}
          </dd>
        </div>
        <div>
          <dt className="text-xs text-slate-500">{t('dashboard.sources.defaultSplit')}</dt>
          <dd className="font-semibold tabular-nums text-slate-900">
            {t('dashboard.sources.percent', { n: source.defaultSplitPercentage })}
          </dd>
        </div>
        <div className="col-span-2">
          <Badge tone={source.isActive ? 'green' : 'neutral'}>
            {source.isActive ? t('dashboard.sources.active') : t('dashboard.sources.inactive')}
          </Badge>
        </div>
      </dl>
    </Card>
  );
}

/** The Free plan's offer (spec §5): ID verification adds a third source and lifts the same-name rule. Information only for now. */
function IdVerificationRewards({ verified }: { verified: boolean }) {
  const t = useT();
  return (
    <section
      className="rounded-xl border border-brand-100 bg-gradient-to-br from-brand-50 to-white p-6 shadow-sm"
      data-testid="id-verification-rewards"
      aria-labelledby="id-verification-rewards-title"
    >
      <div className="flex items-start gap-4">
        <span
          className="flex h-10 w-10 shrink-0 items-center justify-center rounded-lg bg-brand-600 text-white"
          aria-hidden
        >
          <IdCard className="h-5 w-5" />
        </span>
        <div className="min-w-0 flex-1 space-y-3">
          <div className="flex flex-wrap items-center gap-2">
            <h3 id="id-verification-rewards-title" className="text-base font-semibold text-slate-900">
              {t('dashboard.rewards.title')}
            </h3>
            {verified && (
              <Badge tone="green" className="gap-1">
                <BadgeCheck className="h-3.5 w-3.5" aria-hidden />
                {t('dashboard.rewards.unlocked')}
              </Badge>
            )}
          </div>
          <p className="text-sm text-slate-600">
            {verified ? t('dashboard.rewards.verifiedBody') : t('dashboard.rewards.body')}
          </p>
          <ul className="space-y-2 text-sm text-slate-700">
            <li className="flex items-start gap-2">
              <Sparkles className="mt-0.5 h-4 w-4 shrink-0 text-brand-600" aria-hidden />
              {t('dashboard.rewards.extraSource')}
            </li>
            <li className="flex items-start gap-2">
              <Sparkles className="mt-0.5 h-4 w-4 shrink-0 text-brand-600" aria-hidden />
              {t('dashboard.rewards.anyName')}
            </li>
          </ul>
          {!verified && <p className="text-xs text-slate-500">{t('dashboard.rewards.nameRule')}</p>}
        </div>
      </div>
    </section>
  );
}

/** "2 of 3 used", or, for the demo samples (not counted against the real plan), only what the plan allows. */
function planLimitText(
  t: ReturnType<typeof useT>,
  benefits: SubscriptionBenefits['benefits'],
  count: number,
  isDemo: boolean,
): string {
  const unlimited = benefits.maxFundingSources === -1;
  if (isDemo) {
    return unlimited
      ? t('dashboard.sources.allowanceUnlimited')
      : t('dashboard.sources.allowance', { max: benefits.maxFundingSources });
  }
  return unlimited
    ? t('dashboard.sources.limitUnlimited', { count })
    : t('dashboard.sources.limit', { count, max: benefits.maxFundingSources });
}

/** Funding Sources: the linked cards (demo samples in demo mode), the plan's limit and, on Free, the ID reward. */
export function FundingSourcesTab({ sources, isDemo }: { sources: readonly FundingSource[]; isDemo: boolean }) {
  const t = useT();
  const benefits = useQuery(benefitsQuery());
  const data = benefits.data;

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-1">
        <h2 className="text-lg font-semibold text-slate-900">{t('dashboard.sources.title')}</h2>
        <p className="text-sm text-slate-500">{t('dashboard.sources.description')}</p>
        {data && (
          <p className="text-sm text-slate-500" data-testid="funding-source-limit">
            {planLimitText(t, data.benefits, sources.length, isDemo)}
          </p>
        )}
      </div>
      {sources.length === 0 ? (
        <EmptyState
          icon={<Wallet className="h-6 w-6" />}
          title={t('dashboard.sources.empty')}
          description={t('dashboard.sources.emptyBody')}
          testId="funding-sources-empty"
        />
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label={t('dashboard.sources.title')}>
          {sources.map((s) => (
            <li key={s.id}>
              <SourceCard source={s} />
            </li>
          ))}
        </ul>
      )}
      {data?.currentTier === 'free' && <IdVerificationRewards verified={data.benefits.isKycVerified} />}
    </div>
  );
}
