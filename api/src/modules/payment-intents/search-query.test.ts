import { describe, expect, test } from 'bun:test';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { AppError } from '../../errors';
import { MAX_CLAUSES, MAX_QUERY_LENGTH, parseSearchQuery, type SearchQuery } from './search-query';
import { searchCondition } from './search';

/*
 * The search query reader (Stripe's search query language for the fields bpay has): every clause form, quoting and
 * escapes, the refusals with the character and the text that stopped the reader, AND/OR never mixed, and values
 * that look like SQL staying bound parameters in the WHERE built from them.
 */

const parse = (q: string) => parseSearchQuery(q);

/** The refusal a query gets: its param and message. */
function refusal(q: string): { param: string | undefined; message: string } {
  try {
    parseSearchQuery(q);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    expect(e.code).toBe('validation_error');
    return { param: e.param, message: e.message };
  }
  throw new Error(`expected ${q} to be refused`);
}

describe('clauses bpay reads', () => {
  const cases: Array<[string, SearchQuery]> = [
    ["status:'succeeded'", { join: 'and', clauses: [{ field: 'status', negated: false, value: 'succeeded' }] }],
    ['status:"requires_capture"', { join: 'and', clauses: [{ field: 'status', negated: false, value: 'requires_capture' }] }],
    ['status:canceled', { join: 'and', clauses: [{ field: 'status', negated: false, value: 'canceled' }] }],
    ["-status:'canceled'", { join: 'and', clauses: [{ field: 'status', negated: true, value: 'canceled' }] }],
    ["currency:'USD'", { join: 'and', clauses: [{ field: 'currency', negated: false, value: 'usd' }] }],
    ['-currency:eur', { join: 'and', clauses: [{ field: 'currency', negated: true, value: 'eur' }] }],
    ['amount:1000', { join: 'and', clauses: [{ field: 'amount', negated: false, compare: 'eq', value: 1000 }] }],
    ['amount=1000', { join: 'and', clauses: [{ field: 'amount', negated: false, compare: 'eq', value: 1000 }] }],
    ["amount>'999'", { join: 'and', clauses: [{ field: 'amount', negated: false, compare: 'gt', value: 999 }] }],
    ['amount<50', { join: 'and', clauses: [{ field: 'amount', negated: false, compare: 'lt', value: 50 }] }],
    ['amount>=1000', { join: 'and', clauses: [{ field: 'amount', negated: false, compare: 'gte', value: 1000 }] }],
    ['amount<=1000', { join: 'and', clauses: [{ field: 'amount', negated: false, compare: 'lte', value: 1000 }] }],
    ['-amount>=1000', { join: 'and', clauses: [{ field: 'amount', negated: true, compare: 'gte', value: 1000 }] }],
    ['created>1767225600', { join: 'and', clauses: [{ field: 'created', negated: false, compare: 'gt', value: 1767225600 }] }],
    ['created:1767225600', { join: 'and', clauses: [{ field: 'created', negated: false, compare: 'eq', value: 1767225600 }] }],
    ["metadata['order']:'42'", { join: 'and', clauses: [{ field: 'metadata', negated: false, key: 'order', match: 'equals', value: '42' }] }],
    ['metadata["order"]:"42"', { join: 'and', clauses: [{ field: 'metadata', negated: false, key: 'order', match: 'equals', value: '42' }] }],
    ["metadata['note']~'gift'", { join: 'and', clauses: [{ field: 'metadata', negated: false, key: 'note', match: 'contains', value: 'gift' }] }],
    ["metadata['order']:null", { join: 'and', clauses: [{ field: 'metadata', negated: false, key: 'order', match: 'absent' }] }],
    ["-metadata['order']:null", { join: 'and', clauses: [{ field: 'metadata', negated: true, key: 'order', match: 'absent' }] }],
    // Quoted, null is the text.
    ["metadata['order']:'null'", { join: 'and', clauses: [{ field: 'metadata', negated: false, key: 'order', match: 'equals', value: 'null' }] }],
    ['metadata[\'email\']:amy@example.com', { join: 'and', clauses: [{ field: 'metadata', negated: false, key: 'email', match: 'equals', value: 'amy@example.com' }] }],
  ];
  for (const [q, want] of cases) test(q, () => expect(parse(q)).toEqual(want));

  test('spaces and AND join with AND (AND is case-insensitive); OR with OR; extra spaces are ignored', () => {
    const two = [
      { field: 'status', negated: false, value: 'succeeded' },
      { field: 'amount', negated: false, compare: 'gt', value: 100 },
    ];
    expect(parse("status:'succeeded' amount>100")).toEqual({ join: 'and', clauses: two } as SearchQuery);
    expect(parse("  status:'succeeded'   AND  amount>100  ")).toEqual({ join: 'and', clauses: two } as SearchQuery);
    expect(parse("status:'succeeded' and amount>100")).toEqual({ join: 'and', clauses: two } as SearchQuery);
    expect(parse("status:'succeeded' OR amount>100")).toEqual({ join: 'or', clauses: two } as SearchQuery);
    expect(parse("status:'succeeded' or amount>100 Or currency:'usd'").join).toBe('or');
  });

  test('escapes: a backslash takes the next character as it is, in values and metadata keys', () => {
    expect(parse("metadata['name']:'O\\'Brien'").clauses[0]).toMatchObject({ value: "O'Brien" });
    expect(parse('metadata["say"]:"a \\"b\\" c"').clauses[0]).toMatchObject({ value: 'a "b" c' });
    expect(parse("metadata['path']:'C:\\\\dir'").clauses[0]).toMatchObject({ value: 'C:\\dir' });
    expect(parse('metadata["it\'s"]:\'x\'').clauses[0]).toMatchObject({ key: "it's" });
    expect(parse("metadata['a\\']b']:'x'").clauses[0]).toMatchObject({ key: "a']b" });
    // Spaces, AND and OR inside quotes are text.
    expect(parse("metadata['note']:'gift AND wrap OR not'")).toEqual({
      join: 'and',
      clauses: [{ field: 'metadata', negated: false, key: 'note', match: 'equals', value: 'gift AND wrap OR not' }],
    });
  });

  test(`up to ${MAX_CLAUSES} clauses`, () => {
    const q = Array.from({ length: MAX_CLAUSES }, (_, i) => `amount>${i}`).join(' AND ');
    expect(parse(q).clauses).toHaveLength(MAX_CLAUSES);
  });
});

