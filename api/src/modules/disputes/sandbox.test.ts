// The simulator's disputes (issue 26 part 2): an admin opens a dispute of a captured share and closes it won or lost
// (POST /api/admin/sandbox/disputes, /:id/close), applied through the same service as Stripe's events.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { disputeMovements, disputesOf, ledgerSum, noticeKinds, owed, shareStages, tryNewBcard } from '../../../test-support/modules/disputes';
import { issuingWorld, newBcard, settled, type IssuingWorld, type TestBcard } from '../../../test-support/modules/stripe-issuing';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { addCard, CARD_DECLINES_CHARGES } from '../../../test-support/world';

let ctx: TestContext;
let token: string;

beforeAll(async () => {
  ctx = await makeTestApp();
  await makeAdmin(ctx);
  token = await adminToken(ctx);
});
afterAll(() => ctx.close());

const q = async (sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;
const open = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  adminCall(ctx, token, '/api/admin/sandbox/disputes', { method: 'POST', body, headers });
const close = (id: string, outcome: string) => adminCall(ctx, token, `/api/admin/sandbox/disputes/${id}/close`, { method: 'POST', body: { outcome } });
const noViolations = async () => expect(moneyViolations(await moneyReport(ctx))).toEqual([]);

async function world(): Promise<{ w: IssuingWorld; bcard: TestBcard; share: TestBcard['shares'][number] }> {
  const w = await issuingWorld(ctx);
  const bcard = await newBcard(ctx, w);
  return { w, bcard, share: bcard.shares[0]! };
}

describe('opened, then won', () => {
  let s: Awaited<ReturnType<typeof world>>;
  let disputeId: string;
  beforeAll(async () => {
    s = await world();
  });

  test('open: 201 with the dispute; owed, told, restricted, the share shows Disputed; ledger zero', async () => {
    const res = await open({ shareId: s.share.id, reason: 'fraudulent' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      shareId: s.share.id,
      transactionId: s.bcard.collectionId,
      userId: s.w.userId,
      vendor: 'simulated',
      amount: (s.share.amount / 100).toFixed(2),
      reason: 'fraudulent',
      status: 'open',
      vendorStatus: 'needs_response',
      refundedBefore: '0.00',
      closedAt: null,
    });
    expect(res.body.vendorDisputeId).toStartWith('sim_dp_');
    disputeId = res.body.id;
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
    expect(await ledgerSum(ctx)).toBe(0);
    await noViolations();
    expect((await noticeKinds(ctx, s.w.userId)).at(-1)).toBe('dispute_opened');
    const refused = await tryNewBcard(ctx, s.w.cookie, s.w.sources[1]);
    expect({ status: refused.status, code: refused.body?.error?.code }).toEqual({ status: 403, code: 'account_restricted' });
    expect(await shareStages(ctx, s.w.cookie, s.bcard.collectionId)).toEqual(['disputed', 'charged']);
    const [audit] = await q("SELECT action, target_id FROM audit_log WHERE action = 'dispute.sandbox_opened' AND target_id = ?", [s.share.id]);
    expect(audit).toBeDefined();
  });

  test('the dispute’s notice says what happened, in words', async () => {
    const list = await call(ctx, '/api/notifications', { cookie: s.w.cookie });
    const notice = (list.body.data ?? list.body.items ?? list.body).find((n: { kind: string }) => n.kind === 'dispute_opened');
    expect(notice.title).toContain('Dispute of $');
    expect(notice.body).toMatch(/New bcards are paused until then/);
  });

  test('close won: reversed, nothing owed, the restriction lifts; ledger zero', async () => {
    const res = await close(disputeId, 'won');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: disputeId, status: 'won', vendorStatus: 'won' });
    expect(res.body.closedAt).toBeString();
    expect(await owed(ctx, s.w.userId)).toBe(0);
    expect(await ledgerSum(ctx)).toBe(0);
    await noViolations();
    expect((await noticeKinds(ctx, s.w.userId)).at(-1)).toBe('dispute_won');
    expect(await shareStages(ctx, s.w.cookie, s.bcard.collectionId)).toEqual(['dispute_won', 'charged']);
    expect((await tryNewBcard(ctx, s.w.cookie, s.w.sources[1])).status).toBe(201);
  });

  test('a second close is refused (409 dispute_closed) and moves nothing', async () => {
    const before = await disputeMovements(ctx);
    for (const outcome of ['won', 'lost']) {
      const res = await close(disputeId, outcome);
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 409, code: 'dispute_closed' });
    }
    expect(await disputeMovements(ctx)).toEqual(before);
  });
});

