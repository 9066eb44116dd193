import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, makeTestApp, memoryLogger, type TestContext } from '../test-support/app';
import { postCard, registerUser, setTier } from '../test-support/world';
import type { PaymentVendor } from './vendors/types';

/*
 * Card data never comes to rest: after every test card has been added (or refused), bcards created, revealed,
 * spent and canceled, and requests have failed with card numbers in their bodies, neither the database file, nor
 * its write-ahead log, nor any log line holds a card number (with or without spaces), a CVV that was sent, or an
 * issued bcard's full number or CVV. Only tokens, last 4 digits and HMACs are kept.
 *
 * The CVVs sent are distinctive ('917', '4821') and are looked for as whole numbers (not inside a longer run of
 * letters and digits, which random hex ids would otherwise match by chance).
 */

const CVV3 = '917';
const CVV4 = '4821';

/** Numbers that are added (or attempted) with a distinctive CVV. */
const ADDED = ['4242424242424242', '5555555555554444', '4000056655665556', '4000000000000341', '4000002760003184'];
const AMEX = '378282246310005';
const REFUSED = ['4000000000000002', '4000000000009995', '4000000000000069', '4000000000000127', '4000000000000119'];
/** Sent only in requests that fail before or inside the processor. */
const FAILING = ['4242424242424241' /* Luhn */, '4012888888881881' /* the processor crashes on it */, '5200828282828210' /* name mismatch */];
const ALL_NUMBERS = [...ADDED, AMEX, ...REFUSED, ...FAILING];

/** '4242424242424242' -> ['4242424242424242', '4242 4242 4242 4242', '4242-4242-4242-4242'] (amex: 4-6-5). */
function forms(number: string): string[] {
  const groups = number.length === 15 ? [number.slice(0, 4), number.slice(4, 10), number.slice(10)] : number.match(/.{1,4}/g)!;
  return [number, groups.join(' '), groups.join('-')];
}

const wholeNumber = (digits: string) => new RegExp(`(?<![0-9A-Za-z])${digits}(?![0-9A-Za-z])`);

interface Secrets {
  numbers: string[];
  cvvs: string[];
  /** Values the API shows openly (last 4s, years): a CVV equal to one of them cannot be looked for in bytes. */
  publicValues: Set<string>;
}

