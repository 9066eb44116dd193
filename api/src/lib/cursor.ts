import { createHash } from 'node:crypto';
import { invalid } from '../errors';

/**
 * A keyset cursor over a list ordered by (created_at, id) descending: the last row's time and id, opaque to the
 * client (base64url JSON). Lists answer the next one in the `bpay-next-cursor` header.
 *
 * A cursor names the list that gave it out and, for a consumer's own list, a tag of the account it was given to (a
 * hash, not the id): a cursor from another list, or from another account's list, is a 400 before anything is read
 * (issue 31). The tag is no secret and the cursor no credential: a hand-made one only moves the caller's own keyset
 * position within the caller's own rows, which every list allows anyway.
 */
export interface Cursor {
  t: number;
  id: string;
}

/** Which list a cursor belongs to, and whose (consumer lists: the user; admin lists are shared by the admins). */
export interface CursorScope {
  list: string;
  owner?: string;
}

export const NEXT_CURSOR_HEADER = 'bpay-next-cursor';

const ownerTag = (owner: string | undefined) => (owner ? createHash('sha256').update(owner).digest('base64url').slice(0, 12) : '');

export const encodeCursor = (c: Cursor, scope: CursorScope) =>
  Buffer.from(JSON.stringify({ l: scope.list, o: ownerTag(scope.owner), t: c.t, id: c.id })).toString('base64url');

/** Fails with: validation_error (a cursor this API did not give out, or one given out for another list or account). */
export function decodeCursor(s: string, scope: CursorScope): Cursor {
  const c = parse(s);
  // A forged time outside what a Date can hold would reach the query as NaN.
  if (!c || !Number.isSafeInteger(c.t) || (c.t as number) < 0 || (c.t as number) > 8.64e15 || typeof c.id !== 'string') {
    throw invalid('cursor', 'cursor is not one this API gave out.');
  }
  if (c.l === undefined) throw invalid('cursor', 'cursor is from an earlier version of this list: start again from the first page.');
  if (c.l !== scope.list || c.o !== ownerTag(scope.owner)) {
    throw invalid('cursor', 'cursor was given out for another list or another account: start again from the first page.');
  }
  return { t: c.t as number, id: c.id };
}

function parse(s: string): { l?: unknown; o?: unknown; t?: unknown; id?: unknown } | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
