import { ApiError } from './api';

/*
 * The extra facts some errors carry in `error.details`. The OpenAPI Error schema does not declare `details` (its
 * shape depends on the code), so this is the one place the web states it, by the server's own words
 * (api/src/modules/bcards/collect.ts: insufficient_funds on POST /api/virtual-cards, /api/process-payment and the
 * checkout's /pay). Read them through `insufficientDetailsOf`, never by casting an error's body in a component.
 */

/** The details an insufficient_funds error carries (spec §3). Amounts are decimal strings ("61.74"). */
export interface InsufficientDetails {
  totalRequired: string;
  totalAvailable: string;
  insufficientSources: { fundingSourceId?: string; name: string; requiredAmount: string; availableBalance: string | null }[];
}

/** An error's `details`, whatever they are (undefined when the failure was no API answer or carried none). */
export function errorDetailsOf(error: unknown): unknown {
  if (!(error instanceof ApiError)) return undefined;
  return (error.body as { error?: { details?: unknown } } | null)?.error?.details;
}

/** The shortfall an answer reported, as the server sends it with an insufficient_funds error. */
export function insufficientDetailsOf(error: unknown): InsufficientDetails | undefined {
  return errorDetailsOf(error) as InsufficientDetails | undefined;
}
