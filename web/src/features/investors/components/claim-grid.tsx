import type { Lang } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { ADDRESSABLE_MARKET_YEAR, type Claim } from '../claims';
import { usePageT } from '../../../i18n';
import { Ltr, Rich } from './ltr';

/** One figure with its label. `data-claim` names the figure for tests. */
export function ClaimItem({ claim, lang, className }: { claim: Claim; lang: Lang; className?: string }) {
  const t = usePageT(lang);
  const figure = typeof claim.figure === 'string' ? claim.figure : t(claim.figure.key);
  return (
    <div
      data-claim={claim.id}
      className={cn('flex flex-col gap-1 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6', className)}
    >
      <dt className="order-2 text-sm font-medium text-slate-600">
        <Rich template={t(claim.label)} values={{ year: <Ltr>{ADDRESSABLE_MARKET_YEAR}</Ltr> }} />
      </dt>
      <dd className="order-1 text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
        {claim.id === 'status' ? (
          <span className="inline-flex items-center gap-2 text-emerald-700">
            <span aria-hidden className="h-2.5 w-2.5 animate-pulse rounded-full bg-emerald-500" />
            {figure}
          </span>
        ) : (
          <Ltr>{figure}</Ltr>
        )}
      </dd>
    </div>
  );
}

export function ClaimGrid({ claims, lang, className }: { claims: readonly Claim[]; lang: Lang; className?: string }) {
  return (
    <dl className={cn('grid grid-cols-2 gap-3 sm:gap-4', className)}>
      {claims.map((c) => (
        <ClaimItem key={c.id} claim={c} lang={lang} />
      ))}
    </dl>
  );
}
