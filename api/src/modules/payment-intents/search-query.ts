import { PAYMENT_INTENT_STATUSES, type PaymentIntentStatus } from '@bpay/db';
import { invalid } from '../../errors';
import { escapeUnsafe } from '../../lib/text';

/*
 * Stripe's search query language, for the PaymentIntent fields bpay has (GET /v1/payment_intents/search?query=…).
 * A query is clauses joined by spaces or AND (all must match) or by OR (any may match), never both: Stripe has no
 * parentheses and refuses the mix. A clause is an optional `-` (not), a field, an operator and a value:
 *
 *   status:'succeeded'            status and currency: ':' (equals) only
 *   currency:"usd"
 *   amount>=1000  amount:1000     amount and created: ':' or '=' (equals), '>', '<', '>=', '<='; created in Unix seconds
 *   created<1767225600
 *   metadata['order']:'42'        metadata: ':' (equals), '~' (contains, at least 3 characters), ':null' (no such key)
 *   metadata["note"]~'gift'
 *   -metadata['order']:null       the key is there
 *
 * Values are quoted with ' or " (a backslash takes the next character as it is: 'O\'Brien'), or bare when they are
 * letters, digits and _ . @ + -. The bare word null is "absent"; 'null' quoted is the text. Keywords AND and OR are
 * case-insensitive, field names are not.
 *
 * This file only reads a query into clauses, refusing what it cannot read with the position and the token that
 * stopped it; search.ts turns the clauses into a parameterized WHERE (values are never written into SQL).
 */

/** Stripe allows up to 10 clauses in a search query. */
export const MAX_CLAUSES = 10;
/** Longer than any query of 10 clauses a person writes, far below the URL limit (8 KB). */
export const MAX_QUERY_LENGTH = 1000;
/** metadata limits, as on create and update (service.ts). */
const MAX_KEY_LENGTH = 40;
const MAX_VALUE_LENGTH = 500;
/** Stripe's substring match needs at least 3 characters. */
export const MIN_SUBSTRING = 3;
/** Latest second accepted, as lib/created-filter.ts: 9999-12-31T23:59:59Z. */
const MAX_SECONDS = 253_402_300_799;

export type Comparison = 'eq' | 'gt' | 'lt' | 'gte' | 'lte';

export type SearchClause =
  | { field: 'status'; negated: boolean; value: PaymentIntentStatus }
  | { field: 'currency'; negated: boolean; value: string }
  | { field: 'amount' | 'created'; negated: boolean; compare: Comparison; value: number }
  | { field: 'metadata'; negated: boolean; key: string; match: 'equals' | 'contains'; value: string }
  | { field: 'metadata'; negated: boolean; key: string; match: 'absent' };

export interface SearchQuery {
  /** How the clauses combine: 'and' (spaces or AND) or 'or'. One clause is 'and'. */
  join: 'and' | 'or';
  clauses: SearchClause[];
}

const FIELDS = ['status', 'amount', 'currency', 'created', 'metadata'] as const;
type Field = (typeof FIELDS)[number];
const FIELD_LIST = "status, amount, currency, created and metadata['key']";

const OPERATORS = ['>=', '<=', ':', '~', '=', '>', '<'] as const;
type Operator = (typeof OPERATORS)[number];
const COMPARISON: Record<Exclude<Operator, '~'>, Comparison> = { ':': 'eq', '=': 'eq', '>': 'gt', '<': 'lt', '>=': 'gte', '<=': 'lte' };

const BARE = /^[A-Za-z0-9_.@+-]+$/;
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** A refusal of the query: what is wrong, at which character (1-based) and the text found there. */
function refuse(src: string, at: number, token: string | null, what: string): never {
  const shown =
    at >= src.length || token === null
      ? 'the end of the query'
      : token === ''
        ? 'a space'
        : `"${escapeUnsafe(token.length > 40 ? `${token.slice(0, 40)}…` : token)}"`;
  throw invalid('query', `The search query is not valid at character ${at + 1} (${shown}): ${what}`);
}

/** Reads one query left to right; `pos` is the index of the next character. */
class Reader {
  pos = 0;
  constructor(readonly src: string) {}

