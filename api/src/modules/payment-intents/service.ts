import { and, asc, desc, eq, gt, lt, sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { schema, type DbOrTx, type PaymentIntentStatus, prepared, rowAsInserted } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid, notFound } from '../../errors';
import { newId } from '../../lib/ids';
import { emitEvent, type EventType } from '../events/emit';
import { createdCondition, type CreatedRange } from '../../lib/created-filter';
import { assertIntentCustomer } from '../customers/service';
import { checkCreateParameters, type IntentCreateParameters } from './parameters';
import { chargeIdOf } from '../charges/ids';
import { chargeOfIntent, type ChargeObject } from '../charges/service';

/*
 * A payment intent as a record: its state machine (the one table of transitions), its limits, the object the API
 * answers, and creating, reading, listing and counting intents. Paying one (claim, confirm with a bcard, capture,
 * cancel) is payment.ts; the sweeps that finish what a crash or the clock left are sweep.ts.
 */

type MerchantRow = typeof schema.merchants.$inferSelect;
type IntentRow = typeof schema.paymentIntents.$inferSelect;

/** The payment intent state machine, as Stripe's. */
export const INTENT_TRANSITIONS: Record<PaymentIntentStatus, readonly PaymentIntentStatus[]> = {
  requires_payment_method: ['requires_confirmation', 'processing', 'canceled'],
  requires_confirmation: ['processing', 'requires_payment_method', 'canceled'],
  requires_action: ['processing', 'requires_payment_method', 'canceled'],
  processing: ['succeeded', 'requires_capture', 'requires_payment_method'],
  requires_capture: ['processing', 'canceled'],
  succeeded: [],
  canceled: [],
};

export function assertIntentTransition(from: PaymentIntentStatus, to: PaymentIntentStatus): void {
  if (!INTENT_TRANSITIONS[from].includes(to)) {
    throw new AppError('payment_intent_unexpected_state', `This PaymentIntent's status is ${from}; it cannot become ${to}.`);
  }
}

/** Stripe's limits: 50 cents to $999,999.99; metadata up to 50 keys (40-char keys, 500-char values). */
export const MIN_AMOUNT = 50;
export const MAX_AMOUNT = 99_999_999;
export const MAX_METADATA_KEYS = 50;

export interface PaymentIntentObject {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_received: number;
  /** Refunded so far, pending refunds included (GET /api/v1/refunds?payment_intent=… lists them). */
  amount_refunded: number;
  currency: string;
  status: PaymentIntentStatus;
  capture_method: 'automatic' | 'manual';
  client_secret: string;
  created: number;
  description: string | null;
  metadata: Record<string, string>;
  livemode: boolean;
  payment_method: string | null;
  last_payment_error: Record<string, unknown> | null;
  canceled_at: number | null;
  cancellation_reason: string | null;
  /** The merchant's Customer (cus_…) the intent names. */
  customer: string | null;
  receipt_email: string | null;
  statement_descriptor: string | null;
  statement_descriptor_suffix: string | null;
  /** As given on create (null when not sent): bcards are the one method either way. */
  automatic_payment_methods: { enabled: boolean } | null;
  /** Always ['bcard']: bcards are bpay's one payment method (`card` is accepted on create as Stripe's name for it). */
  payment_method_types: string[];
  /**
   * The intent's Charge (ch_…, GET /api/v1/charges/{id}) once a bcard has paid or been authorized for it, else null;
   * the Charge itself when expanded (expand[]=latest_charge on retrieve, and payment_intent.succeeded's object).
   */
  latest_charge: string | ChargeObject | null;
}

