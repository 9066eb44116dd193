import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createClient, type Client } from '@libsql/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHranaServer, type HranaServer } from '../test-support/hrana-server';
import { answering, post, premiumUser, startServer, stopServers, type Server } from '../test-support/server-process';
import { cardBody, CARDS_OK } from '../test-support/world';
import { SIM_STARTING_BALANCE_CENTS } from './vendors/simulated';

/*
 * Issue 30, past one machine: two bpay processes against ONE libSQL server (the Hrana 2 stand-in, in this process), as
 * docs/SCALING.md runs a cluster. Units of work as data (db/unit.ts) go to the server as one batch per group; the
 * saga's closure units still hold the lock statement by statement. Across both kinds and both processes: 200 bcards on
 * one balance give exactly the affordable number; one Idempotency-Key sent to both processes at once makes one intent;
 * and a process killed with requests in flight leaves nothing half-written, its keyed requests answered once on retry.
 */

let dir: string;
let standIn: HranaServer;
let started: Server[] = [];
let db: Client;

const bpay = (over: Record<string, string> = {}) => startServer(join(dir, 'local-unused.db'), { BPAY_DATABASE_URL: standIn.url, ...over });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-2proc-remote-'));
  standIn = startHranaServer({ path: join(dir, 'server.db') });
  started = [bpay(), bpay()];
  for (const [i, s] of started.entries()) await answering(s, `server ${i}`);
  db = createClient({ url: standIn.url });
}, 90_000);

