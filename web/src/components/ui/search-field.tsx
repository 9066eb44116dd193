import { Search } from 'lucide-react';
import { Input } from './input';

/** A list's search box: the magnifier at the start (right in Arabic), the label as its name and placeholder. */
export function SearchField({
  label,
  value,
  onChange,
  testId,
}: {
  label: string;
  value: string;
  onChange(value: string): void;
  testId?: string;
}) {
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
      />
    </div>
  );
}