export function toIntentObject(pi: IntentRow): PaymentIntentObject {
  return {
    id: pi.id,
    object: 'payment_intent',
    amount: pi.amount,
    amount_capturable: pi.amountCapturable,
    amount_received: pi.amountReceived,
    amount_refunded: pi.amountRefunded,
    currency: pi.currency,
    status: pi.status,
    capture_method: pi.captureMethod,
    client_secret: pi.clientSecret,
    created: Math.floor(pi.createdAt.getTime() / 1000),
    description: pi.description,
    metadata: pi.metadata,
    livemode: pi.livemode,
    payment_method: pi.bcardId,
    last_payment_error: pi.lastPaymentError ?? null,
    canceled_at: pi.canceledAt ? Math.floor(pi.canceledAt.getTime() / 1000) : null,
    cancellation_reason: pi.cancellationReason,
    customer: pi.customerId,
    receipt_email: pi.receiptEmail,
    statement_descriptor: pi.statementDescriptor,
    statement_descriptor_suffix: pi.statementDescriptorSuffix,
    automatic_payment_methods: pi.automaticPaymentMethods === null ? null : { enabled: pi.automaticPaymentMethods },
    payment_method_types: ['bcard'],
    latest_charge: pi.bcardId ? chargeIdOf(pi.id) : null,
  };
}

export interface CreateIntentInput extends IntentCreateParameters {
  amount: number;
  currency: string;
  description?: string | null;
  metadata?: Record<string, string>;
  capture_method?: 'automatic' | 'manual';
}

/**
 * A create's metadata (PaymentIntent, Refund), checked; a key whose value is "" is not kept (Stripe's rule: "" means
 * unset, which on create is no key at all; update already removes such a key, update.ts), as customers' create does.
 */
export function validateMetadata(metadata: Record<string, unknown> | undefined): Record<string, string> {
  if (!metadata) return {};
  const keys = Object.keys(metadata);
  if (keys.length > MAX_METADATA_KEYS) throw invalid('metadata', `metadata can have at most ${MAX_METADATA_KEYS} keys.`);
  for (const k of keys) {
    if (k.length === 0 || k.length > 40) throw invalid(`metadata[${k}]`, 'metadata keys must be 1 to 40 characters.');
    const v = metadata[k];
    if (typeof v !== 'string' || v.length > 500) throw invalid(`metadata[${k}]`, 'metadata values must be strings of at most 500 characters.');
  }
  return Object.fromEntries(Object.entries(metadata as Record<string, string>).filter(([, v]) => v !== ''));
}

/**
 * Emits an intent's event in the caller's transaction. payment_intent.succeeded carries its Charge expanded in
 * latest_charge (Stripe's libraries type it string | Charge), so a receiver sees the split without a call; it is read
 * in the same transaction, so it is the charge as the payment left it.
 */
export async function emitIntentEvent(tx: DbOrTx, deps: AppDeps, pi: IntentRow, type: EventType): Promise<void> {
  const object: PaymentIntentObject = toIntentObject(pi);
  if (type === 'payment_intent.succeeded') object.latest_charge = await chargeOfIntent(tx, pi);
  await emitEvent(tx, { merchantId: pi.merchantId, livemode: pi.livemode, type, object: { ...object }, at: deps.clock.now() });
}

/** Creates an intent in requires_payment_method and emits payment_intent.created. Fails with: validation_error. */
export async function createIntent(deps: AppDeps, merchant: MerchantRow, livemode: boolean, input: CreateIntentInput) {
  return deps.db.transaction((tx) => insertIntent(tx, deps, merchant, livemode, input));
}

/** A new intent, its seq the next of its merchant and mode (built once: db/prepared.ts). */
const insertIntentRow = prepared((db) => {
  // The next seq, read in the insert itself. With the mode, max(seq) is one step down payment_intents_merchant_idx,
  // not a walk over all the merchant's intents. The mode is bound raw here (no column encodes it): 0 or 1.
  const next = sql<number>`(select coalesce(max(${schema.paymentIntents.seq}), 0) + 1 from ${schema.paymentIntents}
    where ${schema.paymentIntents.merchantId} = ${sql.placeholder('merchantId')} and ${schema.paymentIntents.livemode} = ${sql.placeholder('livemode')})`;
  const p = sql.placeholder;
  return db
    .insert(schema.paymentIntents)
    .values({
      id: p('id'),
      merchantId: p('merchantId'),
      livemode: p('livemode'),
      amount: p('amount'),
      currency: 'usd',
      status: 'requires_payment_method',
      captureMethod: p('captureMethod'),
      description: p('description'),
      metadata: p('metadata'),
      customerId: p('customerId'),
      receiptEmail: p('receiptEmail'),
      statementDescriptor: p('statementDescriptor'),
      statementDescriptorSuffix: p('statementDescriptorSuffix'),
      automaticPaymentMethods: p('automaticPaymentMethods'),
      clientSecret: p('clientSecret'),
      seq: next,
      createdAt: p('createdAt'),
      updatedAt: p('updatedAt'),
    })
    .prepare();
});

