import { allocateCents, clampPercentage, feeCents } from '../../components/split-configurator/split-rules';
import { parseCents } from '../../lib/money';

/*
 * The checkout's split arithmetic in integer cents, as the server computes it: the total is the amount plus the
 * plan's fee; each source pays total × percentage / 100 by the largest-remainder method, so shares add up exactly.
 */

export const DEFAULT_FEE_PERCENTAGE = 2.9;
const FULL_BPS = 10_000;
/** Percentages must total 100 within 0.01. */
const TOLERANCE_BPS = 1;

// One fee and one allocation rule for every split in the web app (the shared configurator's).
export { allocateCents, clampPercentage, feeCents } from '../../components/split-configurator/split-rules';

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
