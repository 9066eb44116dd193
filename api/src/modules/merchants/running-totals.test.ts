import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { MIGRATIONS_FOLDER, migrateDb, openDb } from '@bpay/db';
import { sweepMoney } from '../../boot';
import { call, makeTestApp, merchantCall, type CallResult, type TestContext } from '../../../test-support/app';
import { bcardCard, merchantWorld, testBcardCard, type TestCardDetails, type TestMerchant } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { AUTHORIZATION_TTL_MS } from '../payment-intents/sweep';
import { resetRateWindows } from './usage';

/*
 * A merchant's total volume (GET /api/merchants, the admin's merchant list) is a running figure,
 * merchants.amount_received_total, moved in the transaction that moves an intent's amount_received, never a sum over
 * the merchant's intents. Whatever happens to the intents (automatic and manual capture, partial capture, declines,
 * cancels, the 7-day sweep, races between confirms and between captures and cancels), it equals that sum. Migration
 * 0009 fills it in from the intents already there.
 */

let ctx: TestContext;
let owner: { cookie: string; id: string };
let consumer: { cookie: string; id: string };
let sourceId: string;
let live: TestMerchant;
let sandbox: TestMerchant;

beforeAll(async () => {
  ctx = await makeTestApp();
  ({ owner, consumer, sourceId, live, sandbox } = await merchantWorld(ctx));
});
afterAll(() => ctx.close());
beforeEach(() => resetRateWindows());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const withCard = (card: TestCardDetails) => ({ payment_method_data: { type: 'card', card } });
const v1 = (m: TestMerchant, path: string, body: unknown = {}) => merchantCall(ctx, m.secretKey, path, { method: 'POST', body });
/** A card that pays `m`'s intents: a consumer's bcard for production, a sandbox test bcard for sandbox. */
const cardFor = async (m: TestMerchant, cents: number) =>
  (m === live ? await bcardCard(ctx, consumer.cookie, sourceId, (cents / 100).toFixed(2)) : await testBcardCard(ctx, m.secretKey, cents)).card;

async function intent(m: TestMerchant, amount: number, captureMethod: 'automatic' | 'manual' = 'automatic'): Promise<string> {
  const res = await v1(m, '/payment_intents', { amount, currency: 'usd', capture_method: captureMethod });
  expect(res.status).toBe(200);
  return res.body.id;
}

/** Runs the requests at once; the per-second window is cleared first (a burst stays under REQUESTS_PER_SECOND). */
async function burst(requests: Array<() => Promise<CallResult>>): Promise<CallResult[]> {
  resetRateWindows();
  try {
    return await Promise.all(requests.map((r) => r()));
  } finally {
    resetRateWindows();
  }
}

/** The running total, the sum it stands for, and what the owner's merchant list says, for each merchant. */
async function figures() {
  const rows = await q(
    `SELECT m.id AS id, m.amount_received_total AS total,
            (SELECT coalesce(sum(amount_received), 0) FROM payment_intents WHERE merchant_id = m.id) AS summed
       FROM merchants m ORDER BY m.id`,
  );
  const listed = await call(ctx, '/api/merchants', { cookie: owner.cookie });
  expect(listed.status).toBe(200);
  const volume = new Map((listed.body as Array<{ id: string; totalVolume: string }>).map((m) => [m.id, m.totalVolume]));
  return rows.map((r) => ({ id: String(r.id), total: Number(r.total), summed: Number(r.summed), listed: volume.get(String(r.id)) }));
}

async function expectTotalsMatch(): Promise<Array<{ id: string; total: number }>> {
  const all = await figures();
  for (const f of all) {
    expect({ id: f.id, total: f.total }).toEqual({ id: f.id, total: f.summed });
    if (f.listed !== undefined) expect(f.listed).toBe((f.summed / 100).toFixed(2));
  }
  return all;
}

const totalOf = async (m: TestMerchant) => (await expectTotalsMatch()).find((f) => f.id === m.id)!.total;

