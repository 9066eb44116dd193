import { AlertCircle, Check, Copy, Inbox, Loader2 } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';

export function LoadingBlock({ testId }: { testId?: string }) {
  const t = useT();
  return (
    <div className="space-y-3" aria-busy="true" aria-label={t('common.loading')} data-testid={testId}>
      {[0, 1, 2].map((i) => (
        <div key={i} className="h-16 animate-pulse rounded-lg bg-slate-200" />
      ))}
    </div>
  );
}

export function ErrorBlock({ message, onRetry }: { message: string; onRetry?(): void }) {
  const t = useT();
  return (
    <div role="alert" className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800">
      <span className="flex items-center gap-2">
        <AlertCircle className="h-4 w-4" aria-hidden />
        {message}
      </span>
      {onRetry && (
        <Button variant="outline" size="sm" onClick={onRetry}>
          {t('admin.retry')}
        </Button>
      )}
    </div>
  );
}

export function EmptyState({ title, body, icon, testId }: { title: string; body?: string; icon?: ReactNode; testId?: string }) {
  return (
    <div className="flex flex-col items-center rounded-xl border border-dashed border-slate-300 bg-white px-6 py-12 text-center" data-testid={testId}>
      <span className="mb-3 text-slate-400" aria-hidden>
        {icon ?? <Inbox className="h-8 w-8" />}
      </span>
      <p className="font-semibold text-slate-900">{title}</p>
      {body && <p className="mt-1 text-sm text-slate-500">{body}</p>}
    </div>
  );
}

/** Spec §8: 'Copied to clipboard' / '{label} has been copied to your clipboard.' */
export function CopyValue({ text, label }: { text: string; label: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
      toast({ title: t('admin.copy.toast'), description: t('admin.copy.toastBody', { label }) });
    } catch {
      toast({ title: t('admin.copy.failed'), variant: 'destructive' });
    }
  }
  return (
    <Button variant="ghost" size="icon" className="h-7 w-7" onClick={copy} aria-label={t('admin.copy.label', { label })}>
      {copied ? <Check className="h-3.5 w-3.5 text-green-600" aria-hidden /> : <Copy className="h-3.5 w-3.5" aria-hidden />}
    </Button>
  );
}

export function StatCard({ label, value, hint, icon, testId }: { label: string; value: ReactNode; hint?: ReactNode; icon?: ReactNode; testId?: string }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm" data-testid={testId}>
      <div className="flex items-center justify-between text-sm font-medium text-slate-500">
        <span>{label}</span>
        <span aria-hidden>{icon}</span>
      </div>
      <div className="mt-2 text-2xl font-bold text-slate-900" data-testid={testId ? `${testId}-value` : undefined}>
        {value}
      </div>
      {hint && (
        <div className="mt-1 text-xs text-slate-500" data-testid={testId ? `${testId}-hint` : undefined}>
          {hint}
        </div>
      )}
    </div>
  );
}

/** A native select styled like the inputs (native keeps tests and screen readers simple). */
export const selectClass = 'h-10 rounded-md border border-slate-300 bg-white px-3 text-sm';

/**
 * "Load more" under a paged list: shown only while the server named a next page, disabled while it loads. The name
 * stays "Load more" while loading (aria-busy says it is working), so a screen reader keeps the same button.
 */
export function LoadMore({
  hasMore,
  loading,
  onLoad,
  testId,
}: {
  hasMore: boolean;
  loading: boolean;
  onLoad(): void;
  testId?: string;
}) {
  const t = useT();
  if (!hasMore) return null;
  return (
    <div className="flex justify-center">
      <Button variant="outline" onClick={onLoad} disabled={loading} aria-busy={loading} data-testid={testId}>
        {loading && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
        {t('admin.loadMore')}
      </Button>
    </div>
  );
}

/** Whole class names, so Tailwind sees them in the source. */
const TH_ALIGN = { start: 'px-4 py-3 text-start font-medium', end: 'px-4 py-3 text-end font-medium' } as const;

/** A column heading of an `AdminTable`. */
export function Th({ align = 'start', children }: { align?: keyof typeof TH_ALIGN; children: ReactNode }) {
  return <th className={TH_ALIGN[align]}>{children}</th>;
}

/**
 * A panel list as a table: scrolls sideways inside its frame on a narrow screen, headings in small capitals over
 * rows split by a line. `head` is the row of `Th`s; the children are the body's rows.
 */
export function AdminTable({ head, children }: { head: ReactNode; children: ReactNode }) {
  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm">
      <table className="w-full text-sm">
        <thead className="bg-slate-50 text-xs uppercase text-slate-500">
          <tr>{head}</tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}
