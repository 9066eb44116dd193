/*
 * The Create bcard funding step's arithmetic (spec §5), in integer cents (CONVENTIONS: money):
 * total = amount + fee; each source pays total × percentage / 100, allocated with the largest-remainder
 * method so the shares always add up to the total exactly.
 */

export const DEFAULT_FEE_PERCENTAGE = 2.9;
export const DEFAULT_BCARD_AMOUNT = '100';
/** Percentages are compared in basis points of a percent: 10000 = 100 %, 1 = 0.01 %. */
export const FULL_BPS = 10_000;
/** "Total must equal 100 within 0.01". */
export const SPLIT_TOLERANCE_BPS = 1;

import { centsToDecimal, parseCents as parseMoney } from '../../lib/money';

export { centsToDecimal, formatCents, formatMoney } from '../../lib/money';

/** "12.5" -> 1250; null for anything that is not a non-negative amount with at most two decimals. */
export function parseCents(amount: string | null | undefined): number | null {
  const cents = parseMoney(amount);
  return cents !== null && cents >= 0 ? cents : null;
}

/** The amount field as typed (a number input, so "100", "99.5", "1e2"...) in whole cents; null if not a number. */
export function parseAmountInput(input: string): number | null {
  if (!input.trim()) return null;
  const n = Number(input);
  if (!Number.isFinite(n)) return null;
  return Math.round(n * 100);
}

/** Percent inputs are clamped to 0–100; empty or unreadable input counts as 0. */
export function clampPercentage(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}

export function percentageToBps(percentage: number): number {
  return Math.round(clampPercentage(percentage) * 100);
}

/** The fee on an amount, rounded half away from zero to the cent, as the server computes it. */
export function feeCents(amountCents: number, feePercentage: number): number {
  const bps = Math.round(feePercentage * 100);
  return Math.floor((amountCents * bps + 5000) / 10000);
}

/**
 * Splits `totalCents` in proportion to `weights` (largest remainder): each share is the floor of its exact part,
 * and the cents left over go one each to the largest fractional parts (ties to the earlier source). The shares
 * always sum to `totalCents` exactly when any weight is positive; with no positive weight every share is 0.
 */
export function allocateCents(totalCents: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, w) => a + Math.max(0, w), 0);
  if (sum <= 0 || totalCents <= 0) return weights.map(() => 0);
  const parts = weights.map((w, i) => {
    const exact = totalCents * Math.max(0, w);
    return { i, floor: Math.floor(exact / sum), remainder: exact % sum };
  });
  let left = totalCents - parts.reduce((a, p) => a + p.floor, 0);
  const order = [...parts].sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  const shares = parts.map((p) => p.floor);
  for (const p of order) {
    if (left <= 0) break;
    shares[p.i] = (shares[p.i] ?? 0) + 1;
    left -= 1;
  }
  return shares;
}

export interface SplitSource {
  id: string;
  name: string;
  /** Available at the processor; null when it cannot tell (then it is not checked here). */
  balance: string | null;
  percentage: number;
}

export interface SplitShare {
  id: string;
  name: string;
  percentage: number;
  requiredCents: number;
  availableCents: number | null;
}

export interface SplitPlan {
  amountCents: number;
  feeCents: number;
  totalCents: number;
  /** Sum of the percentages, rounded to 0.01. */
  percentageTotal: number;
  /** The percentages add up to 100 within 0.01. */
  totalOk: boolean;
  shares: SplitShare[];
  /** Shares that need more than their source has. */
  insufficient: SplitShare[];
}

/** Fee, total, each source's share of the total, and which sources cannot cover theirs. */
export function planSplit(amountCents: number, feePercentage: number, sources: readonly SplitSource[]): SplitPlan {
  const fee = feeCents(amountCents, feePercentage);
  const totalCents = amountCents + fee;
  const bps = sources.map((s) => percentageToBps(s.percentage));
  const bpsTotal = bps.reduce((a, b) => a + b, 0);
  const amounts = allocateCents(totalCents, bps);
  const shares = sources.map((s, i) => ({
    id: s.id,
    name: s.name,
    percentage: (bps[i] ?? 0) / 100,
    requiredCents: amounts[i] ?? 0,
    availableCents: parseCents(s.balance),
  }));
  return {
    amountCents,
    feeCents: fee,
    totalCents,
    percentageTotal: bpsTotal / 100,
    totalOk: Math.abs(bpsTotal - FULL_BPS) <= SPLIT_TOLERANCE_BPS,
    shares,
    insufficient: shares.filter((s) => s.availableCents !== null && s.requiredCents > s.availableCents),
  };
}

/** The POST /api/virtual-cards funding list: the sources that pay something, with their decimal amounts. */
export function fundingSourcesBody(plan: SplitPlan) {
  return plan.shares
    .filter((s) => s.percentage > 0)
    .map((s) => ({ fundingSourceId: s.id, percentage: s.percentage, amount: centsToDecimal(s.requiredCents) }));
}
