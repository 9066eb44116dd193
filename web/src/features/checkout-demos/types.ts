/*
 * The demos' own request shapes. What the server answers is typed in api.ts, from the generated OpenAPI types.
 */

/** The /pay body's splits: percentage mode or fixed amounts (decimal strings). */
export type PaySplit = { fundingSourceId: string; percentage: number } | { fundingSourceId: string; fixedAmount: string };

export interface PayBody {
  client_secret: string;
  /** The amount (cents) shown: the server refuses the payment if it changed since. */
  amount: number;
  splits: PaySplit[];
}

/** The details an insufficient_funds error carries (spec §3). */
export interface InsufficientDetails {
  totalRequired: string;
  totalAvailable: string;
  insufficientSources: { fundingSourceId?: string; name: string; requiredAmount: string; availableBalance: string | null }[];
}
