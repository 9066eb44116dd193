import { ArrowLeft, Languages } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { useLanguage } from '../../i18n';
import { Button } from './button';

/** Whole class names, so Tailwind sees them in the source. */
const WIDTH = { narrow: 'max-w-3xl', wide: 'max-w-5xl' } as const;
const GAP = { narrow: 'space-y-6', wide: 'space-y-8' } as const;

/**
 * A signed-in page of its own outside the dashboard (identity verification, plans): a back link and a language
 * switch above the page's title, subtitle and body.
 */
export function TitledPage({
  back,
  title,
  subtitle,
  width,
  children,
}: {
  back: { label: string; testId: string };
  title: string;
  subtitle: string;
  width: keyof typeof WIDTH;
  children: ReactNode;
}) {
  const { t, lang, setLanguage } = useLanguage();
  return (
    <div className="min-h-screen bg-slate-50">
      <header className="border-b border-slate-200 bg-white">
        <div className={`mx-auto flex h-16 ${WIDTH[width]} items-center justify-between gap-4 px-4`}>
          <Link href="/" className="flex items-center gap-1.5 text-sm font-medium text-slate-600 hover:text-slate-900" data-testid={back.testId}>
            <ArrowLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
            {back.label}
          </Link>
          <Button
            variant="ghost"
            size="sm"
            onClick={() => setLanguage(lang === 'ar' ? 'en' : 'ar')}
            lang={lang === 'ar' ? 'en' : 'ar'}
            aria-label={t('common.language.label')}
          >
            <Languages className="h-4 w-4" aria-hidden />
            {t('common.language.switch')}
          </Button>
        </div>
      </header>
      <main className={`mx-auto ${WIDTH[width]} ${GAP[width]} px-4 py-8`}>
        <div>
          <h1 className="text-2xl font-bold text-slate-900">{title}</h1>
          <p className="mt-1 text-sm text-slate-600">{subtitle}</p>
        </div>
        {children}
      </main>
    </div>
  );
}