  get done(): boolean {
    return this.pos >= this.src.length;
  }
  peek(): string | undefined {
    return this.src[this.pos];
  }
  /** Skips whitespace; true when there was some. */
  skipSpaces(): boolean {
    const from = this.pos;
    while (isSpace(this.peek())) this.pos++;
    return this.pos > from;
  }
  /** The text from `at` to the next space (what a refusal shows). */
  tokenAt(at: number): string {
    let end = at;
    while (end < this.src.length && !isSpace(this.src[end])) end++;
    return this.src.slice(at, end);
  }
  fail(at: number, what: string): never {
    return refuse(this.src, at, this.tokenAt(at), what);
  }
  /** A field name or keyword: a letter or _, then letters, digits or _. */
  word(): string {
    const from = this.pos;
    while (this.pos < this.src.length && /[A-Za-z0-9_]/.test(this.src[this.pos]!) && (this.pos > from || /[A-Za-z_]/.test(this.src[this.pos]!))) this.pos++;
    return this.src.slice(from, this.pos);
  }
  operator(): Operator | null {
    for (const op of OPERATORS) {
      if (this.src.startsWith(op, this.pos)) {
        this.pos += op.length;
        return op;
      }
    }
    return null;
  }
  /** A value quoted with ' or ", the reader on its opening quote. A backslash takes the next character as it is. */
  quoted(): string {
    const open = this.pos;
    const quote = this.src[open]!;
    this.pos++;
    let out = '';
    while (!this.done) {
      const c = this.src[this.pos]!;
      if (c === quote) {
        this.pos++;
        return out;
      }
      if (c === '\\') {
        if (this.pos + 1 >= this.src.length) break;
        out += this.src[this.pos + 1];
        this.pos += 2;
        continue;
      }
      out += c;
      this.pos++;
    }
    return refuse(this.src, open, this.tokenAt(open), `this quoted value is never closed: end it with ${quote} (write \\${quote} for a ${quote} inside it).`);
  }
}

interface RawValue {
  text: string;
  quoted: boolean;
  at: number;
}

function readValue(r: Reader, after: string): RawValue {
  const at = r.pos;
  const c = r.peek();
  if (c === undefined || isSpace(c)) return r.fail(at, `${after} needs a value right after it, such as ${after}'value' (no space between).`);
  if (c === "'" || c === '"') return { text: r.quoted(), quoted: true, at };
  const text = r.tokenAt(at);
  if (!BARE.test(text)) {
    return r.fail(at, "quote a value that holds anything but letters, digits and _ . @ + - (for example 'a b' or \"a'b\").");
  }
  r.pos += text.length;
  return { text, quoted: false, at };
}

function readNumber(r: Reader, field: 'amount' | 'created', v: RawValue): number {
  if (!v.quoted && v.text === 'null') return r.fail(v.at, `${field} is never null.`);
  const max = field === 'amount' ? Number.MAX_SAFE_INTEGER : MAX_SECONDS;
  const n = /^\d{1,16}$/.test(v.text) ? Number(v.text) : Number.NaN;
  if (!(n <= max)) {
    return r.fail(
      v.at,
      field === 'amount'
        ? 'amount is a whole number of cents, such as amount>=1000.'
        : `created is a Unix timestamp in seconds (a whole number from 0 to ${MAX_SECONDS}), such as created>1767225600.`,
    );
  }
  return n;
}