describe('refusals say what is wrong, where, and show the text', () => {
  const cases: Array<[string, string]> = [
    ['', 'The search query is not valid at character 1 (the end of the query): the query is empty'],
    ['   ', 'the query is empty'],
    ["email:'a@b.c'", `at character 1 ("email:'a@b.c'"): email is not a field bpay searches: use status, amount, currency, created and metadata['key'].`],
    ["status:'succeeded' AND Status:'canceled'", 'at character 24 ("Status:\'canceled\'"): Status is not a field bpay searches'],
    ["status~'succ'", `at character 7 ("~'succ'"): status takes ':' (equals) only`],
    ["status:'paid'", `at character 8 ("'paid'"): status is one of requires_payment_method, `],
    ['status:null', 'at character 8 ("null"): status is never null.'],
    ['currency>usd', 'at character 9 (">usd"): currency takes \':\' (equals) only'],
    ["currency:'dollars'", 'currency is a three-letter code'],
    ['amount~100', "at character 7 (\"~100\"): amount is a number: use ':' or '=' (equals), '>', '<', '>=' or '<=', not '~'."],
    ['amount>ten', 'at character 8 ("ten"): amount is a whole number of cents'],
    ['amount>-5', 'at character 8 ("-5"): amount is a whole number of cents'],
    ['amount>10.5', 'amount is a whole number of cents'],
    ['created>yesterday', 'created is a Unix timestamp in seconds'],
    ['created>999999999999', 'created is a Unix timestamp in seconds'],
    ["metadata:'42'", 'at character 9 (":\'42\'"): metadata needs a key in brackets'],
    ['metadata[order]:42', 'at character 10 ("order]:42"): the metadata key must be quoted'],
    ["metadata['order':42", "at character 17 (\":42\"): expected ] after the metadata key."],
    ["metadata['']:'x'", 'a metadata key is 1 to 40 characters.'],
    [`metadata['${'k'.repeat(41)}']:'x'`, 'a metadata key is 1 to 40 characters.'],
    ["metadata['order']>5", "at character 18 (\">5\"): metadata values are text: use ':' (equals) or '~' (contains), not '>'."],
    ["metadata['note']~'gi'", `at character 18 ("'gi'"): '~' (contains) needs at least 3 characters.`],
    ["metadata['note']~null", "null goes with ':'"],
    [`metadata['note']:'${'v'.repeat(501)}'`, 'a metadata value is at most 500 characters.'],
    ["status['x']:'succeeded'", 'at character 7 ("[\'x\']:\'succeeded\'"): status takes no key in brackets; only metadata does.'],
    ["status'succeeded'", 'at character 7 ("\'succeeded\'"): expected an operator after status'],
    ['status: succeeded', 'at character 8 (a space): status: needs a value right after it'],
    ['status:', 'at character 8 (the end of the query): status: needs a value right after it'],
    ["metadata['note']:'gift", `at character 18 ("'gift"): this quoted value is never closed: end it with '`],
    ["metadata['note']:'gift\\'", 'this quoted value is never closed'],
    ['metadata[\'note\']:gift;drop', 'at character 18 ("gift;drop"): quote a value that holds anything but letters'],
    ["status:'succeeded'amount>5", 'at character 19 ("amount>5"): expected a space, AND or OR between two clauses.'],
    ["status:'succeeded' AND", 'at character 23 (the end of the query): expected a clause after AND.'],
    ["status:'succeeded' OR ", 'expected a clause after OR.'],
    ["AND status:'succeeded'", 'at character 1 ("AND"): AND is not a field bpay searches'],
    ["-'succeeded'", "at character 2 (\"'succeeded'\"): expected a field"],
    ['(status:canceled)', 'at character 1 ("(status:canceled)"): expected a field'],
  ];
  for (const [q, want] of cases) {
    test(JSON.stringify(q), () => {
      const r = refusal(q);
      expect(r.param).toBe('query');
      expect(r.message).toContain(want);
    });
  }

  test('AND and OR are never mixed, a space counting as AND (Stripe refuses the mix too)', () => {
    const mixed = 'AND and OR cannot be mixed in one query';
    expect(refusal("status:'succeeded' AND amount>5 OR currency:'usd'").message).toContain(`at character 33 ("OR"): ${mixed}`);
    expect(refusal("status:'succeeded' OR amount>5 AND currency:'usd'").message).toContain(`at character 32 ("AND"): ${mixed}`);
    expect(refusal("status:'succeeded' OR amount>5 currency:'usd'").message).toContain(`at character 32 ("currency:'usd'"): ${mixed}`);
    expect(refusal("status:'succeeded' amount>5 OR currency:'usd'").message).toContain(`at character 29 ("OR"): ${mixed}`);
  });

  test(`more than ${MAX_CLAUSES} clauses, or more than ${MAX_QUERY_LENGTH} characters`, () => {
    const eleven = Array.from({ length: MAX_CLAUSES + 1 }, (_, i) => `amount>${i}`).join(' ');
    expect(refusal(eleven).message).toContain(`at character ${eleven.lastIndexOf('amount') + 1} ("amount>10"): a query has at most ${MAX_CLAUSES} clauses.`);
    expect(refusal(`metadata['a']:'${'x'.repeat(MAX_QUERY_LENGTH)}'`).message).toContain(`at character ${MAX_QUERY_LENGTH + 1}`);
  });

  test('control characters in the shown text are escaped, and a long token is cut', () => {
    const r = refusal(`email\u0000${'x'.repeat(100)}:1`);
    expect(r.message).not.toContain('\u0000');
    expect(r.message).toContain('…');
  });
});

