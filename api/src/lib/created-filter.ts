import { and, gte, lt, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { t } from 'elysia';
import { invalid } from '../errors';

/*
 * Stripe's `created` filter on list endpoints: `created=<unix seconds>` (that second) or any of `created[gte]`,
 * `created[gt]`, `created[lte]`, `created[lt]` (unix seconds, combined with AND). A query string carries them as
 * keys with brackets (`?created[gte]=1767225600`), which is how stripe-node and the SDK send them.
 *
 * Use: spread CREATED_QUERY into a list route's query schema, pass the query to parseCreatedFilter in the service
 * (validation errors name the param, e.g. `created[gte]`), and AND createdCondition(column, range) into the WHERE.
 */

export const CREATED_OPERATORS = ['gte', 'gt', 'lte', 'lt'] as const;
export type CreatedOperator = (typeof CREATED_OPERATORS)[number];

/**
 * The bounds asked for, each the start of the second it names (a Date on a whole second). What each means is the
 * operator's, in whole seconds, as an object's `created` is: see createdCondition.
 */
export type CreatedRange = Partial<Record<CreatedOperator, Date>>;

/** Latest second accepted: 9999-12-31T23:59:59Z. */
const MAX_SECONDS = 253_402_300_799;

const MEANING: Record<'created' | CreatedOperator, string> = {
  created: 'in that second',
  gte: 'at or after it',
  gt: 'after it',
  lte: 'at or before it',
  lt: 'before it',
};

const seconds = (param: string, meaning: keyof typeof MEANING) =>
  t.Optional(
    t.Numeric({
      description: `Unix seconds: only objects created ${MEANING[meaning]}`,
      error: `${param} must be a Unix timestamp in seconds (a whole number such as 1767225600).`,
    }),
  );

/** The query parameters, for a list route's query schema (`t.Object({ ...CREATED_QUERY, limit: … })`). */
export const CREATED_QUERY = {
  created: seconds('created', 'created'),
  'created[gte]': seconds('created[gte]', 'gte'),
  'created[gt]': seconds('created[gt]', 'gt'),
  'created[lte]': seconds('created[lte]', 'lte'),
  'created[lt]': seconds('created[lt]', 'lt'),
};

function toSecond(param: string, value: unknown): Date {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > MAX_SECONDS) {
    throw invalid(param, `${param} must be a Unix timestamp in seconds (a whole number from 0 to ${MAX_SECONDS}, such as 1767225600).`);
  }
  return new Date(n * 1000);
}

/**
 * The created range a list query asks for; {} when it asks none. Fails with: validation_error naming the param
 * (`created[gte]` not a whole number of seconds, `created` together with a bound, an operator Stripe does not have).
 */
export function parseCreatedFilter(query: Record<string, unknown>): CreatedRange {
  const range: CreatedRange = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || !key.startsWith('created[')) continue;
    const op = /^created\[(\w*)\]$/.exec(key)?.[1];
    if (!op || !(CREATED_OPERATORS as readonly string[]).includes(op)) {
      throw invalid(key, `${key} is not a created filter: use created, created[gte], created[gt], created[lte] or created[lt] (Unix seconds).`);
    }
    range[op as CreatedOperator] = toSecond(key, value);
  }
  if (query.created !== undefined) {
    if (Object.keys(range).length > 0) {
      throw invalid('created', 'Give created (one second) or created[gte|gt|lte|lt] (a range), not both.');
    }
    const at = toSecond('created', query.created);
    return { gte: at, lte: at };
  }
  return range;
}

/**
 * The WHERE condition for a range over a timestamp column (milliseconds), in whole seconds as `created` is shown:
 * gte s ⇒ at or after s.000; gt s ⇒ at or after (s+1).000; lte s ⇒ before (s+1).000; lt s ⇒ before s.000.
 * Undefined when the range is empty.
 */
export function createdCondition(column: SQLiteColumn, range: CreatedRange): SQL | undefined {
  const next = (d: Date) => new Date(d.getTime() + 1000);
  const conds: SQL[] = [];
  if (range.gte) conds.push(gte(column, range.gte));
  if (range.gt) conds.push(gte(column, next(range.gt)));
  if (range.lte) conds.push(lt(column, next(range.lte)));
  if (range.lt) conds.push(lt(column, range.lt));
  return conds.length > 0 ? and(...conds) : undefined;
}