/** Adds every test card, makes bcards, reveals, spends and cancels them; returns what must not be found. */
async function exercise(ctx: TestContext): Promise<Secrets> {
  const u = await registerUser(ctx);
  await setTier(ctx, u.user.id, 'tier_premium');
  const publicValues = new Set(['100', '113', '203', '2026', '2027', '2030']);
  const sources: string[] = [];
  let k = 0;
  for (const number of ADDED) {
    const res = await postCard(ctx, u.cookie, number, { cvv: CVV3 }, { 'idempotency-key': `card-${++k}` });
    if (res.status === 202) {
      const done = await call(ctx, `/api/funding-sources/verifications/${res.body.verificationId}`, {
        method: 'POST',
        body: { code: '123456' },
        cookie: u.cookie,
      });
      expect(done.status).toBe(201);
      sources.push(done.body.id);
      publicValues.add(done.body.last4);
    } else {
      expect(res.status).toBe(201);
      sources.push(res.body.id);
      publicValues.add(res.body.last4);
    }
  }
  const amex = await postCard(ctx, u.cookie, AMEX, { cvv: CVV4 }, { 'idempotency-key': `card-${++k}` });
  expect(amex.status).toBe(201);
  sources.push(amex.body.id);
  for (const number of REFUSED) {
    expect((await postCard(ctx, u.cookie, number, { cvv: CVV3 }, { 'idempotency-key': `card-${++k}` })).status).toBe(402);
  }
  expect((await postCard(ctx, u.cookie, FAILING[0]!, { cvv: CVV3 })).status).toBe(400);
  expect((await postCard(ctx, u.cookie, FAILING[1]!, { cvv: CVV3 })).status).toBe(500);
  expect((await postCard(ctx, u.cookie, FAILING[2]!, { cvv: CVV3, name: 'Somebody Else' })).status).toBe(400);
  // A body that fails validation, and one that is not even JSON, each carrying a card number and CVV.
  expect((await postCard(ctx, u.cookie, ADDED[0]!, { cvv: CVV3, pin: '0000' })).status).toBe(400);
  expect((await postCard(ctx, u.cookie, ADDED[1]!, { cvv: CVV4 })).status).toBe(400);
  const broken = await call(ctx, '/api/funding-sources', {
    method: 'POST',
    rawBody: `{"cardNumber":"${ADDED[0]}","cvv":"${CVV3}",`,
    headers: { 'content-type': 'application/json' },
    cookie: u.cookie,
  });
  expect(broken.status).toBe(400);

  const numbers = ALL_NUMBERS.flatMap(forms);
  const cvvs = [CVV3, CVV4];
  const split = (ids: string[]) => ids.map((fundingSourceId, i) => ({ fundingSourceId, percentage: i === 0 ? 100 - 10 * (ids.length - 1) : 10 }));
  const usable = sources.filter((_, i) => ADDED[i] !== '4000000000000341');
  const bcards: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: u.cookie,
      headers: { 'idempotency-key': `bcard-${i}` },
      body: { name: `Card ${i}`, balance: `${12 + i}.34`, fundingSources: split(usable.slice(0, 1 + (i % 3))) },
    });
    expect(res.status).toBe(201);
    bcards.push(res.body.id);
    publicValues.add(res.body.last4);
    const details = await call(ctx, `/api/virtual-cards/${res.body.id}/checkout-details`, { cookie: u.cookie });
    expect(details.status).toBe(200);
    expect(details.body.cardNumber).toMatch(/^\d{16}$/);
    expect(details.text).toContain(details.body.cardNumber);
    numbers.push(...forms(details.body.cardNumber));
    cvvs.push(details.body.cvv);
  }
  expect((await call(ctx, `/api/virtual-cards/${bcards[0]}/cancel`, { method: 'POST', cookie: u.cookie })).status).toBe(200);
  const pay = await call(ctx, '/api/process-payment', {
    method: 'POST',
    cookie: u.cookie,
    body: { amount: '5.00', merchant: 'Shop', virtualCardId: bcards[1] },
  });
  expect(pay.status).toBe(200);
  // The issuer fails on the fifth card: the collection is refunded and the error logged.
  const doomed = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: u.cookie,
    body: { name: 'Doomed', balance: '4.00', fundingSources: split(usable.slice(0, 1)) },
  });
  expect(doomed.status).toBe(402);
  const purchase = await call(ctx, '/api/process-payment', {
    method: 'POST',
    cookie: u.cookie,
    headers: { 'idempotency-key': 'purchase-1' },
    body: { amount: '7.00', merchant: 'Shop', splits: split(usable.slice(0, 2)) },
  });
  expect(purchase.status).toBe(200);
  // A card the processor declines at charge time.
  const declined = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: u.cookie,
    body: { name: 'Declined', balance: '3.00', fundingSources: split([sources[ADDED.indexOf('4000000000000341')]!]) },
  });
  expect(declined.status).toBe(402);
  // Every list and export the user can read.
  for (const path of ['/api/funding-sources', '/api/virtual-cards', '/api/transactions', '/api/transactions/export.csv']) {
    const res = await call(ctx, path, { cookie: u.cookie });
    expect(res.status).toBe(200);
    for (const n of numbers) expect(res.text).not.toContain(n);
  }
  return { numbers, cvvs, publicValues };
}

function findIn(text: string, s: Secrets): string[] {
  const found: string[] = [];
  for (const n of s.numbers) if (text.includes(n)) found.push(n);
  for (const c of s.cvvs) {
    if (s.publicValues.has(c)) continue;
    // The CVVs typed in this test are distinctive and searched everywhere. A bcard's CVV is three random digits
    // that any log number (a count, a duration) may equal by chance: it is searched as a string value, or next to
    // a word that names it.
    const typed = c === CVV3 || c === CVV4;
    const leaked = typed
      ? wholeNumber(c).test(text)
      : text.includes(`"${c}"`) || new RegExp(`(cvv|cvc|security.?code)[^0-9]{0,20}${c}(?![0-9])`, 'i').test(text);
    if (leaked) found.push(`cvv ${c}`);
  }
  return found;
}

/** A crash in the processor on one number, and failures around balances and issuing, so that errors get logged. */
const faulty = (v: PaymentVendor): PaymentVendor => {
  let balanceCalls = 0;
  let issueCalls = 0;
  return {
    ...v,
    verifyCard: async (card, opts) => {
      if (card.number === '4012888888881881') throw new Error('processor crashed');
      return v.verifyCard(card, opts);
    },
    availableBalance: async (token) => {
      if (++balanceCalls === 3) throw new Error('balance service down');
      return v.availableBalance(token);
    },
    issueCard: async (input) => {
      if (++issueCalls === 5) throw new Error('issuer down');
      return v.issueCard(input);
    },
  };
};

