import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '@bpay/db';
import { invalid } from '../../errors';

/*
 * Admin search that seeks (issue 31 §2). Users by name or e-mail, merchants by business name, business e-mail or their
 * owner's name: a substring, at least 3 characters, ASCII-case-insensitive. The FTS5 trigram indexes user_search and
 * merchant_search (migration 0030, kept in step by triggers) answer which rows hold it without reading every row.
 *
 * The page is then the list's own order (newest first, keyset cursor) over those rows. Each match handed to the page's
 * query by id costs a lookup and a place in its sort (a few microseconds), so only a search that matches few rows (up
 * to SEARCH_MANY) goes that way. One that matches more walks the list's index in order and tests each row against its
 * search document (LIKE on the same lowered text the index holds): with m of N rows matching, a page of 50 is found
 * within about 50 × N ÷ m rows, cheap when matches are common ("example.com", a common surname: measured at 100k users,
 * bench:scale). Either way a page costs two statements, and the two ways agree on what matches (the documents' text,
 * lowered as SQLite's lower() lowers it, ASCII only). The weak spot is in between: just over SEARCH_MANY matches, or
 * matches that are all old rows, make the walk read much of the index (docs/DECISIONS.md).
 */

/** The most matches handed to the page's query by id; past it the list is walked in order. */
export const SEARCH_MANY = 500;
export const SEARCH_MIN_CHARS = 3;

/**
 * The search text as the documents hold it: trimmed and lowered as SQLite's lower() lowers (ASCII only); null for no
 * search (absent, empty or only spaces: the whole list, as before). Fails with validation_error under 3 characters.
 */
export function searchText(raw: string | undefined): string | null {
  const s = (raw ?? '').trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
  if (s === '') return null;
  if ([...s].length < SEARCH_MIN_CHARS) throw invalid('search', `search must be at least ${SEARCH_MIN_CHARS} characters (a part of a name or an e-mail address).`);
  return s;
}

/** LIKE with the user's text taken literally. */
export const likeContains = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** An FTS5 query for the text as one phrase: with the trigram tokenizer, "any row holding this substring". */
const phrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

export type SearchIndex = 'users' | 'merchants';

const INDEX = {
  users: { fts: sql.raw('user_search'), docs: sql.raw('user_search_docs'), key: sql.raw('user_id'), columns: ['name', 'email'] },
  merchants: { fts: sql.raw('merchant_search'), docs: sql.raw('merchant_search_docs'), key: sql.raw('merchant_id'), columns: ['business_name', 'business_email', 'owner_name'] },
} as const;

/**
 * How a search narrows a list: the ids of its matches when there are at most SEARCH_MANY (`ids`, for `id IN (…)`), or
 * null when there are more (walk the list in order: searchCondition tests each row's document). One statement.
 */
export async function searchMatches(db: Db, index: SearchIndex, text: string, many = SEARCH_MANY): Promise<string[] | null> {
  const i = INDEX[index];
  const rows = await db.all<{ id: string }>(
    sql`SELECT d.${i.key} AS id FROM ${i.fts} CROSS JOIN ${i.docs} d ON d.doc = ${i.fts}.rowid WHERE ${i.fts} MATCH ${phrase(text)} LIMIT ${many + 1}`,
  );
  return rows.length > many ? null : rows.map((r) => r.id);
}

/** The list's condition for a search: `idColumn` among the matches, or its search document holding the text. */
export function searchCondition(index: SearchIndex, idColumn: SQL | unknown, text: string, ids: string[] | null): SQL {
  const i = INDEX[index];
  if (ids !== null) return sql`${idColumn} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
  const like = likeContains(text);
  const any = sql.join(
    i.columns.map((c) => sql`d.${sql.raw(c)} LIKE ${like} ESCAPE '\\'`),
    sql` OR `,
  );
  return sql`EXISTS (SELECT 1 FROM ${i.docs} d WHERE d.${i.key} = ${idColumn} AND (${any}))`;
}
