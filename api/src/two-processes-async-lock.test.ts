import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createClient, type Client } from '@libsql/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answering, freePort, post, premiumUser, startServer, stopServers } from '../test-support/server-process';
import { cardBody } from '../test-support/world';

/*
 * api/src/two-processes.test.ts's money checks again, with both processes waiting for each other's write lock
 * asynchronously (BPAY_DB_ASYNC_LOCK_WAIT=1, issue 29 §5, db/client.ts asyncLockWait): busy_timeout 0, the batch's
 * BEGIN IMMEDIATE tried again after a pause on SQLITE_BUSY while the event loop runs. Both start together, then 200
 * bcards on one balance, half through each, give exactly the affordable number, and 50 confirms of one intent with one
 * bcard spend it once.
 */

let dir: string;
let servers: Bun.Subprocess[] = [];
const bases: string[] = [];
let db: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-2proc-async-'));
  const started = [0, 1].map(() => startServer(join(dir, 'bpay.db'), { BPAY_DB_ASYNC_LOCK_WAIT: '1' }));
  servers = started.map((s) => s.proc);
  bases.push(...started.map((s) => s.base));
  for (const [i, s] of started.entries()) await answering(s, `server ${i}`);
  db = createClient({ url: `file:${join(dir, 'bpay.db')}` });
  await db.execute('PRAGMA busy_timeout = 5000');
}, 60_000);

afterAll(async () => {
  db?.close();
  await stopServers(servers);
  rmSync(dir, { recursive: true, force: true });
});

const one = async (sql: string) => Number(Object.values((await db.execute(sql)).rows[0] ?? {})[0]);

test('both started on one database: one first admin, every migration applied once', async () => {
  expect(await one('SELECT count(*) FROM admins')).toBe(1);
  const applied = await one('SELECT count(*) FROM __drizzle_migrations');
  expect(applied).toBe(await one('SELECT count(DISTINCT hash) FROM __drizzle_migrations'));
});

