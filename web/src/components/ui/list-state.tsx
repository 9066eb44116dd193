import { Loader2 } from 'lucide-react';
import type { ReactNode } from 'react';
import { useT } from '../../i18n';
import { messageOf } from '../../lib/api';
import { cn } from '../../lib/cn';
import { Button } from './button';

/** What a list shows: a loading line, the load error, its empty state, the empty state of a filter, or its items. */
export type ListStatus = 'loading' | 'error' | 'empty' | 'no-match' | 'items';

/**
 * Which state a list is in. A load in progress comes first, then a failed load; with nothing to show, the list is
 * 'no-match' when a filter is on or when items were loaded but the filter hides them all (the user can widen it),
 * and 'empty' only when there is nothing at all.
 */
export function listStatus({
  isLoading,
  error,
  total,
  shown = total,
  filtered = false,
}: {
  isLoading: boolean;
  error: unknown;
  /** How many items were loaded. */
  total: number;
  /** How many of them are shown (a filter applied in the page can hide some); `total` when none is. */
  shown?: number;
  /** Whether a filter (search, a status) narrows the list. */
  filtered?: boolean;
}): ListStatus {
  if (isLoading) return 'loading';
  if (error) return 'error';
  if (shown > 0) return 'items';
  return filtered || total > 0 ? 'no-match' : 'empty';
}

/**
 * Shows the one state `status` names. `loading` defaults to the loading line; `noMatch` to `empty`; and `empty` to
 * the items themselves, for a list that draws its own empty row (a grid that always ends with a Create tile).
 */
export function ListState({
  status,
  loading,
  error,
  empty,
  noMatch,
  children,
}: {
  status: ListStatus;
  loading?: ReactNode;
  error: ReactNode;
  empty?: ReactNode;
  noMatch?: ReactNode;
  children: ReactNode;
}) {
  switch (status) {
    case 'loading':
      return <>{loading ?? <LoadingLine />}</>;
    case 'error':
      return <>{error}</>;
    case 'empty':
      return <>{empty ?? children}</>;
    case 'no-match':
      return <>{noMatch ?? empty ?? children}</>;
    case 'items':
      return <>{children}</>;
  }
}

/** A list loading: a spinner and 'Loading...' (aria-busy). */
export function LoadingLine() {
  const t = useT();
  return (
    <p className="flex items-center gap-2 py-8 text-sm text-slate-500" aria-busy="true">
      <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
      {t('common.loading')}
    </p>
  );
}

/** A list that failed to load: what failed and the server's reason, and Retry. */
export function LoadError({ message, error, onRetry }: { message: string; error: unknown; onRetry(): void }) {
  const t = useT();
  return (
    <div className="space-y-3 rounded-xl border border-red-200 bg-red-50 p-6" role="alert">
      <p className="text-sm text-red-700">
        {message} {messageOf(error)}
      </p>
      <Button variant="outline" size="sm" onClick={onRetry}>
        {t('common.retry')}
      </Button>
    </div>
  );
}

/** A centred placeholder for an empty list: icon, title, one line of explanation. `as="li"` when it sits in the list. */
export function EmptyState({
  icon,
  title,
  description,
  testId,
  as: Tag = 'div',
  className,
}: {
  icon: ReactNode;
  title: string;
  description?: string;
  testId?: string;
  as?: 'div' | 'li';
  className?: string;
}) {
  return (
    <Tag
      className={cn(
        'flex flex-col items-center justify-center rounded-xl border border-dashed border-slate-300 bg-white px-6 py-12 text-center',
        className,
      )}
      data-testid={testId}
    >
      <span className="mb-4 flex h-12 w-12 items-center justify-center rounded-full bg-brand-50 text-brand-600" aria-hidden>
        {icon}
      </span>
      <p className="text-base font-semibold text-slate-900">{title}</p>
      {description && <p className="mt-1 max-w-sm text-sm text-slate-500">{description}</p>}
    </Tag>
  );
}
