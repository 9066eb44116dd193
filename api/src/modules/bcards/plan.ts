import { schema } from '@bpay/db';
import { applyBps, formatDecimal, parseDecimal, type Cents } from '@bpay/db/money';
import { AppError, invalid, notFound } from '../../errors';
import type { AppDeps } from '../../deps';
import { allocate, percentagesSumTo100, percentToBps } from '../../lib/split';
import { getOwnedSources } from '../funding-sources/service';
import { fixedAmountMessage } from './model';
import { currentTier } from '../subscription/service';
import { displayName } from '../users/service';
import type { CollectionPlan, PlannedShare } from './collect';

/*
 * A request to split a purchase, read and checked: amounts in dollars as cents, the splits, and the collection plan
 * (the fee from the user's plan, each source's share in cents) that collect.ts records and runs.
 */

type UserRow = typeof schema.users.$inferSelect;

/** The largest single purchase bpay splits: $1,000,000.00. */
export const MAX_AMOUNT_CENTS = 100_000_000;
/** The smallest bcard: $1.00 (the Create bcard dialog's amount field has min 1, spec §5). */
export const MIN_BCARD_CENTS = 100;

export const money = (c: number) => formatDecimal(c as Cents);

/**
 * An amount in dollars as cents, exactly: more than 2 decimals is an error, never rounded (12.345 is refused).
 * `minCents` is the smallest accepted (a bcard: $1.00); without it, anything above $0.
 */
export function parseAmount(value: string | number, param: string, minCents = 1): number {
  const cents = parseDecimal(value);
  if (cents === null) throw invalid(param, `${param} must be an amount in dollars with at most 2 decimals, such as 100.00.`);
  if (cents <= 0) throw invalid(param, `${param} must be greater than $0.`);
  if (cents < minCents) throw invalid(param, `${param} must be at least $${money(minCents)}.`);
  if (cents > MAX_AMOUNT_CENTS) throw invalid(param, `${param} must be at most $${money(MAX_AMOUNT_CENTS)}.`);
  return cents;
}

/**
 * A fixed share in dollars (the split configurator's fixed mode) as cents; null when not given. Exact: 52.905 is
 * refused naming the field, never rounded (a JSON number too: its shortest decimal form is read, not its binary value).
 */
export function parseFixedAmount(value: string | number | null | undefined, param: string): number | null {
  if (value === null || value === undefined) return null;
  const cents = parseDecimal(value);
  if (cents === null || cents < 0) throw invalid(param, fixedAmountMessage(param));
  return cents;
}

/**
 * A Create bcard body (POST /api/virtual-cards, and the extension's POST /api/extension/bcards) as the service takes
 * it: every entry with a percentage splits by percentage (an amount is then only informative); otherwise each entry's
 * amount is its fixed share, fee included (the split configurator's fixed mode).
 */
export function createBcardInput(body: {
  name: string;
  balance: string | number;
  fundingSources: Array<{ fundingSourceId: string; percentage?: number; amount?: string | number | null }>;
}): { name: string; amountCents: number; splits: SplitInput[] } {
  return {
    name: body.name,
    amountCents: parseAmount(body.balance, 'balance', MIN_BCARD_CENTS),
    splits: body.fundingSources.map((s, i) => {
      // Checked in both modes: an informative amount with a third decimal is as wrong as a fixed one.
      const fixedCents = parseFixedAmount(s.amount, `fundingSources.${i}.amount`);
      return { fundingSourceId: s.fundingSourceId, percentage: s.percentage ?? null, fixedCents: s.percentage === undefined ? fixedCents : null };
    }),
  };
}

export interface SplitInput {
  fundingSourceId: string;
  percentage?: number | null;
  /** A fixed share in cents (the payment demo's fixed mode), fee included. */
  fixedCents?: number | null;
}

export interface PlanInput {
  kind: 'bcard' | 'purchase';
  /** A bcard only this merchant may charge (the checkout widget's). */
  lockedMerchantId?: string | null;
  /** A bcard only a shop on this registrable domain may charge through the card network (the extension's). */
  lockedDomain?: string | null;
  /** The connected browser (extension token) asking for it. */
  extensionTokenId?: string | null;
  name: string;
  amountCents: number;
  splits: SplitInput[];
  merchant: string | null;
  description: string | null;
  idempotencyKey: string | null;
}

/**
 * Turns a request into shares in cents: the fee from the user's plan is added to the amount, and the total is
 * split by percentage (which must add up to 100 within 0.01) or by fixed amounts (which must add up to the total
 * within a cent), with largest-remainder rounding so the shares sum exactly to the total.
 * Fails with: validation_error, invalid_splits, resource_not_found (a source that is not the caller's).
 */
