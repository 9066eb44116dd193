import { Search } from 'lucide-react';
import { useId } from 'react';
import { Input } from './input';

/** A list's search box: the magnifier at the start (right in Arabic), the label as its name and placeholder. */
export function SearchField({
  label,
  value,
  onChange,
  testId,
  hint,
}: {
  label: string;
  value: string;
  onChange(value: string): void;
  testId?: string;
  /** A word under the box, read with it (e.g. how many characters a search needs). */
  hint?: string;
}) {
  const hintId = useId();
  return (
    <div className="relative flex-1">
      <Search className="pointer-events-none absolute start-3 top-3 h-4 w-4 text-slate-400" aria-hidden />
      <Input
        type="search"
        className="ps-9"
        placeholder={label}
        aria-label={label}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        data-testid={testId}
        aria-describedby={hint ? hintId : undefined}
      />
      <p id={hintId} className="mt-1 min-h-4 text-xs text-slate-500" role="status" data-testid={testId ? `${testId}-hint` : undefined}>
        {hint ?? ''}
      </p>
    </div>
  );
}
