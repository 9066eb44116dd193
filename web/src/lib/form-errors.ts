/*
 * Errors shown under form fields. A submit shows every field's problem; from then on each shown error follows its
 * own field as it is edited: it goes as soon as the value is valid, and while the value is still wrong it names the
 * current problem. A field that showed no error gets none while typing (only the next submit judges it), so a form
 * never scolds someone who has not finished.
 */

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

/**
 * The errors after `key` changed to a value whose problem is now `problem` (null: valid). Errors of other fields
 * stay as they are; a server's error on this field (which the page cannot re-check) goes with the edit, since the
 * value it judged is gone.
 */
export function followField<K extends string>(shown: FieldErrors<K>, key: K, problem: string | null | undefined): FieldErrors<K> {
  if (shown[key] === undefined) return shown;
  const next: FieldErrors<K> = { ...shown };
  if (problem) next[key] = problem;
  else delete next[key];
  return next;
}

/** True when no field has an error. */
export const noErrors = <K extends string>(errors: FieldErrors<K>) => Object.values(errors).every((e) => !e);
