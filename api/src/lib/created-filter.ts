import { and, gte, lt, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { t } from 'elysia';
import { invalid } from '../errors';
import { shownText } from './text';

/*
 * Stripe's `created` filter on list endpoints: `created=<unix seconds>` (that second) or any of `created[gte]`,
 * `created[gt]`, `created[lte]`, `created[lt]` (unix seconds, combined with AND). A query string carries them as
 * keys with brackets (`?created[gte]=1767225600`), which is how stripe-node and the SDK send them.
 *
 * Use: spread CREATED_QUERY into a list route's query schema, pass the request's raw search params to
 * parseCreatedFilter (validation errors name the param, e.g. `created[gte]`), and AND createdCondition(column, range) into the WHERE.
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

/**
 * A created parameter in the route's query schema. It documents the integer the API expects (the SDK's types say
 * `number`) but lets every value through to parseCreatedFilter, which reads the raw query string: the validator's
 * own number coercion would take ' ' as 0, '0x10' as 16 and '1e3' as 1000, keep the last of a repeated parameter,
 * and answer Infinity with an error that names no param.
 */
const seconds = (meaning: keyof typeof MEANING) =>
  t.Optional(
    t.Unknown({
      type: 'integer',
      minimum: 0,
      maximum: MAX_SECONDS,
      description: `Unix seconds: only objects created ${MEANING[meaning]}`,
    }),
  );

/** The query parameters, for a list route's query schema (`t.Object({ ...CREATED_QUERY, limit: … })`). */
export const CREATED_QUERY = {
  created: seconds('created'),
  'created[gte]': seconds('gte'),
  'created[gt]': seconds('gt'),
  'created[lte]': seconds('lte'),
  'created[lt]': seconds('lt'),
};

function toSecond(param: string, value: string): Date {
  // Digits only (no sign, blank, hex, exponent or fraction), and few enough to stay an exact integer.
  const n = /^\d{1,12}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 0 && n <= MAX_SECONDS)) {
    throw invalid(param, `${param} must be a Unix timestamp in seconds (a whole number from 0 to ${MAX_SECONDS}, such as 1767225600).`);
  }
  return new Date(n * 1000);
}

/**
 * The created range a list query asks for, read from the raw query string (`new URL(request.url).searchParams`); {}
 * when it asks none. Fails with: validation_error naming the param (not a whole number of seconds from 0 to
 * MAX_SECONDS, the same param given twice, `created` together with a bound, an operator Stripe does not have).
 */
export function parseCreatedFilter(search: URLSearchParams): CreatedRange {
  const range: CreatedRange = {};
  let exact: Date | undefined;
  const seen = new Set<string>();
  for (const [key, value] of search) {
    if (key !== 'created' && !key.startsWith('created[')) continue;
    const param = shownText(key);
    if (seen.has(key)) throw invalid(param, `${param} was given more than once: give each created parameter at most once.`);
    seen.add(key);
    if (key === 'created') {
      exact = toSecond(key, value);
      continue;
    }
    const op = /^created\[(\w*)\]$/.exec(key)?.[1];
    if (!op || !(CREATED_OPERATORS as readonly string[]).includes(op)) {
      throw invalid(param, `${param} is not a created filter: use created, created[gte], created[gt], created[lte] or created[lt] (Unix seconds).`);
    }
    range[op as CreatedOperator] = toSecond(key, value);
  }
  if (exact !== undefined) {
    if (Object.keys(range).length > 0) {
      throw invalid('created', 'Give created (one second) or created[gte|gt|lte|lt] (a range), not both.');
    }
    return { gte: exact, lte: exact };
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
