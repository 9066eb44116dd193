import { defineMessages, type MessageKey } from '../../i18n';
import * as investors from '../../i18n/messages/investors';

// The texts this module names travel with it (registered again by the investors area; registering is idempotent).
defineMessages(investors);

/*
 * Every figure the investor pages state (spec §2 "Investor pages"), in one place so /investors and /investors-ar
 * cannot drift apart. Figures are shown exactly as written here, left-to-right in both languages; only the labels
 * around them are translated. Money figures are kept as whole dollars and formatted by `usdCompact`, so the chart
 * and the total are computed from the same numbers that are displayed.
 */

const compactUsd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  maximumFractionDigits: 1,
});

/** 2_500_000 -> "$2.5M", 78_000_000_000 -> "$78B" (Western digits on both pages). */
export function usdCompact(dollars: number): string {
  return compactUsd.format(dollars);
}

export type ClaimId =
  | 'marketSize'
  | 'marketGrowth'
  | 'cardUsers'
  | 'merchants'
  | 'addressableMarket'
  | 'monthlyGrowth'
  | 'volume'
  | 'activeUsers'
  | 'retention'
  | 'patents'
  | 'status'
  | 'integrations'
  | 'feeRange';

export interface Claim {
  id: ClaimId;
  /** The figure, always shown left-to-right. `status` has a word instead, from the catalogue. */
  figure: string | { key: MessageKey };
  /** What the figure measures, in the page's language. */
  label: MessageKey;
}

/** Dollars; the addressable market is stated for this year. */
export const ADDRESSABLE_MARKET_YEAR = 2028;

export const CLAIMS = {
  marketSize: { id: 'marketSize', figure: usdCompact(78_000_000_000), label: 'investors.claim.marketSize' },
  marketGrowth: { id: 'marketGrowth', figure: '12.7%', label: 'investors.claim.marketGrowth' },
  cardUsers: { id: 'cardUsers', figure: '430M+', label: 'investors.claim.cardUsers' },
  merchants: { id: 'merchants', figure: '5M+', label: 'investors.claim.merchants' },
  addressableMarket: {
    id: 'addressableMarket',
    figure: usdCompact(2_800_000_000),
    label: 'investors.claim.addressableMarket',
  },
  monthlyGrowth: { id: 'monthlyGrowth', figure: '15%', label: 'investors.claim.monthlyGrowth' },
  volume: { id: 'volume', figure: usdCompact(2_500_000), label: 'investors.claim.volume' },
  activeUsers: { id: 'activeUsers', figure: '12k+', label: 'investors.claim.activeUsers' },
  retention: { id: 'retention', figure: '92%', label: 'investors.claim.retention' },
  patents: { id: 'patents', figure: '3', label: 'investors.claim.patents' },
  status: { id: 'status', figure: { key: 'investors.claim.status.value' }, label: 'investors.claim.status' },
  integrations: { id: 'integrations', figure: '500+', label: 'investors.claim.integrations' },
  feeRange: { id: 'feeRange', figure: '0.9%–2.9%', label: 'investors.claim.feeRange' },
} as const satisfies Record<ClaimId, Claim>;

/** The market section's figures, in display order. */
export const MARKET_CLAIMS: readonly Claim[] = [CLAIMS.marketSize, CLAIMS.marketGrowth, CLAIMS.cardUsers, CLAIMS.merchants];

/** The traction metrics, in display order. */
export const METRIC_CLAIMS: readonly Claim[] = [
  CLAIMS.monthlyGrowth,
  CLAIMS.volume,
  CLAIMS.activeUsers,
  CLAIMS.retention,
  CLAIMS.patents,
  CLAIMS.status,
];

export interface Projection {
  year: number;
  /** Whole dollars of projected revenue. */
  dollars: number;
}

/** Projected revenue by year, oldest first. */
export const PROJECTIONS: readonly Projection[] = [
  { year: 2025, dollars: 500_000 },
  { year: 2026, dollars: 2_500_000 },
  { year: 2027, dollars: 8_500_000 },
];

/** The stated total ($11.5M) is the sum of the years, not a separate number that could disagree with them. */
export const PROJECTION_TOTAL = PROJECTIONS.reduce((sum, p) => sum + p.dollars, 0);
