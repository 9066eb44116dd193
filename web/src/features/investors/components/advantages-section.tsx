import { CreditCard, Layers, ShieldCheck, Store, type LucideIcon } from 'lucide-react';
import type { Lang, MessageKey } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { SectionHeading, sectionClass } from './section-heading';

const ADVANTAGES: Array<{ id: string; icon: LucideIcon; title: MessageKey; body: MessageKey }> = [
  { id: 'bcards', icon: CreditCard, title: 'investors.advantages.bcards.title', body: 'investors.advantages.bcards.body' },
  { id: 'noFunds', icon: ShieldCheck, title: 'investors.advantages.noFunds.title', body: 'investors.advantages.noFunds.body' },
  { id: 'cards', icon: Layers, title: 'investors.advantages.cards.title', body: 'investors.advantages.cards.body' },
  { id: 'merchants', icon: Store, title: 'investors.advantages.merchants.title', body: 'investors.advantages.merchants.body' },
];

/** Competitive advantages (the Arabic page): what the product does differently, stated from the spec's own rules. */
export function AdvantagesSection({ lang, shaded = false }: { lang: Lang; shaded?: boolean }) {
  const t = usePageT(lang);
  return (
    <section id="advantages" aria-labelledby="investors-advantages-title" className={sectionClass(shaded)}>
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading id="investors-advantages-title" eyebrow={t('investors.advantages.eyebrow')} title={t('investors.advantages.title')} />
        <ul className="mt-12 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {ADVANTAGES.map((a) => (
            <li key={a.id} className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
              <span className="flex h-11 w-11 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
                <a.icon className="h-5 w-5" aria-hidden />
              </span>
              <h3 className="mt-4 text-lg font-semibold text-slate-900">{t(a.title)}</h3>
              <p className="mt-2 text-sm leading-relaxed text-slate-600">{t(a.body)}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
