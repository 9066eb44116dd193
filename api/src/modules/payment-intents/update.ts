import { and, eq, inArray, sql } from 'drizzle-orm';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import { schema, type DbOrTx, type PaymentIntentStatus, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid, notFound } from '../../errors';
import { shownText } from '../../lib/text';
import { MAX_AMOUNT, MAX_METADATA_KEYS, MIN_AMOUNT, toIntentObject } from './service';
import { checkDescriptor } from './parameters';
import { assertIntentCustomer, isEmailAddress } from '../customers/service';

type MerchantRow = typeof schema.merchants.$inferSelect;

/** An intent can be changed only before a payment has started on it, as Stripe's update. */
export const UPDATABLE_STATUSES = ['requires_payment_method', 'requires_confirmation'] as const satisfies readonly PaymentIntentStatus[];

export interface UpdateIntentInput {
  amount?: number;
  currency?: string;
  /** A string sets it; null or "" clears it. */
  description?: string | null;
  /**
   * Stripe's semantics: keys are merged into the intent's metadata, a key set to "" is removed, and metadata "" (or
   * null) removes every key.
   */
  metadata?: Record<string, string> | '' | null;
  capture_method?: 'automatic' | 'manual';
  /** One of the merchant's customers, not deleted. */
  customer?: string;
  /** An e-mail address; null or "" clears it. */
  receipt_email?: string | null;
  /** Stripe's rules (parameters.ts); "" clears it. The intent may not end with both. */
  statement_descriptor?: string;
  statement_descriptor_suffix?: string;
}

export function checkMetadataPatch(metadata: Record<string, unknown>): void {
  const keys = Object.keys(metadata);
  if (keys.length > MAX_METADATA_KEYS) throw invalid('metadata', `metadata can have at most ${MAX_METADATA_KEYS} keys.`);
  for (const k of keys) {
    // The key is the client's text: named in param escaped and cut (a 200 000-character key is not echoed whole).
    const param = `metadata[${shownText(k)}]`;
    if (k.length === 0 || k.length > 40) throw invalid(param, 'metadata keys must be 1 to 40 characters.');
    const v = metadata[k];
    if (typeof v !== 'string' || v.length > 500) {
      throw invalid(param, 'metadata values must be strings of at most 500 characters ("" removes the key).');
    }
  }
}

/** Why an intent in `status` cannot be updated, with its id and status in the error. */
export function cannotUpdate(id: string, status: PaymentIntentStatus): AppError {
  const why =
    status === 'succeeded'
      ? 'This PaymentIntent has already succeeded; it can no longer be updated.'
      : status === 'canceled'
        ? 'This PaymentIntent has been canceled; it can no longer be updated.'
        : `This PaymentIntent's status is ${status}; it can be updated only before a payment starts (status requires_payment_method or requires_confirmation).`;
  return new AppError('payment_intent_unexpected_state', why, undefined, undefined, { payment_intent: { id, status } });
}

/**
 * Updates amount, currency (usd only), description, metadata, capture_method, customer, receipt_email or the
 * statement descriptors (one or the other, never both) of an intent that no payment has
 * started on. One guarded UPDATE: the status condition makes it lose cleanly to a concurrent confirm (which moves the
 * intent to processing first), and the metadata merge is done by SQLite's json_patch in the same statement, so two
 * updates at once each keep the other's keys. No event: Stripe has no payment_intent.updated, and bpay emits none.
 * Fails with: validation_error, resource_not_found, payment_intent_unexpected_state.
 */
