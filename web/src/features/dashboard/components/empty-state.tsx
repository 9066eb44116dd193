import type { ReactNode } from 'react';

/** A centred placeholder for an empty list: icon, title, one line of explanation. */
export function EmptyState({
  icon,
  title,
  description,
  testId,
}: {
  icon: ReactNode;
  title: string;
  description?: string;
  testId?: string;
}) {
  return (
    <div
      className="flex flex-col items-center justify-center rounded-xl border border-dashed border-slate-300 bg-white px-6 py-12 text-center"
      data-testid={testId}
    >
      <span
        className="mb-4 flex h-12 w-12 items-center justify-center rounded-full bg-brand-50 text-brand-600"
        aria-hidden
      >
        {icon}
      </span>
      <p className="text-base font-semibold text-slate-900">{title}</p>
      {description && <p className="mt-1 max-w-sm text-sm text-slate-500">{description}</p>}
    </div>
  );
}
