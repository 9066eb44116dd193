import { TriangleAlert } from 'lucide-react';
import { CopyButton } from './copy-button';

/**
 * A secret shown this one time (a new secret key, a webhook signing secret). It lives only in the component's
 * state: nothing stores it, and it is gone when the dialog closes.
 */
export function SecretReveal({
  title,
  secret,
  warning,
  copyLabel,
  testId,
}: {
  title: string;
  secret: string;
  warning: string;
  copyLabel: string;
  testId: string;
}) {
  return (
    <div className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4" data-testid={testId}>
      <p className="text-sm font-semibold text-amber-950">{title}</p>
      <div className="flex items-center gap-2">
        <code
          className="min-w-0 flex-1 select-all break-all rounded-md border border-amber-200 bg-white px-3 py-2 font-mono text-sm text-slate-900"
          dir="ltr"
          data-testid={`${testId}-value`}
        >
          {secret}
        </code>
        <CopyButton text={secret} label={copyLabel} testId={`${testId}-copy`} />
      </div>
      <p className="flex items-start gap-2 text-xs text-amber-900" role="note">
        <TriangleAlert className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
        {warning}
      </p>
    </div>
  );
}
