import { invalid } from '../errors';

/**
 * A keyset cursor over a list ordered by (created_at, id) descending: the last row's time and id, opaque to the
 * client (base64url JSON). Lists answer the next one in the `bpay-next-cursor` header.
 */
export interface Cursor {
  t: number;
  id: string;
}

export const NEXT_CURSOR_HEADER = 'bpay-next-cursor';

export const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');

/** Fails with: validation_error (a cursor this API did not give out). */
export function decodeCursor(s: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Cursor;
    // A forged time outside what a Date can hold would reach the query as NaN.
    if (Number.isSafeInteger(c.t) && c.t >= 0 && c.t <= 8.64e15 && typeof c.id === 'string') return c;
  } catch {
    /* fall through */
  }
  throw invalid('cursor', 'cursor is not one this API gave out.');
}
