import { createHash } from 'node:crypto';
import { and, asc, desc, eq, gt, gte, lt, lte, not, or, sql, type SQL } from 'drizzle-orm';
import { schema } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { invalid } from '../../errors';
import { createdCondition, type CreatedRange } from '../../lib/created-filter';
import { parseSearchQuery, type SearchClause, type SearchQuery } from './search-query';
import { toIntentObject } from './service';

/*
 * GET /v1/payment_intents/search: Stripe's search over the merchant's intents in its mode. The query is read by
 * search-query.ts; here its clauses become one WHERE whose every value is a bound parameter, ANDed with the
 * merchant and mode, so no query reaches another merchant's intents or the other mode.
 *
 * Order and pages: newest first by seq, the per-merchant-and-mode creation counter the list orders by. It is
 * created's order (seq is taken in the insert, and bpay's clock never runs backwards) with no ties, and it is the
 * order of payment_intents_merchant_idx (merchant_id, livemode, seq): a page is one walk down that index from the
 * page token's seq, filtering rows as it goes and stopping at limit + 1. The page token is opaque to clients: the
 * last seq shown, with a tag of the merchant, mode and query, so a token given with another query is refused
 * instead of silently skipping results.
 *
 * Bounded work: one request reads at most SEARCH_SCAN_ROWS intents (a window of seq below the page token), whatever
 * the query, and fewer when it has metadata clauses (SEARCH_METADATA_READS). A query matching nothing over many intents with large metadata (50 keys of 500 characters, ten `~`
 * clauses) otherwise held the server for seconds: 20,000 such intents took 3.6 s, during which nothing else ran
 * (hostile review of issue 28). When the window ends before `limit` matches, the page is shorter (possibly empty)
 * with has_more true and a next_page that continues below the window, as Stripe's libraries follow it.
 */

type MerchantRow = typeof schema.merchants.$inferSelect;
const pi = schema.paymentIntents;

export const SEARCH_URL = '/v1/payment_intents/search';

/** Most intents one search request reads (see "Bounded work" above). */
export const SEARCH_SCAN_ROWS = 1000;
/**
 * Most (intent × metadata clause) readings one request makes: each reads up to 50 keys of 500 characters through
 * json_each, the costly part (about 17 µs each, measured), so a query of ten metadata clauses reads 100 intents a
 * request, one of a single clause 1,000.
 */
export const SEARCH_METADATA_READS = 1000;

/** The intents one request of this query reads: SEARCH_SCAN_ROWS, fewer the more metadata clauses it has. */
export function scanRowsFor(q: SearchQuery): number {
  const metadata = q.clauses.filter((c) => c.field === 'metadata').length;
  return Math.min(SEARCH_SCAN_ROWS, Math.floor(SEARCH_METADATA_READS / Math.max(1, metadata)));
}

const COMPARE = { eq, gt, lt, gte, lte } as const;

/** One clause as SQL; values are bound parameters (drizzle's sql template and operators), never SQL text. */
export function clauseCondition(c: SearchClause): SQL {
  let cond: SQL;
  switch (c.field) {
    case 'status':
      cond = eq(pi.status, c.value);
      break;
    case 'currency':
      cond = eq(pi.currency, c.value);
      break;
    case 'amount':
      cond = COMPARE[c.compare](pi.amount, c.value);
      break;
    case 'created': {
      // In whole seconds, as `created` is shown and as the list's created filter reads them.
      const at = new Date(c.value * 1000);
      const range: CreatedRange = c.compare === 'eq' ? { gte: at, lte: at } : { [c.compare]: at };
      cond = createdCondition(pi.createdAt, range)!;
      break;
    }
    case 'metadata':
      // json_each over the intent's own metadata (at most 50 keys): the key is compared as data, never made into a
      // JSON path, so a key with quotes, dots or brackets means itself.
      if (c.match === 'absent') cond = sql`not exists (select 1 from json_each(${pi.metadata}) as m where m.key = ${c.key})`;
      else if (c.match === 'equals') cond = sql`exists (select 1 from json_each(${pi.metadata}) as m where m.key = ${c.key} and m.value = ${c.value})`;
      else cond = sql`exists (select 1 from json_each(${pi.metadata}) as m where m.key = ${c.key} and instr(m.value, ${c.value}) > 0)`;
      break;
  }
  return c.negated ? not(cond) : cond;
}

