import { ArrowDown, Download, Link2 } from 'lucide-react';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import { usePageT, type Lang } from '../../../i18n';
import { CONNECT_PATH, EXTENSION_ZIP_HREF, EXTENSION_ZIP_NAME } from '../downloads';
import { Code, Rich } from './rich';

/** The opening: the page's one h1, the download and the way to the install steps. */
export function HeroSection({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  return (
    <section aria-labelledby="extension-hero-title" className="relative overflow-hidden bg-linear-to-b from-brand-50 via-white to-white">
      <div aria-hidden className="pointer-events-none absolute inset-x-0 -top-40 mx-auto h-[28rem] max-w-4xl rounded-full bg-brand-100/60 blur-3xl" />
      <div className="relative mx-auto max-w-4xl px-4 pb-16 pt-16 text-center sm:px-6 sm:pt-20 lg:px-8 lg:pb-24 lg:pt-24">
        <p className="text-sm font-semibold uppercase tracking-wider text-brand-700">{t('extension.hero.eyebrow')}</p>
        <h1 id="extension-hero-title" className="mt-4 text-4xl font-extrabold leading-tight tracking-tight text-slate-900 sm:text-5xl">
          {t('extension.hero.title')}
        </h1>
        <p className="mx-auto mt-6 max-w-2xl text-lg leading-relaxed text-slate-600">{t('extension.hero.subtitle')}</p>
        <div className="mt-8 flex flex-col items-center justify-center gap-3 sm:flex-row">
          {/* A plain link: the file is the server's, not a route of the app. */}
          <a
            href={EXTENSION_ZIP_HREF}
            download={EXTENSION_ZIP_NAME}
            className={buttonClasses('primary', 'lg', 'w-full shadow-lg shadow-brand-600/20 sm:w-auto')}
            data-testid="extension-download"
          >
            <Download className="h-5 w-5" aria-hidden />
            {t('extension.hero.download')}
          </a>
          <a href="#install" className={buttonClasses('outline', 'lg', 'w-full sm:w-auto')}>
            {t('extension.hero.install')}
            <ArrowDown className="h-5 w-5" aria-hidden />
          </a>
        </div>
        <p className="mt-4 text-sm text-slate-500" data-testid="extension-download-note">
          <Rich text={t('extension.hero.downloadNote')} values={{ file: <Code>{EXTENSION_ZIP_NAME}</Code> }} />
        </p>
        <p className="mt-6">
          <Link href={CONNECT_PATH} className="inline-flex items-center gap-1.5 text-sm font-medium text-brand-700 underline-offset-4 hover:underline">
            <Link2 className="h-4 w-4" aria-hidden />
            {t('extension.hero.connect')}
          </Link>
        </p>
      </div>
    </section>
  );
}