describe('merchants.amount_received_total', () => {
  // Every test ends with all its payments settled: the ledger's invariants hold too.
  afterEach(async () => expect(moneyViolations(await moneyReport(ctx))).toEqual([]));

  test('a new merchant starts at 0.00', async () => {
    expect(await totalOf(live)).toBe(0);
    expect(await totalOf(sandbox)).toBe(0);
  });

  test('automatic and manual captures (full and partial) add what was received; declines and cancels add nothing', async () => {
    for (const m of [live, sandbox]) {
      const before = await totalOf(m);
      // Automatic capture: the whole amount.
      const auto = await intent(m, 2500);
      expect((await v1(m, `/payment_intents/${auto}/confirm`, withCard(await cardFor(m, 2500)))).body.status).toBe('succeeded');
      // Manual, captured in full.
      const full = await intent(m, 1200, 'manual');
      expect((await v1(m, `/payment_intents/${full}/confirm`, withCard(await cardFor(m, 1200)))).body.status).toBe('requires_capture');
      expect(await totalOf(m)).toBe(before + 2500);
      expect((await v1(m, `/payment_intents/${full}/capture`)).body).toMatchObject({ status: 'succeeded', amount_received: 1200 });
      // Manual, captured in part: only the part counts.
      const part = await intent(m, 3000, 'manual');
      await v1(m, `/payment_intents/${part}/confirm`, withCard(await cardFor(m, 3000)));
      expect((await v1(m, `/payment_intents/${part}/capture`, { amount_to_capture: 1750 })).body).toMatchObject({ amount_received: 1750 });
      // A decline (the card holds less than the payment) and two cancels (before and after authorization).
      const declined = await intent(m, 5000);
      expect((await v1(m, `/payment_intents/${declined}/confirm`, withCard(await cardFor(m, 100)))).status).toBe(402);
      await v1(m, `/payment_intents/${await intent(m, 800)}/cancel`);
      const authorized = await intent(m, 900, 'manual');
      await v1(m, `/payment_intents/${authorized}/confirm`, withCard(await cardFor(m, 900)));
      expect((await v1(m, `/payment_intents/${authorized}/cancel`)).body.status).toBe('canceled');
      // A capture of a canceled intent is refused and moves nothing.
      expect((await v1(m, `/payment_intents/${authorized}/capture`)).status).toBe(400);
      expect(await totalOf(m)).toBe(before + 2500 + 1200 + 1750);
    }
  }, 60_000);

  test('the 7-day sweep cancels an uncaptured authorization without moving the total', async () => {
    const before = await totalOf(sandbox);
    const pi = await intent(sandbox, 4000, 'manual');
    await v1(sandbox, `/payment_intents/${pi}/confirm`, withCard(await cardFor(sandbox, 4000)));
    ctx.clock.advance(AUTHORIZATION_TTL_MS + 60_000);
    await sweepMoney(ctx.deps);
    expect((await q('SELECT status FROM payment_intents WHERE id = ?', [pi]))[0]).toMatchObject({ status: 'canceled' });
    expect(await totalOf(sandbox)).toBe(before);
  }, 30_000);

  test('20 confirms racing on one intent: received once, counted once', async () => {
    const before = await totalOf(live);
    const pi = await intent(live, 2500);
    const card = await cardFor(live, 2500);
    const results = await burst(Array.from({ length: 20 }, () => () => v1(live, `/payment_intents/${pi}/confirm`, withCard(card))));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await totalOf(live)).toBe(before + 2500);
  }, 30_000);

  test('20 intents confirmed at once, each with its own card, on both merchants: every one counted', async () => {
    const before = { live: await totalOf(live), sandbox: await totalOf(sandbox) };
    const jobs: Array<{ m: TestMerchant; pi: string; card: TestCardDetails; amount: number }> = [];
    for (let i = 0; i < 10; i++) {
      for (const m of [live, sandbox]) {
        const amount = 100 + 37 * i;
        jobs.push({ m, pi: await intent(m, amount), card: await cardFor(m, amount), amount });
      }
    }
    const results = await burst(jobs.map((j) => () => v1(j.m, `/payment_intents/${j.pi}/confirm`, withCard(j.card))));
    expect(results.map((r) => r.body.status)).toEqual(jobs.map(() => 'succeeded'));
    const added = (m: TestMerchant) => jobs.filter((j) => j.m === m).reduce((s, j) => s + j.amount, 0);
    expect(await totalOf(live)).toBe(before.live + added(live));
    expect(await totalOf(sandbox)).toBe(before.sandbox + added(sandbox));
  }, 60_000);

  test('captures racing cancels of authorized intents: exactly the captured amounts are counted', async () => {
    const before = await totalOf(sandbox);
    const intents: string[] = [];
    for (let i = 0; i < 5; i++) {
      const pi = await intent(sandbox, 1000 + i, 'manual');
      await v1(sandbox, `/payment_intents/${pi}/confirm`, withCard(await cardFor(sandbox, 1000 + i)));
      intents.push(pi);
    }
    await burst(intents.flatMap((pi) => [0, 1, 2].map((k) => () => v1(sandbox, `/payment_intents/${pi}/${k === 1 ? 'cancel' : 'capture'}`))));
    const captured = await q(
      `SELECT coalesce(sum(amount_received), 0) AS s, count(*) AS n FROM payment_intents
        WHERE status = 'succeeded' AND id IN (${intents.map(() => '?').join(',')})`,
      intents,
    );
    const ended = await q(`SELECT count(*) AS n FROM payment_intents WHERE status IN ('succeeded', 'canceled') AND id IN (${intents.map(() => '?').join(',')})`, intents);
    expect(Number(ended[0]!.n)).toBe(intents.length);
    expect(await totalOf(sandbox)).toBe(before + Number(captured[0]!.s));
  }, 60_000);
});