/** The whole query as one condition. */
export function searchCondition(q: SearchQuery): SQL {
  const conds = q.clauses.map(clauseCondition);
  return (q.join === 'or' ? or(...conds) : and(...conds))!;
}

function pageTag(merchantId: string, livemode: boolean, query: string): string {
  return createHash('sha256').update(`${merchantId}\n${livemode}\n${query}`).digest('base64url').slice(0, 16);
}

function pageToken(seq: number, tag: string): string {
  return Buffer.from(`${seq}.${tag}`).toString('base64url');
}

function readPageToken(token: string, tag: string): number {
  const [seq, t] = Buffer.from(token, 'base64url').toString('utf8').split('.');
  const n = /^\d{1,15}$/.test(seq ?? '') ? Number(seq) : Number.NaN;
  if (!Number.isSafeInteger(n) || t !== tag) {
    throw invalid('page', 'page is not a page of this search: give the next_page of the previous answer, with the same query.');
  }
  return n;
}

export interface SearchInput {
  /** Every `query` parameter given: exactly one is wanted. */
  query: string[];
  limit: number;
  page?: string;
}

/**
 * A page of the merchant's intents in its mode that match a Stripe search query, newest first, with the token of the
 * next page. Fails with: validation_error naming query (missing, given twice, or not valid: search-query.ts says where and why),
 * limit (outside 1–100) or page (not a token of this search).
 */
export async function searchIntents(deps: AppDeps, merchant: MerchantRow, livemode: boolean, input: SearchInput, scanRowsOverride?: number) {
  const [query, ...more] = input.query;
  if (query === undefined) throw invalid('query', "query is required: a search query such as status:'succeeded' AND metadata['order']:'42'.");
  if (more.length > 0) throw invalid('query', 'query was given more than once: give one query (join clauses with AND or OR).');
  if (!Number.isSafeInteger(input.limit) || input.limit < 1 || input.limit > 100) throw invalid('limit', 'limit must be an integer from 1 to 100.');
  const parsed = parseSearchQuery(query);
  const tag = pageTag(merchant.id, livemode, query);
  const after = input.page === undefined ? undefined : readPageToken(input.page, tag);
  const scope = and(eq(pi.merchantId, merchant.id), eq(pi.livemode, livemode));
  // The window: seq from `lower` (inclusive) to `upper` (exclusive), at most scanRows intents of the index.
  const scanRows = scanRowsOverride ?? scanRowsFor(parsed);
  const edge = (order: typeof asc) => deps.db.select({ seq: pi.seq }).from(pi).where(scope).orderBy(order(pi.seq)).limit(1);
  const [[newest], [oldest]] = await Promise.all([edge(desc), edge(asc)]);
  const upper = after ?? (newest?.seq ?? 0) + 1;
  const lower = Math.max(upper - scanRows, 0);
  const rows = await deps.db
    .select()
    .from(pi)
    .where(and(scope, lt(pi.seq, upper), gte(pi.seq, lower), searchCondition(parsed)))
    .orderBy(desc(pi.seq))
    .limit(input.limit + 1);
  const full = rows.length > input.limit;
  const page = rows.slice(0, input.limit);
  // More to read: a match past this page, or older intents below the window.
  const next = full ? page.at(-1)!.seq : oldest !== undefined && lower > oldest.seq ? lower : null;
  return {
    object: 'search_result' as const,
    url: SEARCH_URL,
    has_more: next !== null,
    next_page: next === null ? null : pageToken(next, tag),
    data: page.map(toIntentObject),
  };
}