describe('lost', () => {
  test('part of a share disputed and lost: it stays owed and the account restricted', async () => {
    const s = await world();
    const opened = await open({ shareId: s.share.id, reason: 'product_not_received', amount: '12.34' });
    expect(opened.body).toMatchObject({ amount: '12.34', status: 'open' });
    const res = await close(opened.body.id, 'lost');
    expect(res.body).toMatchObject({ status: 'lost', vendorStatus: 'lost' });
    expect(await owed(ctx, s.w.userId)).toBe(1234);
    expect(await ledgerSum(ctx)).toBe(0);
    await noViolations();
    expect((await noticeKinds(ctx, s.w.userId)).slice(-2)).toEqual(['dispute_opened', 'dispute_lost']);
    expect((await tryNewBcard(ctx, s.w.cookie, s.w.sources[1])).body?.error?.code).toBe('account_restricted');
    expect(await shareStages(ctx, s.w.cookie, s.bcard.collectionId)).toEqual(['dispute_lost', 'charged']);
    // The rest of the share can still be disputed; no more than that.
    const tooMuch = await open({ shareId: s.share.id, reason: 'duplicate', amount: ((s.share.amount - 1234 + 1) / 100).toFixed(2) });
    expect({ status: tooMuch.status, code: tooMuch.body?.error?.code, param: tooMuch.body?.error?.param }).toEqual({ status: 400, code: 'validation_error', param: 'amount' });
    const rest = await open({ shareId: s.share.id, reason: 'duplicate' });
    expect(rest.body).toMatchObject({ amount: ((s.share.amount - 1234) / 100).toFixed(2) });
    const none = await open({ shareId: s.share.id, reason: 'duplicate' });
    expect({ status: none.status, code: none.body?.error?.code }).toEqual({ status: 409, code: 'share_not_disputable' });
  });
});

describe('a dispute of a share already refunded', () => {
  test('an unused bcard canceled (every share refunded), then disputed: recorded with what was refunded, owed in full; won reverses it', async () => {
    const s = await world();
    const canceled = await call(ctx, `/api/virtual-cards/${s.bcard.id}/cancel`, { method: 'POST', cookie: s.w.cookie });
    expect(canceled.status).toBe(200);
    await settled(ctx, s.bcard);
    expect(String((await q('SELECT status FROM collection_shares WHERE id = ?', [s.share.id]))[0]!.status)).toBe('refunded');
    const res = await open({ shareId: s.share.id, reason: 'credit_not_processed' });
    expect(res.status).toBe(201);
    // The card got the refund and the chargeback: the chargeback's amount is owed (bpay is out of it).
    expect(res.body).toMatchObject({ amount: (s.share.amount / 100).toFixed(2), refundedBefore: (s.share.amount / 100).toFixed(2) });
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
    expect(await ledgerSum(ctx)).toBe(0);
    await noViolations();
    await close(res.body.id, 'won');
    expect(await owed(ctx, s.w.userId)).toBe(0);
    expect(await ledgerSum(ctx)).toBe(0);
    await noViolations();
  });
});

