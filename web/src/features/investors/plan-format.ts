import type { MessageKey } from '../../i18n';
import { feeRatePercent, formatCents } from '../../lib/money';
import type { TierSummary } from './api';

/*
 * How the investor pages show a plan from `GET /api/subscription/tiers` (the same rules as the landing page's
 * pricing): the API gives dollars and a fee fraction; the page shows "$9.99" and "2.9%".
 */

/** 9.99 -> "$9.99"; null for a free plan (the page writes "Free" in its language). Goes through cents so 9.99 never prints as 9.989999. */
export function planPrice(monthlyPrice: number): string | null {
  const cents = Math.round(monthlyPrice * 100);
  return cents === 0 ? null : formatCents(cents);
}

/** 0.029 -> "2.9%", 0.0125 -> "1.25%". */
export function planFee(transactionFeeRate: number): string {
  return `${feeRatePercent(transactionFeeRate)}%`;
}

const TIER_NAMES: Record<string, MessageKey> = {
  free: 'investors.plans.tier.free',
  pro: 'investors.plans.tier.pro',
  premium: 'investors.plans.tier.premium',
};

/** The catalogue key of a known tier's name, or null for an admin-made tier (shown by its displayName). */
export function tierNameKey(tier: Pick<TierSummary, 'name'>): MessageKey | null {
  return TIER_NAMES[tier.name] ?? null;
}
