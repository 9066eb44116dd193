import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { TransactionMode } from '@libsql/client';
import { call, forkTestApp, interceptVendor, makeTestApp, type TestContext } from '../../../test-support/app';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { addCard, CARDS_OK, makePremium, registerUser } from '../../../test-support/world';

/*
 * Issue 29, "Must not break": two bcards whose holds run in ONE group-commit batch (one SQLite transaction, each unit
 * in its own savepoint, db/client.ts) compete for the last dollars of one real funding source. The simulator holds a
 * share with a guarded `UPDATE sim_cards SET available_cents = available_cents - ? WHERE available_cents >= ?` inside
 * the phase's unit (vendor.within): the second unit of the batch sees the first's uncommitted debit, so exactly one
 * wins and the other is refused with the card's real shortfall; nothing of the loser stays held, recorded or posted.
 *
 * The two requests' write transactions are let through in pairs (pairTransactions): both records, then both hold
 * phases, the second of each pair queued on the write lock while the first runs, so it joins the first's batch. That
 * both holds ran in one batch is checked, not assumed: the writer's commit counter is read inside each hold (while
 * its unit is open); equal readings mean no COMMIT fell between the two units: the same SQLite transaction. A batch
 * also closes after MAX_BATCH_MS, which a very loaded machine could pass inside one unit, so a race that did not batch
 * is run again on a fresh copy (every attempt must still have exactly one winner).
 */

let template: TestContext;
let consumer: { cookie: string; id: string };

beforeAll(async () => {
  template = await makeTestApp();
  const u = await registerUser(template, { firstName: 'Ada', lastName: 'Lovelace' });
  consumer = { cookie: u.cookie, id: u.user.id };
  // Premium (no monthly cap to meet first) at a 2.9 % fee: a $6,000.00 bcard charges $6,174.00.
  await makePremium(template, consumer.id, 290);
});
afterAll(() => template.close());

const count = async (ctx: TestContext, sql: string, args: Array<string | number> = []) =>
  Number(Object.values((await ctx.handle.client.execute({ sql, args })).rows[0] ?? { n: 0 })[0]);

/**
 * Lets the next `pairs * 2` write transactions on the handle start two at a time: each waits for its partner, then the
 * first takes the write lock and the second queues behind it (the group-commit writer lets a queued unit join the open
 * batch when the one before it ends).
 */
function pairTransactions(ctx: TestContext, pairs: number): void {
  const client = ctx.handle.client;
  const original = client.transaction.bind(client);
  let waiting: (() => void) | null = null;
  let seen = 0;
  client.transaction = (async (mode?: TransactionMode) => {
    if (mode === 'read' || seen >= pairs * 2) return original(mode);
    seen++;
    if (waiting === null) {
      await new Promise<void>((resolve) => (waiting = resolve));
    } else {
      const partner = waiting;
      waiting = null;
      partner();
      // The partner's continuation runs first: it takes the lock, this one queues behind it.
      await Promise.resolve();
    }
    return original(mode);
  }) as typeof client.transaction;
}

interface Attempt {
  sameBatch: boolean;
}

async function race(): Promise<Attempt> {
  const commitsAtHold: number[] = [];
  let ctx!: TestContext;
  ctx = await forkTestApp(template, {
    wrapVendor: (v) =>
      interceptVendor(
        v,
        async (method, _args, run) => {
          if (method === 'hold') commitsAtHold.push(ctx.handle.stats.commits);
          return run();
        },
        // The simulator's calls stay inside each phase's unit, as in production with the simulator.
        { local: true },
      ),
  });
  try {
    // One card, $10,000.00 available: room for one $6,174.00 share, not two.
    const source = await addCard(ctx, consumer.cookie, CARDS_OK[0]);
    commitsAtHold.length = 0;
    // No Idempotency-Key: each request's write transactions are its holds and the winner's capture (its record is a
    // unit of work as data, which does not open one through the client: issue 30).
    pairTransactions(ctx, 1);
    const body = (name: string) => ({ name, balance: '6000.00', fundingSources: [{ fundingSourceId: source.id, percentage: 100 }] });
    const [a, b] = await Promise.all([
      call(ctx, '/api/virtual-cards', { method: 'POST', cookie: consumer.cookie, body: body('A') }),
      call(ctx, '/api/virtual-cards', { method: 'POST', cookie: consumer.cookie, body: body('B') }),
    ]);
    expect(commitsAtHold).toHaveLength(2);
    const sameBatch = commitsAtHold[0] === commitsAtHold[1];

    // Exactly one wins, whichever it is.
    const statuses = [a.status, b.status].sort();
    expect(statuses, `${a.text}\n${b.text}`).toEqual([201, 402]);
    const [won, lost] = a.status === 201 ? [a, b] : [b, a];
    expect(won.body).toMatchObject({ amount: '6000.00', fee: '174.00', totalCharged: '6174.00', status: 'active' });
    // The loser gets its precise error: the card's shortfall, as it stood after the winner's hold.
    expect(lost.body.error).toMatchObject({
      code: 'insufficient_funds',
      details: {
        totalRequired: '6174.00',
        totalAvailable: '3826.00',
        insufficientSources: [{ fundingSourceId: source.id, requiredAmount: '6174.00', availableBalance: '3826.00' }],
      },
    });

    // The source paid once; the ledger balances; nothing of the loser is left held, half-recorded or posted.
    expect(await count(ctx, 'SELECT s.available_cents FROM sim_cards s JOIN funding_sources f ON f.vendor_token = s.token WHERE f.id = ?', [source.id])).toBe(382_600);
    const report = await moneyReport(ctx);
    expect(moneyViolations(report)).toEqual([]);
    expect(report.ledgerTotal).toBe(0);
    expect(report.heldHolds).toBe(0);
    expect(report.unsettledCollections).toBe(0);
    expect(report.sources).toEqual([{ id: source.id, available: 382_600, ledger: -617_400, inPendingCollection: false }]);
    expect(await count(ctx, "SELECT count(*) FROM collections WHERE status = 'completed'")).toBe(1);
    expect(await count(ctx, "SELECT count(*) FROM collections WHERE status = 'failed' AND failure_code = 'insufficient_funds'")).toBe(1);
    expect(await count(ctx, 'SELECT count(*) FROM bcards')).toBe(1);
    expect(await count(ctx, 'SELECT count(*) FROM sim_issued_cards')).toBe(1);
    expect(await count(ctx, 'SELECT count(*) FROM ledger_movements')).toBe(1);
    expect(await count(ctx, "SELECT count(*) FROM notifications WHERE kind = 'bcard_issued'")).toBe(1);
    // The loser's share: declined, never held at the processor.
    expect(await count(ctx, "SELECT count(*) FROM collection_shares WHERE status = 'declined'")).toBe(1);
    expect(await count(ctx, "SELECT count(*) FROM sim_holds WHERE status = 'held'")).toBe(0);
    return { sameBatch };
  } finally {
    ctx.close();
  }
}

test('two bcards whose holds share one group-commit batch, on the last dollars of one card: exactly one wins', async () => {
  const attempts: Attempt[] = [];
  for (let i = 0; i < 5 && !attempts.some((a) => a.sameBatch); i++) attempts.push(await race());
  console.log("attempts (same batch?):", attempts.map((a) => a.sameBatch));
  // At least one attempt really put both holds in one batch (almost always the first).
  expect(attempts.some((a) => a.sameBatch)).toBe(true);
}, 60_000);
