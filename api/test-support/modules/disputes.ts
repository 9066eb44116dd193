/*
 * Disputes in a test (issue 26): Stripe's dispute object as its charge.dispute.* events carry it (only the fields bpay
 * reads are filled with care), and the reads a dispute test makes: the dispute rows, what the consumer owes, the
 * ledger's total, the notices.
 */
import { call, type TestContext } from '../app';
import { stripeId } from './stripe-issuing';

export interface StripeDisputeInput {
  id?: string;
  paymentIntent: string | null;
  amount: number;
  status: string;
  reason?: string;
  charge?: string | Record<string, unknown>;
}

/** A Stripe dispute object (charge.dispute.*'s data.object). */
export function stripeDispute(d: StripeDisputeInput): Record<string, unknown> & { id: string } {
  return {
    id: d.id ?? stripeId('dp'),
    object: 'dispute',
    amount: d.amount,
    balance_transactions: [],
    charge: d.charge ?? stripeId('ch'),
    created: Math.floor(Date.now() / 1000),
    currency: 'usd',
    evidence: { customer_name: null, product_description: null },
    evidence_details: { due_by: Math.floor(Date.now() / 1000) + 7 * 86400, has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: d.paymentIntent,
    reason: d.reason ?? 'fraudulent',
    status: d.status,
  };
}

const rows = async (ctx: TestContext, sql: string, args: Array<string | number> = []) => (await ctx.handle.client.execute({ sql, args })).rows;

/** The sum of every posting: zero, always. */
export async function ledgerSum(ctx: TestContext): Promise<number> {
  return Number((await rows(ctx, 'SELECT coalesce(sum(amount_cents), 0) AS s FROM ledger_postings'))[0]!.s);
}

/** What the user owes (their receivable account, positive when owed). */
export async function owed(ctx: TestContext, userId: string): Promise<number> {
  return 0 - Number((await rows(ctx, "SELECT coalesce(sum(amount_cents), 0) AS s FROM ledger_postings WHERE account = ?", [`receivable:${userId}`]))[0]!.s);
}

export async function disputesOf(ctx: TestContext, shareId: string) {
  return (await rows(ctx, 'SELECT * FROM share_disputes WHERE share_id = ? ORDER BY opened_at, id', [shareId])).map((r) => ({
    id: String(r.id),
    status: String(r.status),
    vendorStatus: String(r.vendor_status),
    amount: Number(r.amount_cents),
    refundedBefore: Number(r.refunded_before_cents),
    reason: String(r.reason),
    closed: r.closed_at !== null,
  }));
}

/** The kinds of the user's notices, oldest first. */
export async function noticeKinds(ctx: TestContext, userId: string): Promise<string[]> {
  return (await rows(ctx, 'SELECT kind FROM notifications WHERE user_id = ? ORDER BY seq', [userId])).map((r) => String(r.kind));
}

/** How many movements of each dispute kind the ledger holds. */
export async function disputeMovements(ctx: TestContext): Promise<Record<string, number>> {
  const found = await rows(ctx, "SELECT kind, count(*) AS n FROM ledger_movements WHERE kind LIKE 'share.dispute%' GROUP BY kind");
  return Object.fromEntries(found.map((r) => [String(r.kind), Number(r.n)]));
}

/** POST /api/virtual-cards for `balance` on one source: 201 when the account may make bcards. */
export function tryNewBcard(ctx: TestContext, cookie: string, sourceId: string, balance = '10.00') {
  return call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie,
    body: { name: 'After', balance, fundingSources: [{ fundingSourceId: sourceId, percentage: 100 }] },
  });
}

/** Each share's stage as the consumer's transaction detail shows it. */
export async function shareStages(ctx: TestContext, cookie: string, transactionId: string): Promise<string[]> {
  const res = await call(ctx, `/api/transactions/${transactionId}`, { cookie });
  if (res.status !== 200) throw new Error(`transaction ${transactionId}: ${res.status} ${res.text}`);
  return (res.body.shares as Array<{ stage: string }>).map((s) => s.stage);
}