describe('no card data at rest', () => {
  let ctx: TestContext;
  let secrets: Secrets;
  const log = memoryLogger();

  beforeAll(async () => {
    ctx = await makeTestApp({ log, wrapVendor: faulty });
    secrets = await exercise(ctx);
  });
  afterAll(() => {
    ctx.close();
  });

  test('the searches themselves work: they find a planted number and CVV', () => {
    expect(findIn(`x"${ADDED[0]}"y`, secrets)).toContain(ADDED[0]!);
    expect(findIn('{"cvv":"917"}', secrets)).toContain(`cvv ${CVV3}`);
    const bcardCvv = secrets.cvvs.find((c) => c !== CVV3 && c !== CVV4 && !secrets.publicValues.has(c))!;
    expect(findIn(`{"card":{"cvc":"${bcardCvv}"}}`, secrets)).toContain(`cvv ${bcardCvv}`);
    expect(findIn(`CVV=${bcardCvv}`, secrets)).toContain(`cvv ${bcardCvv}`);
    // …and a bcard CVV's digits as some other number in a log line are not a leak.
    expect(findIn(`{"durationMs":${bcardCvv}}`, { ...secrets, numbers: [] })).toEqual([]);
    expect(findIn('4242 4242 4242 4242', secrets)).toContain('4242 4242 4242 4242');
    // …and a CVV inside a hex id is not a CVV.
    expect(findIn('fs_ab917cd', { ...secrets, numbers: [] })).toEqual([]);
    expect(secrets.numbers.length).toBeGreaterThan(ALL_NUMBERS.length * 3);
    expect(secrets.cvvs).toHaveLength(6);
  });

  test('the database file and its write-ahead log hold no card number or CVV', async () => {
    const files = ['test.db', 'test.db-wal'].map((f) => join(ctx.dir, f)).filter((p) => existsSync(p));
    expect(files.length).toBeGreaterThan(0);
    let bytes = 0;
    for (const file of files) {
      const text = readFileSync(file).toString('latin1');
      bytes += text.length;
      expect({ file, found: findIn(text, secrets) }).toEqual({ file, found: [] });
    }
    // Something real was searched: the sources' last 4 are there.
    const all = files.map((f) => readFileSync(f).toString('latin1')).join('');
    expect(all).toContain('sim_pm_');
    expect(bytes).toBeGreaterThan(10_000);

    // And again once the log is folded into the database file.
    await ctx.handle.client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
    const main = readFileSync(join(ctx.dir, 'test.db')).toString('latin1');
    expect(main).toContain('sim_pm_');
    expect(findIn(main, secrets)).toEqual([]);
  });

  test('no column of any table holds a card number, or a CVV as its value', async () => {
    const tables = await ctx.handle.client.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    let cells = 0;
    for (const t of tables.rows) {
      const rows = await ctx.handle.client.execute(`SELECT * FROM "${String(t.name)}"`);
      for (const row of rows.rows) {
        for (const [column, value] of Object.entries(row)) {
          cells++;
          const v = String(value);
          for (const n of secrets.numbers) expect({ table: t.name, column, has: v.includes(n) }).toEqual({ table: t.name, column, has: false });
          if (typeof value === 'string') {
            for (const c of secrets.cvvs) {
              expect({ table: t.name, column, value: v === c || v.includes(`"${c}"`) }).toEqual({ table: t.name, column, value: false });
            }
          }
        }
      }
    }
    expect(cells).toBeGreaterThan(500);
  });

  test('no log line holds a card number or CVV, though errors were logged', () => {
    const text = JSON.stringify(log.lines, (_k, v: unknown) =>
      v instanceof Error ? { name: v.name, message: v.message, stack: v.stack, cause: String(v.cause) } : v,
    );
    const messages = log.lines.map((l) => l.msg);
    expect(messages).toContain('unhandled error');
    expect(messages).toContain('could not read a funding source balance');
    expect(messages).toContain('capture or card issuing failed; refunding the collection');
    expect(findIn(text, secrets)).toEqual([]);
  });
});