export async function planCollection(deps: AppDeps, user: UserRow, input: PlanInput) {
  const name = input.name.trim();
  if (!name) throw invalid('name', 'Please enter a name for your bcard.');
  if (input.splits.length === 0) throw new AppError('invalid_splits', 'Choose at least one funding source.', 'fundingSources');
  const ids = input.splits.map((s) => s.fundingSourceId);
  if (new Set(ids).size !== ids.length) throw invalid('fundingSources', 'Each funding source can appear only once in a split.');
  const sources = await getOwnedSources(deps.db, user.id, ids);
  for (const [i, id] of ids.entries()) {
    const source = sources.get(id);
    // Another user's source is simply "not found".
    if (!source) throw notFound('funding source');
    if (!source.isActive) throw invalid(`fundingSources.${i}.fundingSourceId`, `The funding source ${source.name} (•••• ${source.last4}) is paused.`);
    if (source.vendor !== deps.vendor.name) {
      throw invalid(`fundingSources.${i}.fundingSourceId`, `The funding source •••• ${source.last4} belongs to another payment processor; add it again.`);
    }
    if (source.type === 'bank_account' && source.bankVerificationStatus !== 'verified') {
      throw new AppError(
        'bank_account_not_verified',
        source.bankVerificationStatus === 'failed'
          ? `The bank account ${source.name} (•••• ${source.last4}) could not be verified and cannot fund bcards. Remove it and add it again.`
          : `The bank account ${source.name} (•••• ${source.last4}) is not verified yet: confirm the two micro-deposits sent to it first.`,
        `fundingSources.${i}.fundingSourceId`,
      );
    }
  }

  const tier = await currentTier(deps.db, user.id);
  const feeCents = applyBps(input.amountCents as Cents, tier.transactionFeeBps);
  const total = input.amountCents + feeCents;

  let weights: number[];
  let amounts: number[];
  // One entry with both would let one of them be silently ignored.
  const both = input.splits.findIndex((s) => typeof s.percentage === 'number' && typeof s.fixedCents === 'number');
  if (both >= 0) {
    throw new AppError('invalid_splits', 'Give each split either a percentage or a fixed amount, not both.', `splits.${both}`);
  }
  const byPercentage = input.splits.every((s) => typeof s.percentage === 'number');
  const byFixed = !byPercentage && input.splits.every((s) => typeof s.fixedCents === 'number');
  if (byPercentage) {
    const percentages = input.splits.map((s) => s.percentage as number);
    if (!percentagesSumTo100(percentages)) {
      throw new AppError('invalid_splits', 'Funding splits must add up to 100%', 'fundingSources');
    }
    weights = percentages.map((p, i) => {
      const bps = percentToBps(p);
      if (bps === null) throw invalid(`fundingSources.${i}.percentage`, 'percentage must be between 0 and 100.');
      return bps;
    });
    amounts = allocate(total, weights);
  } else if (byFixed) {
    amounts = input.splits.map((s) => s.fixedCents as number);
    const sum = amounts.reduce((a, b) => a + b, 0);
    if (Math.abs(sum - total) > 1) {
      throw new AppError(
        'invalid_splits',
        `Total fixed amounts ($${money(sum)}) must equal the total payment amount ($${money(total)}) including fees.`,
        'splits',
      );
    }
    // Within a cent: the largest share absorbs the difference so the shares sum exactly to the total.
    const largest = amounts.indexOf(Math.max(...amounts));
    amounts[largest]! += total - sum;
    weights = amounts.map((a) => Math.round((a * 10000) / total));
  } else {
    throw new AppError('invalid_splits', 'Give every split a percentage, or every split a fixed amount.', 'fundingSources');
  }

  const shares: PlannedShare[] = input.splits
    .map((s, i) => ({ source: sources.get(s.fundingSourceId)!, percentageBps: weights[i] ?? 0, amountCents: amounts[i] ?? 0 }))
    .filter((s) => s.amountCents > 0);
  if (shares.length === 0) throw new AppError('invalid_splits', 'Funding splits must add up to 100%', 'fundingSources');

  const plan: CollectionPlan = {
    kind: input.kind,
    name,
    cardholderName: displayName(user),
    merchant: input.merchant,
    description: input.description,
    amountCents: input.amountCents,
    feeCents,
    shares,
    idempotencyKey: input.idempotencyKey,
    lockedMerchantId: input.lockedMerchantId ?? null,
    lockedDomain: input.lockedDomain ?? null,
    extensionTokenId: input.extensionTokenId ?? null,
  };
  return { plan, tier };
}
