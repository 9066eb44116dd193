import type { ReactNode } from 'react';
import { Label } from './label';

/** What a field's control (an input, a select) takes so its label, description and error are read with it. */
export interface FieldControlProps {
  id: string;
  'aria-invalid': boolean;
  'aria-describedby': string | undefined;
}

/** The ids a field's error and description take from its control's id. */
export const fieldErrorId = (id: string) => `${id}-error`;
export const fieldDescriptionId = (id: string) => `${id}-hint`;

/**
 * The control's wiring: invalid (aria-invalid="true") while an error shows and "false" otherwise; described by the
 * error first, then by the description, so a screen reader says what is wrong before the standing hint.
 */
export function fieldControlProps(id: string, { error, description }: { error?: string | null; description?: boolean }): FieldControlProps {
  const describedBy = [error ? fieldErrorId(id) : null, description ? fieldDescriptionId(id) : null].filter(Boolean).join(' ');
  return { id, 'aria-invalid': !!error, 'aria-describedby': describedBy || undefined };
}

/** A field's error, read out as it appears (role="alert"); nothing when there is none. */
export function FieldError({ id, testId, children }: { id: string; testId?: string; children: ReactNode }) {
  if (!children) return null;
  return (
    <p id={id} role="alert" className="text-xs text-red-600" data-testid={testId}>
      {children}
    </p>
  );
}

/**
 * One form field: the label, the control, an optional description under it, and the error (when there is one)
 * last. The control is drawn by `children` from the props it is given (id, aria-invalid, aria-describedby), so it
 * may be any input, select or a wrapper around one.
 */
export function FormField({
  id,
  label,
  labelAside,
  description,
  error,
  errorTestId,
  className = 'space-y-1.5',
  children,
}: {
  /** The control's id: the label points at it, and the error and description ids are made from it. */
  id: string;
  label: ReactNode;
  /** Shown on the label's line, at its end (a detected card brand, say). */
  labelAside?: ReactNode;
  description?: ReactNode;
  error?: string | null;
  errorTestId?: string;
  /** The spacing between label, control and texts. */
  className?: string;
  children(control: FieldControlProps): ReactNode;
}) {
  const labelNode = <Label htmlFor={id}>{label}</Label>;
  return (
    <div className={className}>
      {labelAside ? (
        <div className="flex items-center justify-between gap-2">
          {labelNode}
          {labelAside}
        </div>
      ) : (
        labelNode
      )}
      {children(fieldControlProps(id, { error, description: !!description }))}
      {description && (
        <p id={fieldDescriptionId(id)} className="text-xs text-slate-500">
          {description}
        </p>
      )}
      <FieldError id={fieldErrorId(id)} testId={errorTestId}>
        {error}
      </FieldError>
    </div>
  );
}
