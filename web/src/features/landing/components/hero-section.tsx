import { ArrowRight, CircleCheck, Clock, Sparkles, Star } from 'lucide-react';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import type { Lang, MessageKey } from '../../../i18n';
import { usePageT } from '../../../i18n';

/** The example in the illustration: shares that add up to the total (50% + 30% + 20% of $120.00). */
const EXAMPLE_TOTAL = '120.00';
const EXAMPLE_SHARES: Array<{ brand: MessageKey; last4: string; percent: number; amount: string; bar: string }> = [
  { brand: 'landing.hero.visual.visa', last4: '4242', percent: 50, amount: '60.00', bar: 'bg-brand-500' },
  { brand: 'landing.hero.visual.mastercard', last4: '5100', percent: 30, amount: '36.00', bar: 'bg-sky-500' },
  { brand: 'landing.hero.visual.amex', last4: '0005', percent: 20, amount: '24.00', bar: 'bg-emerald-500' },
];

function SplitIllustration({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    // One image for assistive tech: the label says what the picture shows.
    <div role="img" aria-label={t('landing.hero.visual.label')} className="relative mx-auto w-full max-w-md">
      <div aria-hidden className="absolute -inset-6 rounded-[2rem] bg-linear-to-br from-indigo-200/60 via-sky-100/40 to-emerald-100/50 blur-2xl" />
      <div className="relative space-y-4">
        <div className="relative overflow-hidden rounded-2xl bg-linear-to-br from-slate-900 via-brand-700 to-brand-500 p-6 text-white shadow-2xl shadow-indigo-900/20">
          <div aria-hidden className="absolute -end-10 -top-10 h-40 w-40 rounded-full bg-white/10" />
          <div className="relative flex items-start justify-between">
            <span className="text-lg font-semibold">{t('landing.hero.visual.cardName')}</span>
            <span className="rounded-full bg-white/15 px-2.5 py-1 text-xs font-medium">{t('landing.hero.visual.singleUse')}</span>
          </div>
          <p className="relative mt-8 font-mono text-xl tracking-widest" dir="ltr">
            •••• •••• •••• 4821
          </p>
          <div className="relative mt-6 flex items-end justify-between text-sm">
            <span className="flex items-center gap-1.5 text-brand-100">
              <Clock className="h-4 w-4" aria-hidden />
              {t('landing.hero.visual.expires')}
            </span>
            <span className="text-2xl font-bold" dir="ltr">
              {t('landing.hero.visual.amount', { amount: EXAMPLE_TOTAL })}
            </span>
          </div>
        </div>

        <div className="rounded-2xl border border-slate-200 bg-white p-5 shadow-xl">
          <div className="flex items-center justify-between border-b border-slate-100 pb-3">
            <span className="font-semibold text-slate-900">{t('landing.hero.visual.merchant')}</span>
            <span className="text-sm text-slate-500">
              {t('landing.hero.visual.total')}{' '}
              <span className="font-semibold text-slate-900" dir="ltr">
                {t('landing.hero.visual.amount', { amount: EXAMPLE_TOTAL })}
              </span>
            </span>
          </div>
          <ul className="mt-4 space-y-3">
            {EXAMPLE_SHARES.map((s) => (
              <li key={s.last4}>
                <div className="mb-1 flex items-center justify-between text-sm">
                  <span className="text-slate-700">{t('landing.hero.visual.source', { brand: t(s.brand), last4: s.last4 })}</span>
                  <span className="font-medium text-slate-900" dir="ltr">
                    {t('landing.hero.visual.amount', { amount: s.amount })}
                  </span>
                </div>
                <div className="flex items-center gap-3">
                  <div className="h-2 flex-1 overflow-hidden rounded-full bg-slate-100">
                    <div className={`h-full rounded-full ${s.bar}`} style={{ width: `${s.percent}%` }} />
                  </div>
                  <span className="w-10 text-end text-xs font-medium text-slate-500" dir="ltr">
                    {t('landing.hero.visual.percent', { percent: s.percent })}
                  </span>
                </div>
              </li>
            ))}
          </ul>
          <p className="mt-4 flex items-center gap-2 rounded-lg bg-emerald-50 px-3 py-2 text-sm font-medium text-emerald-700">
            <CircleCheck className="h-4 w-4" aria-hidden />
            {t('landing.hero.visual.ready')}
          </p>
        </div>
      </div>
    </div>
  );
}