describe('migration 0009 on a database with data', () => {
  test('fills in the running totals from the intents, and each delivery its endpoint’s merchant and mode', async () => {
    // A database migrated up to 0008 only, as an existing install's would be.
    const dir = mkdtempSync(join(tmpdir(), 'bpay-migrate-'));
    const folder = join(dir, 'migrations');
    cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
    const journalPath = join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
    const upTo = journal.entries.findIndex((e) => e.tag.startsWith('0009_'));
    expect(upTo).toBeGreaterThan(0);
    writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, upTo) }));
    const handle = openDb({ url: `file:${join(dir, 'old.db')}` });
    try {
      await migrate(handle.db, { migrationsFolder: folder });
      const run = (sql: string, args: Array<string | number | null> = []) => handle.client.execute({ sql, args });
      const now = Date.now();
      await run(
        `INSERT INTO users (id, email, email_normalized, password_hash, created_at, updated_at) VALUES ('usr_1', 'a@example.com', 'a@example.com', 'x', ?, ?)`,
        [now, now],
      );
      for (const [id, env] of [['mer_a', 'production'], ['mer_b', 'sandbox'], ['mer_c', 'sandbox']] as const) {
        await run(
          `INSERT INTO merchants (id, user_id, business_name, business_email, platform_type, environment, publishable_key, secret_key_hash, secret_key_last4, created_at, updated_at)
           VALUES (?, 'usr_1', 'Shop', 'shop@example.com', 'custom', ?, ?, ?, 'abcd', ?, ?)`,
          [id, env, `pk_${id}`, `hash_${id}`, now, now],
        );
      }
      const intents: Array<[string, string, number, number, number]> = [
        ['pi_1', 'mer_a', 1, 2500, 2500],
        ['pi_2', 'mer_a', 1, 4000, 1750],
        ['pi_3', 'mer_a', 1, 900, 0],
        ['pi_4', 'mer_b', 0, 1200, 1200],
        ['pi_5', 'mer_b', 0, 600, 0],
      ];
      for (const [id, merchant, livemode, amount, received] of intents) {
        await run(
          `INSERT INTO payment_intents (id, merchant_id, livemode, amount, currency, status, capture_method, metadata, client_secret, amount_received, seq, created_at, updated_at)
           VALUES (?, ?, ?, ?, 'usd', ?, 'automatic', '{}', 'secret', ?, 1, ?, ?)`,
          [id, merchant, livemode, amount, received > 0 ? 'succeeded' : 'canceled', received, now, now],
        );
      }
      await run(
        `INSERT INTO webhook_endpoints (id, merchant_id, livemode, url, enabled_events, secret_sealed, status, created_at, updated_at)
         VALUES ('we_a', 'mer_a', 1, 'https://a.example/hook', '["*"]', 'sealed', 'enabled', ?, ?), ('we_b', 'mer_b', 0, 'https://b.example/hook', '["*"]', 'sealed', 'enabled', ?, ?)`,
        [now, now, now, now],
      );
      await run(
        `INSERT INTO events (id, merchant_id, livemode, type, data, seq, created_at)
         VALUES ('evt_a', 'mer_a', 1, 'payment_intent.succeeded', '{}', 1, ?), ('evt_b', 'mer_b', 0, 'payment_intent.succeeded', '{}', 1, ?)`,
        [now, now],
      );
      await run(
        `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, next_attempt_at, created_at)
         VALUES ('whd_a', 'evt_a', 'we_a', 'succeeded', ?, ?), ('whd_b', 'evt_b', 'we_b', 'pending', ?, ?)`,
        [now, now, now, now],
      );

      await migrateDb(handle.db);

      const totals = await run('SELECT id, amount_received_total AS t FROM merchants ORDER BY id');
      expect(totals.rows.map((r) => [r.id, Number(r.t)])).toEqual([
        ['mer_a', 4250],
        ['mer_b', 1200],
        ['mer_c', 0],
      ]);
      const deliveries = await run('SELECT id, merchant_id AS m, livemode AS l FROM webhook_deliveries ORDER BY id');
      expect(deliveries.rows.map((r) => [r.id, r.m, Number(r.l)])).toEqual([
        ['whd_a', 'mer_a', 1],
        ['whd_b', 'mer_b', 0],
      ]);
      // Nothing else was lost on the way (no table was rebuilt).
      expect(Number((await run('SELECT count(*) AS n FROM payment_intents')).rows[0]!.n)).toBe(intents.length);
      expect(Number((await run('SELECT count(*) AS n FROM events')).rows[0]!.n)).toBe(2);
    } finally {
      handle.close();
    }
  }, 30_000);
});
