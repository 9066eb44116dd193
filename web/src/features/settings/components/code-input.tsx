import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { onlyDigits } from '../api';

/** A 6-digit authenticator code field: digits only, one-time-code autofill, an error read out when it appears. */
export function CodeInput({
  id,
  label,
  value,
  onChange,
  error,
  testId,
  placeholder,
}: {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  error?: string;
  testId: string;
  placeholder: string;
}) {
  const errorId = `${id}-error`;
  return (
    <div className="space-y-2">
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        name="code"
        data-testid={testId}
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]{6}"
        maxLength={6}
        dir="ltr"
        placeholder={placeholder}
        className="text-center font-mono text-lg tracking-[0.4em]"
        value={value}
        onChange={(e) => onChange(onlyDigits(e.target.value))}
        aria-invalid={!!error}
        aria-describedby={error ? errorId : undefined}
      />
      {error && (
        <p id={errorId} role="alert" className="text-xs text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}
