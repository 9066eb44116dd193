import { parseCents } from '../../lib/money';

/*
 * The checkout's split arithmetic in integer cents, as the server computes it: the total is the amount plus the
 * plan's fee; each source pays total × percentage / 100 by the largest-remainder method, so shares add up exactly.
 */

export const DEFAULT_FEE_PERCENTAGE = 2.9;
const FULL_BPS = 10_000;
/** Percentages must total 100 within 0.01. */
const TOLERANCE_BPS = 1;

export function feeCents(amountCents: number, feePercentage: number): number {
  const bps = Math.round(feePercentage * 100);
  return Math.floor((amountCents * bps + 5000) / 10000);
}

export function clampPercentage(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}

/** Splits `total` in proportion to `weights`; leftover cents go to the largest remainders (ties to the earlier). */
export function allocateCents(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, w) => a + Math.max(0, w), 0);
  if (sum <= 0 || total <= 0) return weights.map(() => 0);
  const parts = weights.map((w, i) => {
    const exact = total * Math.max(0, w);
    return { i, floor: Math.floor(exact / sum), remainder: exact % sum };
  });
  let left = total - parts.reduce((a, p) => a + p.floor, 0);
  const shares = parts.map((p) => p.floor);
  for (const p of [...parts].sort((a, b) => b.remainder - a.remainder || a.i - b.i)) {
    if (left <= 0) break;
    shares[p.i] = (shares[p.i] ?? 0) + 1;
    left -= 1;
  }
  return shares;
}

export interface ShareInput {
  id: string;
  name: string;
  balance: string | null;
  percentage: number;
}
export interface Share {
  id: string;
  name: string;
  percentage: number;
  requiredCents: number;
  availableCents: number | null;
}
export interface CheckoutPlan {
  amountCents: number;
  feeCents: number;
  totalCents: number;
  percentageTotal: number;
  totalOk: boolean;
  shares: Share[];
  insufficient: Share[];
}

export function planCheckout(amountCents: number, feePercentage: number, sources: readonly ShareInput[]): CheckoutPlan {
  const fee = feeCents(amountCents, feePercentage);
  const totalCents = amountCents + fee;
  const bps = sources.map((s) => Math.round(clampPercentage(s.percentage) * 100));
  const bpsTotal = bps.reduce((a, b) => a + b, 0);
  const amounts = allocateCents(totalCents, bps);
  const shares = sources.map((s, i) => {
    const available = parseCents(s.balance);
    return {
      id: s.id,
      name: s.name,
      percentage: (bps[i] ?? 0) / 100,
      requiredCents: amounts[i] ?? 0,
      availableCents: available !== null && available >= 0 ? available : null,
    };
  });
  return {
    amountCents,
    feeCents: fee,
    totalCents,
    percentageTotal: bpsTotal / 100,
    totalOk: Math.abs(bpsTotal - FULL_BPS) <= TOLERANCE_BPS,
    shares,
    insufficient: shares.filter((s) => s.availableCents !== null && s.requiredCents > s.availableCents),
  };
}

/** The pay body's splits: the sources that pay something. */
export function splitsBody(plan: CheckoutPlan): { fundingSourceId: string; percentage: number }[] {
  return plan.shares.filter((s) => s.percentage > 0).map((s) => ({ fundingSourceId: s.id, percentage: s.percentage }));
}
