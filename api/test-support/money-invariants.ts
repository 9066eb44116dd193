/*
 * The money invariants a test checks after a scenario: what the ledger and the simulated processor say (moneyReport),
 * the rules every settled state keeps (moneyViolations), and one ledger account's balance.
 */
import type { TestContext } from './app';
import { spendingDrift } from './spending-reference';

const num = (v: unknown) => Number(v ?? 0);

/** What the ledger and the simulated processor say, to check the money invariants after a scenario. */
export interface MoneyReport {
  /** Sum of every posting: must be 0. */
  ledgerTotal: number;
  /** Movements whose postings do not sum to zero, or that have fewer than two postings: must be none. */
  badMovements: Array<{ movementId: string; sum: number; n: number }>;
  /** Every funding source: the processor's available balance and the ledger balance of its account. */
  sources: Array<{ id: string; available: number; ledger: number; inPendingCollection: boolean; sandboxStart?: number }>;
  /** Holds still placed at the processor: none once every collection has settled. */
  heldHolds: number;
  bcards: Array<{ id: string; status: string; limit: number; spent: number; ledger: number }>;
  /** Collections in holding, capturing or refunding. */
  unsettledCollections: number;
  movementsByKind: Record<string, number>;
  /** Where the spending figures kept as money moves differ from what history says (issue 31 §1): must be none. */
  spendingDrift: string[];
}

export async function moneyReport(ctx: TestContext): Promise<MoneyReport> {
  const q = async (sql: string) => (await ctx.handle.client.execute(sql)).rows;
  const [total] = await q('SELECT coalesce(sum(amount_cents), 0) AS s FROM ledger_postings');
  const bad = await q(
    `SELECT m.id AS id, coalesce(sum(p.amount_cents), 0) AS s, count(p.id) AS n
       FROM ledger_movements m LEFT JOIN ledger_postings p ON p.movement_id = m.id
      GROUP BY m.id HAVING s != 0 OR n < 2`,
  );
  const sources = await q(
    `SELECT f.id AS id, s.available_cents AS available,
            (SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = 'funding_source:' || f.id) AS ledger,
            EXISTS (SELECT 1 FROM collection_shares cs JOIN collections c ON c.id = cs.collection_id
                     WHERE cs.funding_source_id = f.id AND c.status IN ('holding', 'capturing', 'refunding')) AS pending,
            -- A split sandbox test bcard's test source (test-helpers/split.ts) starts with its share, or nothing.
            (SELECT CASE WHEN s.behavior = 'insufficient_funds' THEN 0 ELSE cs.amount_cents END
               FROM collection_shares cs JOIN collections c ON c.id = cs.collection_id
              WHERE cs.funding_source_id = f.id AND c.kind = 'sandbox') AS sandbox_start
       FROM funding_sources f
       JOIN (SELECT token, available_cents, behavior FROM sim_cards UNION ALL SELECT token, available_cents, NULL FROM sim_bank_accounts) s
         ON s.token = f.vendor_token`,
  );
  const [held] = await q("SELECT count(*) AS n FROM sim_holds WHERE status = 'held'");
  const bcards = await q(
    `SELECT b.id AS id, b.status AS status, b.limit_cents AS lim, b.spent_cents AS spent,
            (SELECT coalesce(sum(amount_cents), 0) FROM ledger_postings WHERE account = 'bcard:' || b.id) AS ledger
       FROM bcards b`,
  );
  const [unsettled] = await q("SELECT count(*) AS n FROM collections WHERE status IN ('holding', 'capturing', 'refunding')");
  const kinds = await q('SELECT kind, count(*) AS n FROM ledger_movements GROUP BY kind');
  return {
    ledgerTotal: num(total?.s),
    badMovements: bad.map((r) => ({ movementId: String(r.id), sum: num(r.s), n: num(r.n) })),
    sources: sources.map((r) => ({
      id: String(r.id),
      available: num(r.available),
      ledger: num(r.ledger),
      inPendingCollection: num(r.pending) === 1,
      // Only a split sandbox test bcard's test source has one (what it started with).
      ...(r.sandbox_start === null || r.sandbox_start === undefined ? {} : { sandboxStart: num(r.sandbox_start) }),
    })),
    heldHolds: num(held?.n),
    bcards: bcards.map((r) => ({ id: String(r.id), status: String(r.status), limit: num(r.lim), spent: num(r.spent), ledger: num(r.ledger) })),
    unsettledCollections: num(unsettled?.n),
    movementsByKind: Object.fromEntries(kinds.map((r) => [String(r.kind), num(r.n)])),
    spendingDrift: await spendingDrift(ctx.deps),
  };
}

/**
 * The invariants every settled state keeps, as a list of violations (empty when all hold): the ledger sums to
 * zero and so does every movement; money leaves or returns to a card only through the ledger (processor balance =
 * $10,000.00 + ledger balance, a split sandbox test source's share + ledger balance, for sources not in a collection
 * still under way); nothing stays held; a bcard's
 * account is never negative and is empty once the card is used, expired or canceled; the spending figures kept as
 * money moves are what history says.
 */
export function moneyViolations(r: MoneyReport, startingCents = 1_000_000): string[] {
  const out: string[] = [];
  if (r.ledgerTotal !== 0) out.push(`ledger total is ${r.ledgerTotal}`);
  for (const m of r.badMovements) out.push(`movement ${m.movementId} sums to ${m.sum} over ${m.n} postings`);
  for (const s of r.sources) {
    const start = s.sandboxStart ?? startingCents;
    if (!s.inPendingCollection && s.available !== start + s.ledger) {
      out.push(`source ${s.id}: processor has ${s.available}, ledger says ${start + s.ledger}`);
    }
  }
  if (r.unsettledCollections === 0 && r.heldHolds !== 0) out.push(`${r.heldHolds} holds left placed`);
  for (const b of r.bcards) {
    if (b.ledger < 0) out.push(`bcard ${b.id} account is ${b.ledger}`);
    const expected = b.status === 'active' ? b.limit - b.spent : 0;
    if (b.ledger !== expected) out.push(`bcard ${b.id} (${b.status}) account is ${b.ledger}, expected ${expected}`);
  }
  for (const d of r.spendingDrift) out.push(`spending figures: ${d}`);
  return out;
}

/** The balance of one ledger account (its postings summed), in cents. */
export async function ledgerBalance(ctx: TestContext, account: string): Promise<number> {
  const { rows } = await ctx.handle.client.execute({
    sql: 'SELECT coalesce(sum(amount_cents), 0) AS s FROM ledger_postings WHERE account = ?',
    args: [account],
  });
  return Number(rows[0]!.s);
}
