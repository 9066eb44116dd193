import { CopyButton } from './copy-button';

/**
 * A snippet to copy: always left-to-right (its copy button on the right), even on Arabic pages. Physical sides
 * (pr-, right-) on purpose: the CSS build lowers logical ones by the page's :lang(), not by dir, so they would flip
 * inside this left-to-right island.
 */
export function CodeBlock({ code, label, testId }: { code: string; label: string; testId: string }) {
  return (
    <div className="relative" dir="ltr">
      <pre
        className="max-h-80 overflow-auto rounded-lg bg-slate-900 p-4 pr-28 text-left text-xs leading-relaxed text-slate-100"
        dir="ltr"
        data-testid={testId}
      >
        <code>{code}</code>
      </pre>
      <div className="absolute right-2 top-2">
        <CopyButton text={code} label={label} testId={`${testId}-copy`} variant="secondary" />
      </div>
    </div>
  );
}
