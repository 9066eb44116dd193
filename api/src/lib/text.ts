import { t } from 'elysia';

/**
 * Characters no text field of bpay accepts: NUL and the other C0 controls except tab, line feed and carriage return,
 * DEL and the C1 controls, and the bidirectional embedding, override and isolate characters (U+202A–U+202E,
 * U+2066–U+2069), which make a name or a description read differently from what it is ("Trojan Source").
 * Tab and line breaks stay allowed in free text (a review note); name fields refuse them by their own pattern.
 */
// Also the invisible zero-width space and byte-order mark, and the line and paragraph separators (line breaks that
// are not \n). Zero-width joiners (U+200C/D) and the LRM/RLM marks stay: Persian, Indic and emoji text needs them.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B\u2028\u2029\u202A-\u202E\u2066-\u2069\uFEFF]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

/** `s` with every unsafe character written as \uXXXX, so an error message or param can name a field safely. */
export function escapeUnsafe(s: string): string {
  return s.replace(UNSAFE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/**
 * Text a client sent (a field name, a key, an id), as an error message or param may show it: unsafe characters
 * escaped, and cut to `max` characters (then …), so an answer never echoes a huge or invisible input back whole.
 */
export function shownText(s: string, max = 80): string {
  if (s.length <= max) return escapeUnsafe(s);
  // Never end on the first half of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(s.charAt(max - 1)) ? max - 1 : max;
  return `${escapeUnsafe(s.slice(0, end))}…`;
}

/** The first unsafe character of `s`, as U+XXXX, or null. */
export function unsafeCharacter(s: string): string | null {
  const m = UNSAFE.exec(s);
  if (!m) return null;
  return `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

export function unsafeCharacterMessage(where: string, code: string): string {
  return `${shownText(where)} contains a control or bidirectional-override character (${code}). Remove it and try again.`;
}

/**
 * The first string (key or value) in a parsed JSON body that holds an unsafe character, with its dotted path.
 * Iterative, and the body is already known to be shallow and small (lib/json-guard.ts), so this is bounded.
 */
export function findUnsafeText(value: unknown): { path: string; code: string } | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const code = unsafeCharacter(v);
      if (code) return { path, code };
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, path ? `${path}.${i}` : String(i)]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        const code = unsafeCharacter(k);
        if (code) return { path: at, code };
        stack.push([item, at]);
      }
    }
  }
  return null;
}

/** One line with at least one visible character (checked before trimming; control characters are refused earlier). */
const NAME_PATTERN = '^[^\\r\\n\\t]*\\S[^\\r\\n\\t]*$';
/** One line, possibly empty. */
const LINE_PATTERN = '^[^\\r\\n\\t]*$';

const trimmed = (schema: ReturnType<typeof t.String>) =>
  t
    .Transform(schema)
    .Decode((s: string) => s.trim())
    .Encode((s: string) => s);

/**
 * A required name (of a person, a card, a merchant, a plan): one line, surrounding spaces trimmed, never blank.
 * Where an API has always taken "" to mean "no name", use `lineText` instead.
 */
export const nameText = (field: string, maxLength: number, extra: { description?: string; examples?: string[] } = {}) =>
  trimmed(
    t.String({
      maxLength,
      pattern: NAME_PATTERN,
      error: `${field} is required: one line of at most ${maxLength} characters, not only spaces.`,
      ...extra,
    }),
  );

/** An optional one-line text (a nickname, a description): trimmed; "" stays allowed and means none. */
export const lineText = (field: string, maxLength: number, extra: { description?: string; examples?: string[] } = {}) =>
  trimmed(t.String({ maxLength, pattern: LINE_PATTERN, error: `${field} must be one line of at most ${maxLength} characters.`, ...extra }));

/** Free text (a description): trimmed; line breaks allowed. */
export const freeText = (field: string, maxLength: number) =>
  trimmed(t.String({ maxLength, error: `${field} must be at most ${maxLength} characters.` }));
