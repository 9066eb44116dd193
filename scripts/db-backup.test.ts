import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sweepMoney } from '../api/src/boot';
import { TestClock } from '../api/src/lib/clock';
import { kycForm } from '../api/test-support/modules/kyc';
import { LEASE_MS } from '../api/src/modules/bcards/saga';
import {
  call,
  interceptVendor,
  makeTestApp,
  TEST_SESSION_SECRET,
  type CallResult,
  type TestContext,
  type VendorMethod,
} from '../api/test-support/app';
import { addCard, CARDS_OK, makePremium, registerUser } from '../api/test-support/world';
import { moneyReport, moneyViolations } from '../api/test-support/money-invariants';

/*
 * `bun run db:backup` and `bun run db:restore` (scripts/db-backup.ts, scripts/db-restore.ts, db/backup.ts), run as
 * the operator would: subprocesses with the server's configuration in their environment. The backup is taken while
 * the app (in this process) keeps creating, spending and canceling bcards and storing KYC documents, with three
 * collections held mid-way (holding, capturing, refunding). The restored copy opens in a fresh app: it passes
 * integrity_check, its ledger sums to zero, every document it refers to has its file, and the money sweep settles the
 * three interrupted collections with nothing left held or unbalanced.
 */

const ROOT = resolve(import.meta.dir, '..');

async function run(script: 'db-backup' | 'db-restore', args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'scripts', `${script}.ts`), ...args], {
    cwd: ROOT,
    // Only what the script needs: nothing from ./data.
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A port nothing listens on (the restore refuses while something answers on the server's port). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A processor call held before it runs until released: a collection left mid-way, as at a crash. */
interface Stall {
  method: VendorMethod;
  /** Matching calls to let through first. */
  skip: number;
  fired: boolean;
  reached: Promise<void>;
  arrive: () => void;
  release: () => void;
  released: Promise<void>;
}

const stalls: Stall[] = [];
function stallNext(method: VendorMethod, skip = 0): Stall {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => (arrive = r));
  const released = new Promise<void>((r) => (release = r));
  const s: Stall = { method, skip, fired: false, reached, arrive, release, released };
  stalls.push(s);
  return s;
}

let ctx: TestContext;
let work: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'bpay-backup-'));
  ctx = await makeTestApp({
    wrapVendor: (v) =>
      interceptVendor(v, async (method, _args, go) => {
        const s = stalls.find((x) => !x.fired && x.method === method);
        if (s && s.skip-- <= 0) {
          s.fired = true;
          s.arrive();
          await s.released;
        }
        return go();
      }),
  });
});
afterAll(() => {
  for (const s of stalls) s.release();
  ctx.close();
  rmSync(work, { recursive: true, force: true });
});

const storageEnv = (c: TestContext) => ({ BPAY_DATABASE_URL: `file:${join(c.dir, 'test.db')}`, BPAY_UPLOADS_DIR: join(c.dir, 'uploads') });

async function consumer(c: TestContext, firstName: string) {
  const u = await registerUser(c, { firstName, lastName: 'Lovelace' });
  await makePremium(c, u.user.id);
  const name = `${firstName} Lovelace`;
  const a = await addCard(c, u.cookie, CARDS_OK[0], { name });
  const b = await addCard(c, u.cookie, CARDS_OK[1], { name });
  const create = (name: string) =>
    call(c, '/api/virtual-cards', {
      method: 'POST',
      cookie: u.cookie,
      body: { name, balance: '10.00', fundingSources: [{ fundingSourceId: a.id, percentage: 50 }, { fundingSourceId: b.id, percentage: 50 }] },
    });
  return { cookie: u.cookie, create };
}

function expectStatus(res: CallResult, status: number) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
}