afterAll(async () => {
  db?.close();
  await stopServers(started.map((s) => s.proc));
  standIn?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const one = async (sql: string, args: Array<string | number> = []) => Number(Object.values((await db.execute({ sql, args })).rows[0] ?? {})[0]);

async function merchantKey(base: string, email: string): Promise<string> {
  const cookie = await premiumUser(db, base, email);
  const m = await post(base, '/api/merchants', { businessName: 'Remote Shop', businessEmail: email, platformType: 'custom', environment: 'sandbox' }, { cookie });
  expect(m.status).toBe(201);
  return (await m.json()).secretApiKey as string;
}

const createIntent = (base: string, key: string, idem: string) =>
  fetch(`${base}/api/v1/payment_intents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': idem },
    body: JSON.stringify({ amount: 1234, currency: 'usd' }),
  });

test('200 bcards on one balance, half through each process, one server: exactly the affordable number', async () => {
  const [a, b] = started.map((s) => s.base) as [string, string];
  const cookie = await premiumUser(db, a, 'remote.two@example.com');
  const card = await post(b, '/api/funding-sources', cardBody('4242424242424242'), { cookie });
  expect(card.status).toBe(201);
  const source = (await card.json()).id as string;
  const statuses = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      post(i % 2 ? b : a, '/api/virtual-cards', { name: `Card ${i}`, balance: '100.00', fundingSources: [{ fundingSourceId: source, percentage: 100 }] }, {
        cookie,
        'idempotency-key': `remote-two-${i}`,
      }).then((r) => r.status),
    ),
  );
  const byStatus: Record<number, number> = {};
  for (const s of statuses) byStatus[s] = (byStatus[s] ?? 0) + 1;
  // $101.90 each (1.9 % fee): 98 fit in $10,000.00.
  expect(byStatus).toEqual({ 201: 98, 402: 102 });
  expect(await one("SELECT count(*) FROM sim_holds WHERE status = 'held'")).toBe(0);
  expect(await one("SELECT count(*) FROM sim_holds WHERE status = 'captured'")).toBe(98);
  expect(await one('SELECT available_cents FROM sim_cards WHERE token = (SELECT vendor_token FROM funding_sources WHERE id = ?)', [source])).toBe(1_000_000 - 98 * 10_190);
  expect(await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings')).toBe(0);
}, 120_000);

test('one Idempotency-Key sent 40 times to both processes at once: one intent, one event, every answer the same', async () => {
  const [a, b] = started.map((s) => s.base) as [string, string];
  const key = await merchantKey(a, 'remote.idem@example.com');
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => createIntent(i % 2 ? b : a, key, 'same-key').then(async (r) => ({ status: r.status, body: await r.json() }))));
  expect(new Set(answers.map((x) => x.status))).toEqual(new Set([200]));
  const ids = new Set(answers.map((x) => x.body.id));
  expect(ids.size).toBe(1);
  const [id] = [...ids] as [string];
  expect(await one('SELECT count(*) FROM payment_intents WHERE id = ?', [id])).toBe(1);
  expect(await one('SELECT count(*) FROM payment_intents WHERE merchant_id = (SELECT merchant_id FROM payment_intents WHERE id = ?)', [id])).toBe(1);
  expect(await one("SELECT count(*) FROM events WHERE type = 'payment_intent.created' AND json_extract(data, '$.id') = ?", [id])).toBe(1);
  // Distinct keys at once through both: every intent made, their seqs distinct.
  const many = await Promise.all(Array.from({ length: 60 }, (_, i) => createIntent(i % 2 ? b : a, key, `many-${i}`).then((r) => r.status)));
  expect(many).toEqual(Array(60).fill(200));
  expect(await one('SELECT count(DISTINCT seq) FROM payment_intents WHERE merchant_id = (SELECT merchant_id FROM payment_intents WHERE id = ?)', [id])).toBe(61);
}, 60_000);

test('a process killed with keyed requests in flight: nothing half-written; each retried key answers one intent', async () => {
  const [, b] = started.map((s) => s.base) as [string, string];
  const victim = bpay();
  await answering(victim, 'victim');
  const key = await merchantKey(b, 'remote.kill@example.com');
  // One call first: the victim leases its block of API calls (a write of its own) before the stall begins.
  expect((await createIntent(victim.base, key, 'kill-warm')).status).toBe(200);
  // The server runs the victim's commits and holds their answers: the kill lands after they committed, unheard.
  standIn.stallCommits = 'after';
  const inFlight = Array.from({ length: 60 }, (_, i) => createIntent(victim.base, key, `kill-${i}`).then((r) => r.status, () => 'lost'));
  for (let t = 0; standIn.stalled === 0; t++) {
    if (t > 500) throw new Error('no commit reached the server');
    await Bun.sleep(10);
  }
  await Bun.sleep(50);
  victim.proc.kill('SIGKILL');
  await victim.proc.exited;
  standIn.stallCommits = null;
  standIn.releaseStalled();
  const before = await Promise.all(inFlight);
  expect(before.every((s) => s === 'lost')).toBe(true);
  // Every intent that exists has its key's stored answer and its event, and the other way round: nothing half-written.
  const intents = (await one("SELECT count(*) FROM payment_intents WHERE merchant_id IN (SELECT id FROM merchants WHERE business_email = 'remote.kill@example.com')")) - 1;
  const records = await one("SELECT count(*) FROM idempotency_keys WHERE key LIKE 'kill-%' AND key <> 'kill-warm' AND status = 'done'");
  const events =
    (await one("SELECT count(*) FROM events WHERE type = 'payment_intent.created' AND merchant_id IN (SELECT id FROM merchants WHERE business_email = 'remote.kill@example.com')")) - 1;
  expect(records).toBe(intents);
  expect(events).toBe(intents);
  // Some committed with their answers lost (the case a retry must replay, not repeat).
  expect(intents).toBeGreaterThan(0);
  expect(intents).toBeLessThan(60);
  // Retried through the survivor: each key answers once, and the ones that ran are replayed, not made again.
  const retried = await Promise.all(Array.from({ length: 60 }, (_, i) => createIntent(b, key, `kill-${i}`).then(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed') }))));
  expect(retried.every((r) => r.status === 200)).toBe(true);
  expect(retried.filter((r) => r.replayed === 'true').length).toBe(intents);
  expect(await one("SELECT count(*) FROM payment_intents WHERE merchant_id IN (SELECT id FROM merchants WHERE business_email = 'remote.kill@example.com')")).toBe(61);
}, 90_000);

test('a process killed with bcards in flight: every collection stands at a unit boundary, the money adds up', async () => {
  const [, b] = started.map((s) => s.base) as [string, string];
  const victim = bpay();
  await answering(victim, 'victim');
  const cookie = await premiumUser(db, b, 'remote.kill.bcards@example.com');
  const sources: string[] = [];
  for (const number of CARDS_OK.slice(0, 3)) {
    const res = await post(b, '/api/funding-sources', cardBody(number), { cookie });
    expect(res.status).toBe(201);
    sources.push((await res.json()).id);
  }
  const send = (base: string, i: number) =>
    post(base, '/api/virtual-cards', { name: `Kill ${i}`, balance: '10.00', fundingSources: sources.map((id, k) => ({ fundingSourceId: id, percentage: k === 0 ? 34 : 33 })) }, {
      cookie,
      'idempotency-key': `kill-bcard-${i}`,
    });
  // Commits run and their answers held, one request at a time (the victim's writer sends the next only when it hears):
  // a few are let through, then the kill lands after the next one ran, with the saga's phases at different units.
  standIn.stallCommits = 'after';
  const inFlight = Array.from({ length: 30 }, (_, i) => send(victim.base, i).then((r) => r.status, () => 'lost'));
  const nextStall = async (): Promise<boolean> => {
    for (let t = 0; standIn.stalled === 0; t++) {
      if (t > 300) return false;
      await Bun.sleep(10);
    }
    return true;
  };
  expect(await nextStall()).toBe(true);
  for (let round = 0; round < 4; round++) {
    standIn.releaseStalled();
    if (!(await nextStall())) break;
  }
  victim.proc.kill('SIGKILL');
  await victim.proc.exited;
  standIn.stallCommits = null;
  standIn.releaseStalled();
  await Promise.all(inFlight);

  const userId = "(SELECT id FROM users WHERE email = 'remote.kill.bcards@example.com')";
  // Each unit took effect whole or not at all: a collection still holding has no hold and pending shares; one
  // capturing has every share held with its hold; one completed has its bcard, its captured holds and its movement.
  const rows = (await db.execute(`SELECT id, status FROM collections WHERE user_id = ${userId}`)).rows;
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    const id = String(r.id);
    const holds = await one("SELECT count(*) FROM sim_holds h JOIN collection_shares s ON h.idempotency_key = 'hold:' || s.id WHERE s.collection_id = ?", [id]);
    const held = await one("SELECT count(*) FROM collection_shares WHERE collection_id = ? AND status = 'held'", [id]);
    const captured = await one("SELECT count(*) FROM sim_holds h JOIN collection_shares s ON h.idempotency_key = 'hold:' || s.id WHERE s.collection_id = ? AND h.status = 'captured'", [id]);
    const bcards = await one('SELECT count(*) FROM bcards WHERE collection_id = ?', [id]);
    const moved = await one("SELECT count(*) FROM ledger_movements WHERE kind = 'collection.captured' AND reference_id = ?", [id]);
    const state = { status: String(r.status), holds, held, captured, bcards, moved };
    if (state.status === 'holding') expect(state).toEqual({ status: 'holding', holds: 0, held: 0, captured: 0, bcards: 0, moved: 0 });
    else if (state.status === 'capturing') expect(state).toEqual({ status: 'capturing', holds: 3, held: 3, captured: 0, bcards: 0, moved: 0 });
    else expect(state).toEqual({ status: 'completed', holds: 3, held: 0, captured: 3, bcards: 1, moved: 1 });
  }
  // What the cards lost is what is held or captured: nothing moved without its record.
  const spent = await one(`SELECT sum(${SIM_STARTING_BALANCE_CENTS} - available_cents) FROM sim_cards WHERE token IN (SELECT vendor_token FROM funding_sources WHERE user_id = ${userId})`);
  const recorded = await one(`SELECT coalesce(sum(h.amount_cents), 0) FROM sim_holds h JOIN collection_shares s ON h.idempotency_key = 'hold:' || s.id JOIN collections c ON c.id = s.collection_id WHERE c.user_id = ${userId}`);
  expect(spent).toBe(recorded);
  expect(await one('SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings')).toBe(0);
  // Retried through the survivor: a finished key is replayed, one whose first attempt died waits for its lock (409).
  const retried = await Promise.all(Array.from({ length: 30 }, (_, i) => send(b, i).then((r) => r.status)));
  expect(retried.every((s) => s === 201 || s === 409)).toBe(true);
}, 90_000);