/**
 * createIntent inside the caller's transaction (the route runs it in the same transaction as its Idempotency-Key's
 * record: one commit). `id` is given by a create that confirms (create.ts), so a retry finds the intent it made.
 * Fails with: validation_error (naming the parameter, customer included: it must be the merchant's and not deleted).
 */
export async function insertIntent(tx: DbOrTx, deps: AppDeps, merchant: MerchantRow, livemode: boolean, input: CreateIntentInput, id = newId('pi')) {
  const row = newIntentRow(deps, merchant, livemode, input, id);
  if (row.customerId !== null) await assertIntentCustomer(tx, merchant, livemode, row.customerId);
  return recordNewIntent(tx, deps, row);
}

/**
 * insertIntent as a unit of work as data (issue 30, db/unit.ts): the customer, if one is named, is checked before, on
 * the database, and `unit` (a unit's recording transaction) gets only writes. A customer deleted between the check and
 * the commit leaves what deleting it just after the create leaves: the intent keeps naming it, as Stripe's do.
 */
export async function recordIntentUnit(unit: DbOrTx, deps: AppDeps, merchant: MerchantRow, livemode: boolean, input: CreateIntentInput) {
  const row = newIntentRow(deps, merchant, livemode, input, newId('pi'));
  if (row.customerId !== null) await assertIntentCustomer(deps.db, merchant, livemode, row.customerId);
  return recordNewIntent(unit, deps, row);
}

/**
 * A new intent's row, as the insert stores it, from a checked create. Built here rather than read back, so the writes
 * need no answer from the database: seq (the database's, read in the insert) is the one column not known, and no
 * answer shows it. Fails with: validation_error.
 */
function newIntentRow(deps: AppDeps, merchant: MerchantRow, livemode: boolean, input: CreateIntentInput, id: string): IntentRow {
  if (!Number.isSafeInteger(input.amount) || input.amount < MIN_AMOUNT || input.amount > MAX_AMOUNT) {
    throw invalid('amount', `amount must be an integer number of cents from ${MIN_AMOUNT} to ${MAX_AMOUNT}.`);
  }
  if (input.currency.toLowerCase() !== 'usd') throw invalid('currency', 'currency must be usd.');
  const metadata = validateMetadata(input.metadata);
  checkCreateParameters(input);
  const now = deps.clock.now();
  return rowAsInserted(schema.paymentIntents, {
    id,
    merchantId: merchant.id,
    livemode,
    amount: input.amount,
    currency: 'usd',
    status: 'requires_payment_method',
    captureMethod: input.capture_method ?? 'automatic',
    // "" means unset, as update reads it: null, so a checkout's transaction is described in words ("Checkout at …").
    description: input.description || null,
    metadata,
    clientSecret: `${id}_secret_${randomBytes(18).toString('base64url')}`,
    // customer "" means none (Stripe's libraries send "" for a parameter left unset; Stripe's create takes it so).
    customerId: input.customer || null,
    receiptEmail: input.receipt_email || null,
    statementDescriptor: input.statement_descriptor || null,
    statementDescriptorSuffix: input.statement_descriptor_suffix || null,
    automaticPaymentMethods: input.automatic_payment_methods?.enabled ?? null,
    seq: 0,
    createdAt: now,
    updatedAt: now,
  });
}

