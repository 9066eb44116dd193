import { useQuery } from '@tanstack/react-query';
import { LoaderCircle, RotateCw, TriangleAlert } from 'lucide-react';
import { Button } from '../../../components/ui/button';
import type { Lang } from '../../../i18n';
import { tiersQuery } from '../api';
import { usePageT } from '../../../i18n';
import { planFee, planPrice, tierNameKey } from '../plan-format';
import { Ltr, Rich } from './ltr';

/**
 * The plans on offer with their price and fee, as the API states them (never typed into the page). Outside
 * English, a known plan shows its translated name with the product's own name beside it.
 */
export function PlansList({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const { data, isPending, isError, refetch, isRefetching } = useQuery(tiersQuery());

  let body;
  if (isPending)
    body = (
      <div role="status" className="flex items-center justify-center gap-3 rounded-2xl border border-slate-200 bg-white p-8 text-slate-700">
        <LoaderCircle className="h-5 w-5 animate-spin text-brand-600" aria-hidden />
        {t('investors.plans.loading')}
      </div>
    );
  else if (isError)
    body = (
      <div role="alert" className="flex flex-col items-center gap-3 rounded-2xl border border-red-200 bg-red-50 p-8 text-center">
        <TriangleAlert className="h-6 w-6 text-red-600" aria-hidden />
        <p className="font-medium text-red-800">{t('investors.plans.error')}</p>
        <Button variant="outline" onClick={() => void refetch()} disabled={isRefetching}>
          <RotateCw className="h-4 w-4" aria-hidden />
          {t('investors.plans.retry')}
        </Button>
      </div>
    );
  else if (data.tiers.length === 0) body = <p className="text-center text-slate-700">{t('investors.plans.empty')}</p>;
  else
    body = (
      <ul className="grid gap-4 sm:grid-cols-3">
        {data.tiers.map((tier) => {
          const nameKey = tierNameKey(tier);
          const price = planPrice(tier.monthlyPrice);
          return (
            <li key={tier.id} data-testid="investor-plan" className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
              <h4 className="flex flex-wrap items-baseline gap-x-2 text-lg font-semibold text-slate-900">
                {lang === 'en' || !nameKey ? tier.displayName : t(nameKey)}
                {lang !== 'en' && nameKey && (
                  <span lang="en" dir="ltr" className="text-sm font-medium text-slate-600">
                    {tier.displayName}
                  </span>
                )}
              </h4>
              <p className="mt-3 flex flex-wrap items-baseline gap-1">
                <span className="text-3xl font-bold tracking-tight text-slate-900">
                  {price ? <Ltr>{price}</Ltr> : t('investors.plans.free')}
                </span>
                {price && <span className="text-sm font-medium text-slate-600">{t('investors.plans.perMonth')}</span>}
              </p>
              <p className="mt-2 text-sm text-slate-700">
                <Rich template={t('investors.plans.fee')} values={{ rate: <Ltr>{planFee(tier.transactionFeeRate)}</Ltr> }} />
              </p>
            </li>
          );
        })}
      </ul>
    );

  return (
    <div className="mt-12">
      <h3 id="investors-plans-title" className="mb-6 text-center text-xl font-semibold text-slate-900">
        {t('investors.plans.title')}
      </h3>
      {body}
    </div>
  );
}
