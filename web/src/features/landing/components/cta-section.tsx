import { ArrowRight } from 'lucide-react';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import type { Lang } from '../../../i18n';
import { usePageT } from '../../../i18n';

export function CtaSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <section aria-labelledby="cta-title" className="bg-white px-4 pb-20 sm:px-6 sm:pb-24 lg:px-8">
      <div className="relative mx-auto max-w-5xl overflow-hidden rounded-3xl bg-linear-to-br from-brand-600 via-brand-700 to-slate-900 px-6 py-16 text-center shadow-2xl sm:px-16">
        <div aria-hidden className="absolute -end-16 -top-16 h-64 w-64 rounded-full bg-white/10 blur-2xl" />
        <div aria-hidden className="absolute -bottom-20 -start-20 h-64 w-64 rounded-full bg-sky-400/20 blur-2xl" />
        <h2 id="cta-title" className="relative text-3xl font-bold tracking-tight text-white sm:text-4xl">
          {t('landing.cta.title')}
        </h2>
        <p className="relative mx-auto mt-4 max-w-xl text-lg text-brand-100">{t('landing.cta.body')}</p>
        <div className="relative mt-8 flex flex-col items-center justify-center gap-3 sm:flex-row">
          <Link href="/auth?tab=register" className={buttonClasses('outline', 'lg', 'w-full border-transparent bg-white text-brand-700 hover:bg-brand-50 sm:w-auto')}>
            {t('landing.cta.primary')}
            <ArrowRight className="h-5 w-5 rtl:rotate-180" aria-hidden />
          </Link>
          <Link href="/auth" className={buttonClasses('ghost', 'lg', 'w-full text-white ring-1 ring-white/30 hover:bg-white/10 sm:w-auto')}>
            {t('landing.cta.secondary')}
          </Link>
        </div>
      </div>
    </section>
  );
}
