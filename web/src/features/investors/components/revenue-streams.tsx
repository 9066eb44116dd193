import { Percent, Repeat, Store, type LucideIcon } from 'lucide-react';
import type { Lang, MessageKey } from '../../../i18n';
import { CLAIMS, type Claim } from '../claims';
import { usePageT } from '../../../i18n';
import { ClaimItem } from './claim-grid';

interface Stream {
  id: string;
  icon: LucideIcon;
  title: MessageKey;
  body: MessageKey;
  claim?: Claim;
}

const STREAMS: Stream[] = [
  { id: 'fees', icon: Percent, title: 'investors.model.fees.title', body: 'investors.model.fees.body', claim: CLAIMS.feeRange },
  { id: 'subscriptions', icon: Repeat, title: 'investors.model.subscriptions.title', body: 'investors.model.subscriptions.body' },
  {
    id: 'integrations',
    icon: Store,
    title: 'investors.model.integrations.title',
    body: 'investors.model.integrations.body',
    claim: CLAIMS.integrations,
  },
];

/** The three revenue sources as cards (h3 each); fees and integrations carry their figure. */
export function RevenueStreams({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <ul className="grid gap-4 md:grid-cols-3">
      {STREAMS.map((s) => (
        <li key={s.id} className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
          <span className="flex h-11 w-11 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
            <s.icon className="h-5 w-5" aria-hidden />
          </span>
          <h3 className="mt-4 text-lg font-semibold text-slate-900">{t(s.title)}</h3>
          <p className="mt-2 text-sm leading-relaxed text-slate-600">{t(s.body)}</p>
          {s.claim && (
            <dl className="mt-auto pt-4">
              <ClaimItem claim={s.claim} lang={lang} className="border-0 bg-brand-50/60 p-4 shadow-none sm:p-4" />
            </dl>
          )}
        </li>
      ))}
    </ul>
  );
}
