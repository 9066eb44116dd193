import { Link2, ShoppingBag, SlidersHorizontal, type LucideIcon } from 'lucide-react';
import type { Lang, MessageKey } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { SectionHeading } from './section-heading';

const STEPS: Array<{ icon: LucideIcon; title: MessageKey; body: MessageKey }> = [
  { icon: Link2, title: 'landing.how.connect.title', body: 'landing.how.connect.body' },
  { icon: SlidersHorizontal, title: 'landing.how.split.title', body: 'landing.how.split.body' },
  { icon: ShoppingBag, title: 'landing.how.shop.title', body: 'landing.how.shop.body' },
];

export function HowItWorksSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <section id="how-it-works" aria-labelledby="how-it-works-title" className="scroll-mt-20 bg-white py-20 sm:py-24">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="how-it-works-title"
          eyebrow={t('landing.how.eyebrow')}
          title={t('landing.how.title')}
          subtitle={t('landing.how.subtitle')}
        />
        <div className="relative mt-16">
          {/* The line joining the steps on wide screens; decorative, and outside the list so the <ol> holds only items. */}
          <div aria-hidden className="absolute inset-x-[16%] top-8 hidden h-0.5 bg-linear-to-r from-brand-100 via-brand-500/40 to-brand-100 md:block" />
          <ol className="relative grid gap-8 md:grid-cols-3">
          {STEPS.map(({ icon: Icon, title, body }, i) => (
            <li key={title} className="relative flex flex-col items-center text-center">
              <span className="relative flex h-16 w-16 items-center justify-center rounded-2xl bg-brand-600 text-white shadow-lg shadow-brand-600/25 ring-8 ring-white">
                <Icon className="h-7 w-7" aria-hidden />
              </span>
              <p className="mt-6 text-sm font-semibold text-brand-600">{t('landing.how.step', { n: i + 1 })}</p>
              <h3 className="mt-1 text-xl font-semibold text-slate-900">{t(title)}</h3>
              <p className="mt-3 max-w-xs leading-relaxed text-slate-600">{t(body)}</p>
            </li>
          ))}
          </ol>
        </div>
      </div>
    </section>
  );
}