/** The intent's insert and its payment_intent.created: writes only, nothing read (a unit of work may record them). */
async function recordNewIntent(tx: DbOrTx, deps: AppDeps, row: IntentRow) {
  await insertIntentRow(tx).run({ ...row, livemode: row.livemode ? 1 : 0 });
  await emitIntentEvent(tx, deps, row, 'payment_intent.created');
  return toIntentObject(row);
}

/** A merchant's intent by id in one mode, built once (db/prepared.ts); refunds read it too. */
export const intentOfMerchant = prepared((db) =>
  db
    .select()
    .from(schema.paymentIntents)
    .where(
      and(
        eq(schema.paymentIntents.id, sql.placeholder('id')),
        eq(schema.paymentIntents.merchantId, sql.placeholder('merchantId')),
        eq(schema.paymentIntents.livemode, sql.placeholder('livemode')),
      ),
    )
    .limit(1)
    .prepare(),
);

/** The merchant's intent in its own mode; anything else is "not found". Built once (db/prepared.ts). */
export async function getIntent(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<IntentRow> {
  const pi = await intentOfMerchant(deps.db).get({ id, merchantId: merchant.id, livemode });
  if (!pi) throw notFound('payment_intent', id, 'intent');
  return pi;
}

export interface ListInput {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  /** Only intents created in this range (lib/created-filter.ts). */
  created?: CreatedRange;
}

/** Newest first, Stripe's cursor pagination. Fails with: validation_error (a limit outside 1–100, a cursor that is not this merchant's). */
export async function listIntents(deps: AppDeps, merchant: MerchantRow, livemode: boolean, q: ListInput) {
  if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > 100) throw invalid('limit', 'limit must be an integer from 1 to 100.');
  if (q.starting_after && q.ending_before) throw invalid('ending_before', 'Give starting_after or ending_before, not both.');
  const scope = and(
    eq(schema.paymentIntents.merchantId, merchant.id),
    eq(schema.paymentIntents.livemode, livemode),
    createdCondition(schema.paymentIntents.createdAt, q.created ?? {}),
  );
  let rows: IntentRow[];
  if (q.ending_before) {
    const anchor = await getIntent(deps, merchant, livemode, q.ending_before).catch(() => {
      throw invalid('ending_before', 'ending_before is not one of your payment intents.');
    });
    rows = (
      await deps.db
        .select()
        .from(schema.paymentIntents)
        .where(and(scope, gt(schema.paymentIntents.seq, anchor.seq)))
        .orderBy(asc(schema.paymentIntents.seq))
        .limit(q.limit + 1)
    ).reverse();
    const hasMore = rows.length > q.limit;
    if (hasMore) rows = rows.slice(1);
    return { object: 'list' as const, url: '/api/v1/payment_intents', has_more: hasMore, data: rows.map(toIntentObject) };
  }
  let cond = scope;
  if (q.starting_after) {
    const anchor = await getIntent(deps, merchant, livemode, q.starting_after).catch(() => {
      throw invalid('starting_after', 'starting_after is not one of your payment intents.');
    });
    cond = and(scope, lt(schema.paymentIntents.seq, anchor.seq));
  }
  rows = await deps.db
    .select()
    .from(schema.paymentIntents)
    .where(cond)
    .orderBy(desc(schema.paymentIntents.seq))
    .limit(q.limit + 1);
  return {
    object: 'list' as const,
    url: '/api/v1/payment_intents',
    has_more: rows.length > q.limit,
    data: rows.slice(0, q.limit).map(toIntentObject),
  };
}

/**
 * How many payment intents the merchant has in this mode: one count over payment_intents_merchant_idx
 * (merchant_id, livemode, seq), never the table. It reads one index entry per intent, so it is asked for only when
 * wanted (the dashboard's card asks with include[]=total_count), not with every page.
 */
export async function countIntents(deps: AppDeps, merchant: MerchantRow, livemode: boolean): Promise<number> {
  const [row] = await deps.db
    .select({ n: sql<number>`count(*)` })
    .from(schema.paymentIntents)
    .where(and(eq(schema.paymentIntents.merchantId, merchant.id), eq(schema.paymentIntents.livemode, livemode)));
  return Number(row?.n ?? 0);
}