export async function updateIntent(tx: DbOrTx, deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string, input: UpdateIntentInput) {
  if (input.amount !== undefined && (!Number.isSafeInteger(input.amount) || input.amount < MIN_AMOUNT || input.amount > MAX_AMOUNT)) {
    throw invalid('amount', `amount must be an integer number of cents from ${MIN_AMOUNT} to ${MAX_AMOUNT}.`);
  }
  if (input.currency !== undefined && input.currency.toLowerCase() !== 'usd') throw invalid('currency', 'currency must be usd.');
  if (input.receipt_email && !isEmailAddress(input.receipt_email)) {
    throw invalid('receipt_email', `receipt_email must be an e-mail address (name@example.com); '${shownText(input.receipt_email)}' is not one.`);
  }
  if (input.statement_descriptor) checkDescriptor('statement_descriptor', input.statement_descriptor);
  if (input.statement_descriptor_suffix) checkDescriptor('statement_descriptor_suffix', input.statement_descriptor_suffix);
  // "" removes the customer, as it removes the other fields (README); any other value must be a customer of yours.
  if (input.customer) await assertIntentCustomer(tx, merchant, livemode, input.customer);
  const pi = schema.paymentIntents;
  const set: SQLiteUpdateSetSource<typeof pi> = { updatedAt: deps.clock.now() };
  if (input.customer !== undefined) set.customerId = input.customer || null;
  if (input.receipt_email !== undefined) set.receiptEmail = input.receipt_email || null;
  if (input.statement_descriptor !== undefined) set.statementDescriptor = input.statement_descriptor || null;
  if (input.statement_descriptor_suffix !== undefined) set.statementDescriptorSuffix = input.statement_descriptor_suffix || null;
  // The descriptors after the update, as SQL: one or the other, never both (checked in the UPDATE's own WHERE).
  const descriptorAfter = input.statement_descriptor === undefined ? sql`${pi.statementDescriptor}` : sql`${input.statement_descriptor || null}`;
  const suffixAfter = input.statement_descriptor_suffix === undefined ? sql`${pi.statementDescriptorSuffix}` : sql`${input.statement_descriptor_suffix || null}`;
  const touchesDescriptors = input.statement_descriptor !== undefined || input.statement_descriptor_suffix !== undefined;
  if (input.amount !== undefined) set.amount = input.amount;
  if (input.capture_method !== undefined) set.captureMethod = input.capture_method;
  if (input.description !== undefined) set.description = input.description === '' ? null : input.description;

  // The metadata after the update, as SQL: merged (a "" value becomes null, which json_patch removes) or cleared.
  let metadata = sql`${pi.metadata}`;
  if (input.metadata === '' || input.metadata === null) metadata = sql`'{}'`;
  else if (input.metadata !== undefined) {
    checkMetadataPatch(input.metadata);
    const patch = Object.fromEntries(Object.entries(input.metadata).map(([k, v]) => [k, v === '' ? null : v]));
    metadata = sql`json_patch(${pi.metadata}, ${JSON.stringify(patch)})`;
  }
  if (input.metadata !== undefined) set.metadata = metadata;

  const scope = and(eq(pi.id, id), eq(pi.merchantId, merchant.id), eq(pi.livemode, livemode));
  const [row] = await tx
    .update(pi)
    .set(set)
    .where(
      and(
        scope,
        inArray(pi.status, UPDATABLE_STATUSES),
        input.metadata === undefined ? undefined : sql`(select count(*) from json_each(${metadata})) <= ${MAX_METADATA_KEYS}`,
        touchesDescriptors ? sql`(${descriptorAfter} is null or ${suffixAfter} is null)` : undefined,
      ),
    )
    .returning();
  if (row) return toIntentObject(row);

  // Why nothing changed, from the row as it is now: gone, no longer updatable, or too many metadata keys. Metadata
  // is blamed only when it was sent and really would pass the limit.
  const now = await firstRow(tx, pi, scope);
  if (!now) throw notFound('payment_intent', id, 'intent');
  if (!(UPDATABLE_STATUSES as readonly PaymentIntentStatus[]).includes(now.status)) throw cannotUpdate(id, now.status);
  if (input.metadata !== undefined && input.metadata !== null && input.metadata !== '') {
    const merged: Record<string, string> = { ...now.metadata };
    for (const [k, v] of Object.entries(input.metadata)) {
      if (v === '') delete merged[k];
      else merged[k] = v;
    }
    const after = Object.keys(merged).length;
    if (after > MAX_METADATA_KEYS) {
      throw invalid('metadata', `metadata can have at most ${MAX_METADATA_KEYS} keys; this update would leave it with ${after}.`);
    }
  }
  const sdAfter = input.statement_descriptor === undefined ? now.statementDescriptor : input.statement_descriptor || null;
  const suffixNow = input.statement_descriptor_suffix === undefined ? now.statementDescriptorSuffix : input.statement_descriptor_suffix || null;
  if (sdAfter && suffixNow) {
    throw invalid(
      input.statement_descriptor_suffix !== undefined ? 'statement_descriptor_suffix' : 'statement_descriptor',
      'An intent has statement_descriptor (the whole descriptor) or statement_descriptor_suffix (shown after your prefix), not both: set the other to "" in the same update.',
    );
  }
  // Updatable again and not over the limit: the update lost to a payment that held the intent for a moment (a
  // checkout's claim, released when its collection failed). Nothing was changed; say so, with the status now.
  throw new AppError(
    'payment_intent_unexpected_state',
    `A payment was in progress on this PaymentIntent when the update ran, so nothing was changed. Its status is now ${now.status}: send the update again.`,
    undefined,
    undefined,
    { payment_intent: { id, status: now.status } },
  );
}
