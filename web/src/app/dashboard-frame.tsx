import { useLanguage } from '../i18n';
import { BrandMark } from '../components/ui/brand-mark';

/*
 * What `/` shows a browser that holds a session cookie while the session is checked and the dashboard's chunk
 * arrives: the dashboard's own header and title block, laid out exactly as DashboardPage lays them out (same
 * classes, a bar the height of the greeting line), with the subtitle's real text. The page then fills in without
 * anything moving, and its first meaningful paint comes after the entry script instead of after the dashboard's.
 */
export function DashboardFrame() {
  const { t, dir } = useLanguage();
  return (
    <div className="min-h-screen bg-slate-50" dir={dir} aria-busy="true" data-testid="dashboard-frame">
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur">
        <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
          <span className="flex items-center gap-2">
            <BrandMark />
          </span>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-8 sm:px-6 lg:px-8">
        <div className="mb-6 flex flex-col gap-1">
          {/* The greeting's line: text-2xl/3xl lines are 2rem/2.25rem high. */}
          <div className="h-8 w-64 max-w-full animate-pulse rounded bg-slate-200 sm:h-9" aria-hidden />
          <p className="text-sm text-slate-500">{t('common.dashboard.subtitle')}</p>
        </div>
      </main>
    </div>
  );
}