describe('bun run db:backup while the app writes, then bun run db:restore into a fresh server', () => {
  test('the restored copy is intact, balanced, has its documents, and the sweep settles what was in flight', async () => {
    // Three collections stopped mid-way: refunding (a cancel waiting to deactivate its card), capturing (waiting to
    // issue the card), holding (its first share held, the second not yet).
    const grace = await consumer(ctx, 'Grace');
    const toCancel = await grace.create('To cancel');
    expectStatus(toCancel, 201);
    const refunding = stallNext('deactivateCard');
    const cancel = call(ctx, `/api/virtual-cards/${toCancel.body.id}/cancel`, { method: 'POST', cookie: grace.cookie });
    await refunding.reached;
    const capturing = stallNext('issueCard');
    const captured = grace.create('Capturing');
    await capturing.reached;
    const holding = stallNext('hold', 1);
    const held = grace.create('Holding');
    await holding.reached;

    // Writes that keep running until the backup has finished: bcards created, spent, canceled; KYC documents stored.
    let stop = false;
    let done = 0;
    const workers = await Promise.all(['Ada', 'Alan', 'Edsger'].map((n) => consumer(ctx, n)));
    const loops = workers.map(async (w, k) => {
      for (let i = 0; !stop; i++) {
        const card = await w.create(`W${k}-${i}`);
        expectStatus(card, 201);
        if (i % 3 === 0) expectStatus(await call(ctx, `/api/virtual-cards/${card.body.id}/cancel`, { method: 'POST', cookie: w.cookie }), 200);
        if (i % 3 === 1) {
          const body = { amount: '3.00', merchant: 'Acme', virtualCardId: card.body.id };
          expectStatus(await call(ctx, '/api/process-payment', { method: 'POST', cookie: w.cookie, body }), 200);
        }
        done++;
        // The app's database calls complete without yielding to the event loop: let the subprocess's exit be seen.
        await new Promise((r) => setImmediate(r));
      }
    });
    const submitKyc = async (cookie: string) =>
      expectStatus(await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: kycForm() }), 201);
    await submitKyc(grace.cookie);
    const kyc = (async () => {
      while (!stop) {
        // At most 5 verifications may wait per user.
        const u = await registerUser(ctx);
        for (let i = 0; i < 5 && !stop; i++) {
          await submitKyc(u.cookie);
          done++;
          await new Promise((r) => setImmediate(r));
        }
      }
    })();
    while (done < 10) await Bun.sleep(1);

    const file = join(work, 'bpay-backup.db');
    const before = done;
    const backup = await run('db-backup', [file], storageEnv(ctx));
    const during = done - before;
    stop = true;
    await Promise.all([...loops, kyc]);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain('integrity_check ok');
    // The app kept writing while the backup ran.
    expect(during).toBeGreaterThan(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}.uploads`).mode & 0o777).toBe(0o700);

    // The original finishes its three collections once the processor answers again.
    for (const s of stalls) s.release();
    expect((await cancel).status).toBe(200);
    expect((await captured).status).toBe(201);
    expect((await held).status).toBe(201);

    // Restore into a fresh place with the server's configuration, then open it as a new server would.
    const restoredDir = join(work, 'restored');
    const restoreEnv = {
      BPAY_DATABASE_URL: `file:${join(restoredDir, 'test.db')}`,
      BPAY_UPLOADS_DIR: join(restoredDir, 'uploads'),
      BPAY_SESSION_SECRET: TEST_SESSION_SECRET,
      PORT: String(await freePort()),
    };
    const restore = await run('db-restore', [file], restoreEnv);
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(statSync(join(restoredDir, 'test.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(restoredDir, 'uploads')).mode & 0o777).toBe(0o700);
    // Restarted after the leases of the interrupted collections ran out (bcards are still within their 30 minutes).
    const restored = await makeTestApp({ dir: restoredDir, clock: new TestClock(ctx.clock.now().getTime() + LEASE_MS + 1000) });
    try {
      const q = async (sql: string) => (await restored.handle.client.execute(sql)).rows;
      expect((await q('PRAGMA integrity_check'))[0]?.integrity_check).toBe('ok');
      const snapshot = await moneyReport(restored);
      expect(snapshot.ledgerTotal).toBe(0);
      expect(snapshot.badMovements).toEqual([]);
      const named = "SELECT name, status FROM collections WHERE name IN ('To cancel', 'Capturing', 'Holding') ORDER BY name";
      expect((await q(named)).map((r) => [r.name, r.status])).toEqual([
        ['Capturing', 'capturing'],
        ['Holding', 'holding'],
        ['To cancel', 'refunding'],
      ]);
      // The background writers may have had a collection or two of their own in flight at the snapshot too.
      const inFlight = snapshot.unsettledCollections;
      expect(inFlight).toBeGreaterThanOrEqual(3);
      expect(snapshot.bcards.length).toBeGreaterThan(3);

      // Every document the copy refers to has its file in the restored uploads.
      const docs = await q('SELECT storage_key AS k, sha256 FROM kyc_documents');
      expect(docs.length).toBeGreaterThan(0);
      for (const d of docs) {
        const bytes = await restored.deps.storage.get(String(d.k));
        expect(bytes === null ? null : new Bun.CryptoHasher('sha256').update(bytes).digest('hex')).toBe(String(d.sha256));
      }

      const swept = await sweepMoney(restored.deps);
      expect(swept.recovered).toBe(inFlight);
      const after = await moneyReport(restored);
      expect(moneyViolations(after)).toEqual([]);
      expect(after.unsettledCollections).toBe(0);
      expect(after.heldHolds).toBe(0);
      expect((await q(named)).map((r) => [r.name, r.status])).toEqual([
        ['Capturing', 'completed'],
        ['Holding', 'failed'],
        ['To cancel', 'refunded'],
      ]);

      // And once every bcard's session has ended, all of them are refunded with the books still balanced.
      restored.clock.advance(31 * 60_000);
      await sweepMoney(restored.deps);
      const end = await moneyReport(restored);
      expect(moneyViolations(end)).toEqual([]);
      expect(end.unsettledCollections).toBe(0);
      expect(end.bcards.filter((b) => b.status === 'active')).toEqual([]);
    } finally {
      restored.close();
    }
  }, 30_000);

  test('exit codes: 2 without a file, 3 rather than overwrite, 1 for a missing database; nothing is left behind', async () => {
    expect((await run('db-backup', [], storageEnv(ctx))).code).toBe(2);
    expect((await run('db-restore', ['a', 'b'], storageEnv(ctx))).code).toBe(2);

    const file = join(work, 'taken.db');
    writeFileSync(file, 'not a backup');
    const refused = await run('db-backup', [file], storageEnv(ctx));
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`${file} already exists`);
    expect(readFileSync(file, 'utf8')).toBe('not a backup');
    expect(existsSync(`${file}.uploads`)).toBe(false);

    mkdirSync(join(work, 'only-uploads.db.uploads'));
    expect((await run('db-backup', [join(work, 'only-uploads.db')], storageEnv(ctx))).code).toBe(3);
    expect(existsSync(join(work, 'only-uploads.db'))).toBe(false);

    const missing = await run('db-backup', [join(work, 'x.db')], { BPAY_DATABASE_URL: `file:${join(work, 'nope.db')}` });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('there is no database at');
    expect(existsSync(join(work, 'x.db'))).toBe(false);
    expect(existsSync(join(work, 'nope.db'))).toBe(false);
  }, 30_000);

  test('db:restore refuses over a live database, without the session secret, and a damaged backup', async () => {
    const file = join(work, 'for-restore.db');
    expect((await run('db-backup', [file], storageEnv(ctx))).code).toBe(0);
    const port = String(await freePort());

    // Over the running app's own database: refused, and the database is untouched.
    const size = statSync(join(ctx.dir, 'test.db')).size;
    const live = await run('db-restore', [file], { ...storageEnv(ctx), BPAY_SESSION_SECRET: TEST_SESSION_SECRET, PORT: port });
    expect(live.code).toBe(3);
    expect(live.stderr).toContain('move the current database aside');
    expect(statSync(join(ctx.dir, 'test.db')).size).toBe(size);

    // Something listening on the server's port: refused.
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const busyPort = String((busy.address() as { port: number }).port);
    const target = { BPAY_DATABASE_URL: `file:${join(work, 'fresh', 'bpay.db')}`, BPAY_UPLOADS_DIR: join(work, 'fresh', 'uploads') };
    const running = await run('db-restore', [file], { ...target, BPAY_SESSION_SECRET: TEST_SESSION_SECRET, PORT: busyPort });
    await new Promise<void>((r) => busy.close(() => r()));
    expect(running.code).toBe(3);
    expect(running.stderr).toContain(`port ${busyPort}`);

    // No session secret: the restored data could not be read, so nothing is restored (and no new secret is made).
    const secretFile = join(work, 'fresh', 'session-secret');
    const noSecret = await run('db-restore', [file], { ...target, BPAY_SESSION_SECRET_FILE: secretFile, PORT: port });
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toContain('BPAY_SESSION_SECRET');
    expect(existsSync(secretFile)).toBe(false);

    // A damaged backup: refused before anything is written.
    const damaged = join(work, 'damaged.db');
    const bytes = readFileSync(file);
    bytes.fill(0x41, 100, 8192);
    writeFileSync(damaged, bytes);
    mkdirSync(`${damaged}.uploads`);
    const bad = await run('db-restore', [damaged], { ...target, BPAY_SESSION_SECRET: TEST_SESSION_SECRET, PORT: port });
    expect(bad.code).toBe(1);
    expect(existsSync(join(work, 'fresh', 'bpay.db'))).toBe(false);
  }, 30_000);
});
