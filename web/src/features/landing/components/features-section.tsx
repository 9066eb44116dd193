import { ArrowRight, ChartColumn, CreditCard, Puzzle, ShieldCheck, Smartphone, Store, type LucideIcon } from 'lucide-react';
import { Link } from 'wouter';
import type { Lang, MessageKey } from '../../../i18n';
import { usePageT } from '../../../i18n';
import { SectionHeading } from './section-heading';

/** `page`: the feature's own page, per language; its title links there and the whole card is the link's target. */
const FEATURES: Array<{ icon: LucideIcon; title: MessageKey; body: MessageKey; tint: string; page?: Record<Lang, string> }> = [
  {
    icon: Puzzle,
    title: 'landing.features.extension.title',
    body: 'landing.features.extension.body',
    tint: 'bg-brand-50 text-brand-600',
    page: { en: '/extension', ar: '/extension-ar' },
  },
  { icon: CreditCard, title: 'landing.features.bcards.title', body: 'landing.features.bcards.body', tint: 'bg-sky-50 text-sky-600' },
  { icon: ChartColumn, title: 'landing.features.analytics.title', body: 'landing.features.analytics.body', tint: 'bg-violet-50 text-violet-600' },
  { icon: ShieldCheck, title: 'landing.features.security.title', body: 'landing.features.security.body', tint: 'bg-emerald-50 text-emerald-600' },
  { icon: Smartphone, title: 'landing.features.mobile.title', body: 'landing.features.mobile.body', tint: 'bg-amber-50 text-amber-600' },
  { icon: Store, title: 'landing.features.merchant.title', body: 'landing.features.merchant.body', tint: 'bg-rose-50 text-rose-600' },
];

export function FeaturesSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <section id="features" aria-labelledby="features-title" className="scroll-mt-20 bg-slate-50 py-20 sm:py-24">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <SectionHeading
          id="features-title"
          eyebrow={t('landing.features.eyebrow')}
          title={t('landing.features.title')}
          subtitle={t('landing.features.subtitle')}
        />
        <ul className="mt-16 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {FEATURES.map(({ icon: Icon, title, body, tint, page }) => (
            <li
              key={title}
              className="group relative rounded-2xl border border-slate-200 bg-white p-6 shadow-sm transition hover:-translate-y-0.5 hover:shadow-md"
            >
              <span className={`flex h-12 w-12 items-center justify-center rounded-xl ${tint}`}>
                <Icon className="h-6 w-6" aria-hidden />
              </span>
              <h3 className="mt-5 text-lg font-semibold text-slate-900">
                {page ? (
                  // The link's ::after covers the card, so a click anywhere on it follows the link.
                  <Link
                    href={page[lang]}
                    className="inline-flex items-center gap-1.5 outline-none after:absolute after:inset-0 after:rounded-2xl group-hover:text-brand-700 focus-visible:after:ring-2 focus-visible:after:ring-brand-500"
                    data-testid="feature-extension-link"
                  >
                    {t(title)}
                    <ArrowRight className="h-4 w-4 rtl:rotate-180" aria-hidden />
                  </Link>
                ) : (
                  t(title)
                )}
              </h3>
              <p className="mt-2 leading-relaxed text-slate-600">{t(body)}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
