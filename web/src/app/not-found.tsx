import { AlertCircle } from 'lucide-react';
import { useT } from '../i18n';

/** The fallback for any unknown path (spec §2). */
export function NotFoundPage() {
  const t = useT();
  return (
    <main className="flex min-h-screen w-full items-center justify-center bg-slate-50 px-4">
      <div className="w-full max-w-md rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <div className="mb-4 flex items-center gap-2">
          <AlertCircle className="h-8 w-8 text-red-500" aria-hidden />
          <h1 className="text-2xl font-bold text-slate-900">{t('notFound.title')}</h1>
        </div>
        <p className="text-sm text-slate-600">{t('notFound.hint')}</p>
      </div>
    </main>
  );
}