describe('values that look like SQL are data', () => {
  const dialect = new SQLiteAsyncDialect();
  const hostile = [
    "x' OR '1'='1",
    "'); DROP TABLE payment_intents; --",
    '" OR 1=1 --',
    '%_\\',
    'a\u0000b',
  ];
  for (const value of hostile) {
    test(JSON.stringify(value), () => {
      const quoted = `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
      for (const [q, key] of [
        [`metadata['order']:${quoted}`, 'order'],
        [`metadata['order']~${quoted}`, 'order'],
        [`metadata[${quoted}]:null`, value],
      ] as const) {
        const parsed = parseSearchQuery(q);
        const clause = parsed.clauses[0]!;
        expect(clause).toMatchObject({ field: 'metadata', key });
        if ('value' in clause) expect(clause.value).toBe(value);
        const { sql, params } = dialect.sqlToQuery(searchCondition(parsed));
        // The value and the key travel as parameters; the SQL text is the same whatever they hold.
        expect(params).toContain(key);
        if ('value' in clause) expect(params).toContain(value);
        expect(sql).not.toContain(value);
        expect(sql).not.toContain('DROP');
        expect(sql.match(/\?/g)?.length).toBe(params.length);
      }
    });
  }

  test('every clause form builds SQL whose values are all parameters', () => {
    const q = "status:'succeeded' currency:'usd' amount>=1000 -created<1767225600 metadata['k']:'v' metadata['n']~'abc' -metadata['z']:null";
    const { sql, params } = dialect.sqlToQuery(searchCondition(parseSearchQuery(q)));
    expect(params).toEqual(['succeeded', 'usd', 1000, 1767225600000, 'k', 'v', 'n', 'abc', 'z']);
    expect(sql).not.toMatch(/succeeded|usd|1000|1767225600|'v'|'abc'/);
  });
});