const STATS: Array<{ value: MessageKey; label: MessageKey }> = [
  { value: 'landing.stats.users.value', label: 'landing.stats.users.label' },
  { value: 'landing.stats.processed.value', label: 'landing.stats.processed.label' },
  { value: 'landing.stats.uptime.value', label: 'landing.stats.uptime.label' },
  { value: 'landing.stats.merchants.value', label: 'landing.stats.merchants.label' },
  { value: 'landing.stats.rating.value', label: 'landing.stats.rating.label' },
];

export function HeroSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <section aria-labelledby="hero-title" className="relative overflow-hidden bg-linear-to-b from-brand-50 via-white to-white">
      <div aria-hidden className="pointer-events-none absolute inset-x-0 -top-40 mx-auto h-[28rem] max-w-4xl rounded-full bg-brand-100/60 blur-3xl" />
      <div className="relative mx-auto grid max-w-7xl items-center gap-12 px-4 pb-16 pt-16 sm:px-6 sm:pt-20 lg:grid-cols-2 lg:gap-16 lg:px-8 lg:pb-24 lg:pt-24">
        <div className="text-center lg:text-start">
          <p className="inline-flex items-center gap-2 rounded-full border border-brand-100 bg-white px-3 py-1 text-sm font-medium text-brand-700 shadow-sm">
            <Sparkles className="h-4 w-4" aria-hidden />
            {t('landing.hero.badge')}
          </p>
          <h1 id="hero-title" className="mt-6 text-4xl font-extrabold leading-tight tracking-tight text-slate-900 sm:text-5xl lg:text-6xl">
            {t('landing.hero.title')}
          </h1>
          <p className="mx-auto mt-6 max-w-xl text-lg leading-relaxed text-slate-600 lg:mx-0">{t('landing.hero.subtitle')}</p>
          <div className="mt-8 flex flex-col items-center justify-center gap-3 sm:flex-row lg:justify-start">
            <Link href="/auth?tab=register" className={buttonClasses('primary', 'lg', 'w-full shadow-lg shadow-brand-600/20 sm:w-auto')}>
              {t('landing.hero.ctaPrimary')}
              <ArrowRight className="h-5 w-5 rtl:rotate-180" aria-hidden />
            </Link>
            <a href="#how-it-works" className={buttonClasses('outline', 'lg', 'w-full sm:w-auto')}>
              {t('landing.hero.ctaSecondary')}
            </a>
          </div>
          <p className="mt-4 text-sm text-slate-500">{t('landing.hero.note')}</p>
        </div>
        <SplitIllustration lang={lang} />
      </div>

      <div className="relative border-y border-slate-200 bg-white/80">
        <h2 className="sr-only">{t('landing.stats.label')}</h2>
        <dl className="mx-auto grid max-w-7xl grid-cols-2 gap-y-8 px-4 py-10 sm:grid-cols-3 sm:px-6 lg:grid-cols-5 lg:px-8">
          {STATS.map((s) => (
            <div key={s.label} className="flex flex-col items-center gap-1 text-center">
              <dt className="order-2 text-sm text-slate-500">{t(s.label)}</dt>
              <dd className="order-1 flex items-center gap-1.5 text-3xl font-bold tracking-tight text-slate-900">
                <span dir="ltr">{t(s.value)}</span>
                {s.value === 'landing.stats.rating.value' && <Star className="h-6 w-6 fill-amber-400 text-amber-400" aria-hidden />}
              </dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  );
}
