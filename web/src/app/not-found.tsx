import { AlertCircle, ArrowLeft, Languages } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { Link, useLocation } from 'wouter';
import { buttonClasses } from '../components/ui/button';
import { useAuth } from '../features/auth/auth-context';
import { useLanguage, type MessageKey } from '../i18n';
import { useDocumentTitle } from '../lib/document-title';

/** Paths of the back office (/admin, /admin/…, /admin-panel/…, /admin-anything): their way home is the panel. */
export const isAdminPath = (path: string): boolean => /^\/admin(?:[-/]|$)/i.test(path);

/** Where the 404 page sends a visitor, and what the link says. */
export function homeFor(path: string, state: { signedIn: boolean; lang: 'en' | 'ar' }): { href: string; label: MessageKey } {
  // The panel sends a visitor without an admin token on to /admin-login.
  if (isAdminPath(path)) return { href: '/admin-panel', label: 'notFound.home.admin' };
  if (state.signedIn) return { href: '/', label: 'notFound.home.dashboard' };
  return { href: state.lang === 'ar' ? '/ar' : '/', label: 'notFound.home.landing' };
}

/**
 * The fallback for any unknown path (spec §2: '404 Page Not Found' with its hint), with a way home that fits who is
 * looking (the panel under /admin, the dashboard when signed in, else the landing page in the page's language) and a
 * language switch. The heading takes the focus on arrival, so a screen reader starts at what happened.
 */
export function NotFoundPage() {
  const { t, lang, dir, setLanguage } = useLanguage();
  const { user } = useAuth();
  const [location] = useLocation();
  const home = homeFor(location, { signedIn: Boolean(user), lang });
  useDocumentTitle(t('notFound.metaTitle'));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <main dir={dir} className="flex min-h-screen w-full items-center justify-center bg-slate-50 px-4 py-8" data-testid="not-found">
      <div className="w-full max-w-md rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <div className="mb-4 flex items-center gap-2">
          <AlertCircle className="h-8 w-8 shrink-0 text-red-500" aria-hidden />
          <h1 ref={heading} className="text-2xl font-bold text-slate-900 focus:outline-none focus-visible:outline-none" tabIndex={-1}>
            {t('notFound.title')}
          </h1>
        </div>
        <p className="text-sm text-slate-600">{t('notFound.hint')}</p>
        <p className="mt-2 break-all text-sm text-slate-500">
          {t('notFound.path')}{' '}
          <code dir="ltr" className="rounded bg-slate-100 px-1 py-0.5 text-slate-700" data-testid="not-found-path">
            {location}
          </code>
        </p>
        <div className="mt-6 flex flex-wrap items-center gap-3">
          <Link href={home.href} className={buttonClasses('primary', 'md')} data-testid="not-found-home">
            <ArrowLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
            {t(home.label)}
          </Link>
          <button
            type="button"
            onClick={() => setLanguage(lang === 'ar' ? 'en' : 'ar')}
            lang={lang === 'ar' ? 'en' : 'ar'}
            className={buttonClasses('ghost', 'md')}
            data-testid="not-found-language"
          >
            <Languages className="h-4 w-4" aria-hidden />
            {t('common.language.switch')}
          </button>
        </div>
      </div>
    </main>
  );
}