test('200 bcards on one balance, half through each process: exactly the affordable number, no server error', async () => {
  const [a, b] = bases as [string, string];
  const cookie = await premiumUser(db, a, 'two.proc@example.com');
  const card = await post(b, '/api/funding-sources', cardBody('4242424242424242'), { cookie });
  expect(card.status).toBe(201);
  const source = (await card.json()).id as string;

  const statuses = await Promise.all(
    Array.from({ length: 200 }, (_, i) => {
      const base = i % 2 ? b : a;
      return post(base, '/api/virtual-cards', { name: `Card ${i}`, balance: '100.00', fundingSources: [{ fundingSourceId: source, percentage: 100 }] }, {
        cookie,
        'idempotency-key': `two-proc-${i}`,
      }).then((r) => r.status);
    }),
  );
  const byStatus: Record<number, number> = {};
  for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
  // $101.90 each (1.9 % fee): 98 fit in $10,000.00, a 99th does not.
  expect(byStatus).toEqual({ 201: 98, 402: 102 });
  expect(await one("SELECT count(*) FROM collections WHERE status = 'completed'")).toBe(98);
  expect(await one("SELECT count(*) FROM collections WHERE status = 'failed'")).toBe(102);
  // Every hold of a failed collection was voided; the completed ones' are captured.
  expect(await one("SELECT count(*) FROM sim_holds WHERE status = 'held'")).toBe(0);
  expect(await one("SELECT count(*) FROM sim_holds WHERE status = 'captured'")).toBe(98);
  expect(await one('SELECT available_cents FROM sim_cards')).toBe(1_000_000 - 98 * 10_190);
  expect(await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings')).toBe(0);
  expect(await one(`SELECT -coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = 'funding_source:${source}'`)).toBe(98 * 10_190);
}, 60_000);

test('50 confirms of one intent with one bcard, half through each process: one succeeds, the bcard is spent once', async () => {
  const [a, b] = bases as [string, string];
  const cookie = await premiumUser(db, a, 'two.proc.merchant@example.com');
  // Production: a consumer's bcard pays only production intents.
  const merchant = await post(a, '/api/merchants', { businessName: 'Two Shops', businessEmail: 'shop@example.com', platformType: 'custom', environment: 'production' }, { cookie });
  expect(merchant.status).toBe(201);
  const secretKey = (await merchant.json()).secretApiKey as string;
  const source = (await (await post(b, '/api/funding-sources', cardBody('5555555555554444'), { cookie })).json()).id as string;
  const bcardRes = await post(b, '/api/virtual-cards', { name: 'Checkout card', balance: '25.00', fundingSources: [{ fundingSourceId: source, percentage: 100 }] }, {
    cookie,
    'idempotency-key': 'two-proc-checkout-card',
  });
  expect(bcardRes.status).toBe(201);
  const bcardId = (await bcardRes.json()).id as string;
  const details = await (await fetch(`${a}/api/virtual-cards/${bcardId}/checkout-details`, { headers: { cookie } })).json();
  const card = { number: details.cardNumber, exp_month: details.expiryMonth, exp_year: details.expiryYear, cvc: details.cvv };
  const merchantApi = (base: string, path: string, body: unknown) =>
    fetch(`${base}/api/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` }, body: JSON.stringify(body) });
  const pi = await (await merchantApi(a, '/payment_intents', { amount: 2500, currency: 'usd' })).json();

  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      merchantApi(i % 2 ? b : a, `/payment_intents/${pi.id}/confirm`, { payment_method_data: { type: 'card', card } }).then(async (r) => {
        const body = await r.json();
        return r.status === 200 ? `200 ${body.status}` : `${r.status} ${body.error.code}`;
      }),
    ),
  );
  const tally: Record<string, number> = {};
  for (const x of answers) tally[x] = (tally[x] ?? 0) + 1;
  expect(tally).toEqual({ '200 succeeded': 1, '400 payment_intent_unexpected_state': 49 });
  expect(await one(`SELECT spent_cents FROM bcards WHERE id = '${bcardId}'`)).toBe(2500);
  expect(await one(`SELECT count(*) FROM ledger_movements WHERE kind = 'bcard.spent' AND reference_id = '${bcardId}'`)).toBe(1);
  expect(await one(`SELECT count(*) FROM events WHERE type = 'payment_intent.succeeded' AND json_extract(data, '$.id') = '${pi.id}'`)).toBe(1);
  expect(await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings')).toBe(0);
}, 60_000);

test('BPAY_REUSE_PORT=1: two processes listen on one port and one file, each serves, and one stopping leaves the other serving', async () => {
  const shared = mkdtempSync(join(tmpdir(), 'bpay-reuse-port-'));
  const port = freePort();
  // Not BPAY_DB_ASYNC_LOCK_WAIT: the server turns the asynchronous lock wait on itself when it shares its port.
  const pair = [0, 1].map(() => startServer(join(shared, 'bpay.db'), { BPAY_REUSE_PORT: '1', BPAY_DB_ASYNC_LOCK_WAIT: '0' }, port));
  try {
    for (const [i, s] of pair.entries()) await answering(s, `reuse-port server ${i}`);
    expect(pair.every((s) => s.proc.exitCode === null)).toBe(true);
    const base = pair[0]!.base;
    const reg = await post(base, '/api/auth/register', { email: 'reuse.port@example.com', password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' });
    expect(reg.status).toBe(201);
    const cookie = /^([^=;]+=[^;]+)/.exec(reg.headers.get('set-cookie') ?? '')![1]!;
    const statuses = await Promise.all(Array.from({ length: 40 }, () => fetch(`${base}/api/funding-sources`, { headers: { cookie } }).then((r) => r.status)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    // Only the second process is left: it answers on the shared port (without SO_REUSEPORT it could not have bound it).
    await stopServers([pair[0]!.proc]);
    expect((await fetch(`${base}/api/funding-sources`, { headers: { cookie } })).status).toBe(200);
  } finally {
    await stopServers(pair.map((s) => s.proc).filter((p) => p.exitCode === null));
    rmSync(shared, { recursive: true, force: true });
  }
}, 60_000);
