import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
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
  return (
    <FormField id={id} label={label} error={error} className="space-y-2">
      {(control) => (
        <Input
          {...control}
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
        />
      )}
    </FormField>
  );
}