function readClause(r: Reader): SearchClause {
  const negated = r.peek() === '-';
  if (negated) r.pos++;
  const fieldAt = r.pos;
  const name = r.word();
  if (name === '') return r.fail(fieldAt, `expected a field: ${FIELD_LIST}.`);
  if (!(FIELDS as readonly string[]).includes(name)) return r.fail(fieldAt, `${name} is not a field bpay searches: use ${FIELD_LIST}.`);
  const field = name as Field;

  let key: string | undefined;
  if (field === 'metadata') {
    if (r.peek() !== '[') return r.fail(r.pos, "metadata needs a key in brackets, such as metadata['order_id']:'42'.");
    r.pos++;
    const keyAt = r.pos;
    const q = r.peek();
    if (q !== "'" && q !== '"') return r.fail(keyAt, "the metadata key must be quoted, such as metadata['order_id'].");
    key = r.quoted();
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) return r.fail(keyAt, `a metadata key is 1 to ${MAX_KEY_LENGTH} characters.`);
    if (r.peek() !== ']') return r.fail(r.pos, 'expected ] after the metadata key.');
    r.pos++;
  } else if (r.peek() === '[') {
    return r.fail(r.pos, `${field} takes no key in brackets; only metadata does.`);
  }
  const shownField = field === 'metadata' ? `metadata[${JSON.stringify(key)}]` : field;

  const opAt = r.pos;
  const op = r.operator();
  if (op === null) {
    return r.fail(opAt, `expected an operator after ${shownField}: ':' (equals), '~' (contains) or, for amount and created, '>', '<', '>=', '<=', '='.`);
  }
  const v = readValue(r, `${shownField}${op}`);
  const isNull = !v.quoted && v.text === 'null';

  switch (field) {
    case 'status':
    case 'currency': {
      if (op !== ':') return r.fail(opAt, `${field} takes ':' (equals) only, such as ${field === 'status' ? "status:'succeeded'" : "currency:'usd'"}.`);
      if (isNull) return r.fail(v.at, `${field} is never null.`);
      if (field === 'currency') {
        if (!/^[A-Za-z]{3}$/.test(v.text)) return r.fail(v.at, "currency is a three-letter code, such as currency:'usd'.");
        return { field, negated, value: v.text.toLowerCase() };
      }
      if (!(PAYMENT_INTENT_STATUSES as readonly string[]).includes(v.text)) {
        return r.fail(v.at, `status is one of ${PAYMENT_INTENT_STATUSES.join(', ')}.`);
      }
      return { field, negated, value: v.text as PaymentIntentStatus };
    }
    case 'amount':
    case 'created': {
      if (op === '~') return r.fail(opAt, `${field} is a number: use ':' or '=' (equals), '>', '<', '>=' or '<=', not '~'.`);
      return { field, negated, compare: COMPARISON[op], value: readNumber(r, field, v) };
    }
    case 'metadata': {
      if (op !== ':' && op !== '~') return r.fail(opAt, `metadata values are text: use ':' (equals) or '~' (contains), not '${op}'.`);
      if (isNull) {
        if (op === '~') return r.fail(v.at, `null goes with ':' (${shownField}:null is "no such key"), not with '~'.`);
        return { field, negated, key: key!, match: 'absent' };
      }
      if (v.text.length > MAX_VALUE_LENGTH) return r.fail(v.at, `a metadata value is at most ${MAX_VALUE_LENGTH} characters.`);
      if (op === '~' && v.text.length < MIN_SUBSTRING) return r.fail(v.at, `'~' (contains) needs at least ${MIN_SUBSTRING} characters.`);
      return { field, negated, key: key!, match: op === '~' ? 'contains' : 'equals', value: v.text };
    }
  }
}

/**
 * Reads a search query into its clauses. Fails with: validation_error (param query) saying what is wrong, at which
 * character and the text found there: an empty or over-long query, more than MAX_CLAUSES clauses, an unknown field,
 * an operator or value the field does not take, an unclosed quote, AND mixed with OR.
 */
export function parseSearchQuery(src: string): SearchQuery {
  if (src.trim() === '') return refuse(src, 0, null, "the query is empty: give at least one clause, such as status:'succeeded'.");
  if (src.length > MAX_QUERY_LENGTH) return refuse(src, MAX_QUERY_LENGTH, src.slice(MAX_QUERY_LENGTH), `a query is at most ${MAX_QUERY_LENGTH} characters.`);
  const r = new Reader(src);
  r.skipSpaces();
  const clauses: SearchClause[] = [];
  let join: 'and' | 'or' | null = null;
  const joinWith = (how: 'and' | 'or', at: number) => {
    if (join !== null && join !== how) {
      r.fail(at, 'AND and OR cannot be mixed in one query (a space between clauses means AND): join every clause with AND, or every one with OR.');
    }
    join = how;
  };
  for (;;) {
    const clauseAt = r.pos;
    clauses.push(readClause(r));
    if (clauses.length > MAX_CLAUSES) return r.fail(clauseAt, `a query has at most ${MAX_CLAUSES} clauses.`);
    const spaced = r.skipSpaces();
    if (r.done) break;
    if (!spaced) return r.fail(r.pos, 'expected a space, AND or OR between two clauses.');
    const wordAt = r.pos;
    const keyword = r.word().toUpperCase();
    if ((keyword === 'AND' || keyword === 'OR') && (r.done || isSpace(r.peek()))) {
      if (!r.skipSpaces() || r.done) return r.fail(r.pos, `expected a clause after ${keyword}.`);
      joinWith(keyword === 'AND' ? 'and' : 'or', wordAt);
    } else {
      r.pos = wordAt; // a field, not a keyword: the space joined them
      joinWith('and', wordAt);
    }
  }
  return { join: join ?? 'and', clauses };
}