describe('refused', () => {
  test('a share that was never charged (declined, released): 409 share_not_disputable, nothing written', async () => {
    const w = await issuingWorld(ctx);
    const bad = await addCard(ctx, w.cookie, CARD_DECLINES_CHARGES);
    const made = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: w.cookie,
      body: { name: 'Fails', balance: '20.00', fundingSources: [{ fundingSourceId: w.sources[0], percentage: 50 }, { fundingSourceId: bad.id, percentage: 50 }] },
    });
    expect(made.status).toBe(402);
    const shares = await q(
      'SELECT cs.id AS id, cs.status AS status FROM collection_shares cs JOIN collections c ON c.id = cs.collection_id WHERE c.user_id = ? ORDER BY cs.position',
      [w.userId],
    );
    expect(shares.map((r) => String(r.status)).sort()).toEqual(['declined', 'voided']);
    for (const r of shares) {
      const res = await open({ shareId: String(r.id), reason: 'fraudulent' });
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 409, code: 'share_not_disputable' });
      expect(res.body.error.message).toMatch(/captured, or refunded since/);
    }
    expect(await owed(ctx, w.userId)).toBe(0);
    expect(await q('SELECT id FROM share_disputes WHERE user_id = ?', [w.userId])).toEqual([]);
  });

  test('a share charged through another processor: 409, its disputes come from that processor', async () => {
    const s = await world();
    await q("UPDATE collections SET vendor = 'stripe' WHERE id = ?", [s.bcard.collectionId]);
    const res = await open({ shareId: s.share.id, reason: 'fraudulent' });
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 409, code: 'share_not_disputable' });
    expect(res.body.error.message).toMatch(/not the simulated processor/);
    expect(await disputesOf(ctx, s.share.id)).toEqual([]);
    await q("UPDATE collections SET vendor = 'simulated' WHERE id = ?", [s.bcard.collectionId]);
  });

  const CASES: Array<{ name: string; body: Record<string, unknown>; status: number; code: string }> = [
    { name: 'no such share', body: { shareId: 'shr_missing', reason: 'fraudulent' }, status: 404, code: 'resource_not_found' },
    { name: 'no reason', body: { shareId: 'shr_missing' }, status: 400, code: 'validation_error' },
    { name: 'an unknown reason', body: { shareId: 'shr_missing', reason: 'because' }, status: 400, code: 'validation_error' },
    { name: 'a zero amount', body: { shareId: 'shr_missing', reason: 'fraudulent', amount: '0.00' }, status: 400, code: 'validation_error' },
    { name: 'a negative amount', body: { shareId: 'shr_missing', reason: 'fraudulent', amount: '-5.00' }, status: 400, code: 'validation_error' },
    { name: 'an amount with 3 decimals', body: { shareId: 'shr_missing', reason: 'fraudulent', amount: '1.005' }, status: 400, code: 'validation_error' },
  ];
  test.each(CASES)('$name: $status $code', async ({ body, status, code }) => {
    const res = await open(body);
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  });

  test('an amount above the share: 400 naming amount, nothing written', async () => {
    const s = await world();
    const res = await open({ shareId: s.share.id, reason: 'fraudulent', amount: ((s.share.amount + 1) / 100).toFixed(2) });
    expect({ status: res.status, code: res.body?.error?.code, param: res.body?.error?.param }).toEqual({ status: 400, code: 'validation_error', param: 'amount' });
    expect(await disputesOf(ctx, s.share.id)).toEqual([]);
  });

  test('closing a dispute that does not exist: 404; an outcome that is not won or lost: 400', async () => {
    expect((await close('dsp_missing', 'won')).status).toBe(404);
    expect((await close('dsp_missing', 'open')).body?.error?.code).toBe('validation_error');
  });

  test('without an admin token: 401 for both', async () => {
    const a = await adminCall(ctx, null, '/api/admin/sandbox/disputes', { method: 'POST', body: { shareId: 'x', reason: 'fraudulent' } });
    const b = await adminCall(ctx, null, '/api/admin/sandbox/disputes/dsp_x/close', { method: 'POST', body: { outcome: 'won' } });
    expect([a.status, b.status]).toEqual([401, 401]);
  });
});

describe('Idempotency-Key', () => {
  test('a retried open with the same key answers the first dispute; one dispute, one movement', async () => {
    const s = await world();
    const headers = { 'idempotency-key': `dispute-${s.share.id}` };
    const first = await open({ shareId: s.share.id, reason: 'fraudulent', amount: '5.00' }, headers);
    const again = await open({ shareId: s.share.id, reason: 'fraudulent', amount: '5.00' }, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(await disputesOf(ctx, s.share.id)).toHaveLength(1);
    expect(await owed(ctx, s.w.userId)).toBe(500);
  });
});

describe('a crash in the middle', () => {
  test('a failure in the transaction leaves no dispute, no movement, no audit row; the retry applies once', async () => {
    const s = await world();
    const before = { movements: Number((await q('SELECT count(*) AS n FROM ledger_movements'))[0]!.n), ledger: await ledgerSum(ctx) };
    await q("CREATE TRIGGER refuse_sim_dispute_notice BEFORE INSERT ON notifications WHEN NEW.kind = 'dispute_opened' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    try {
      expect((await open({ shareId: s.share.id, reason: 'fraudulent' })).status).toBe(500);
    } finally {
      await q('DROP TRIGGER refuse_sim_dispute_notice');
    }
    expect(await disputesOf(ctx, s.share.id)).toEqual([]);
    expect({ movements: Number((await q('SELECT count(*) AS n FROM ledger_movements'))[0]!.n), ledger: await ledgerSum(ctx) }).toEqual(before);
    expect(await q("SELECT id FROM audit_log WHERE action = 'dispute.sandbox_opened' AND target_id = ?", [s.share.id])).toEqual([]);
    expect((await open({ shareId: s.share.id, reason: 'fraudulent' })).status).toBe(201);
    expect(await disputesOf(ctx, s.share.id)).toHaveLength(1);
    expect(await owed(ctx, s.w.userId)).toBe(s.share.amount);
    expect(await ledgerSum(ctx)).toBe(0);
  });
});
