import Stripe from 'stripe';
import { and, eq, sql } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import { AppError } from '../../errors';
import type { AppDeps } from '../../deps';
import { systemNow } from '../../lib/clock';
import { newId } from '../../lib/ids';
import { registrableDomain } from '../../lib/registrable-domain';
import { escapeUnsafe } from '../../lib/text';
import { noticeBcardDeclined } from '../bcards/notices';
import { disputeShapeProblem, receiveStripeDispute } from '../disputes/stripe-events';
import { authorizeBcard, type NetworkAuthorization, type NetworkMerchant } from './authorize';
import type { AuthorizationFacts, Check, DeclineReason } from './decide';
import {
  approvedAuthorizationOf,
  DuplicateEvent,
  markApplied,
  returnedSoFar,
  returnToSources,
  wasApplied,
  type ReturnedSoFar,
} from './stripe-returns';
import { bankDebitEvent, moneyShapeProblem, refundEvent } from './stripe-money-events';

/*
 * Stripe Issuing's webhook (issue 24): Stripe carries the card network's authorizations of bcards issued as Issuing
 * virtual cards (bcards.vendor_card_id is the ic_ card), and bpay, as their issuer, answers and reconciles them.
 *
 * - Every event is verified first with the stripe library (signature over the exact body, at most 5 minutes old):
 *   anything else is refused (400) before a byte of it is used.
 * - issuing_authorization.request: answered inside Stripe's 2-second window by the one decision (decide.ts) that the
 *   simulated network uses too. No processor call stands between the request and the answer: the approval commits the
 *   spend, and the bcard's remainder goes back to its sources after the answer (authorizeBcard's `background`). A
 *   repeated request (same authorization id) answers the first decision; nothing is spent twice.
 * - issuing_authorization.created / .updated: what Stripe decided and what became of the hold. An authorization bpay
 *   never saw a request for is applied now (Stripe decided alone); a hold released (reversed, expired, captured for
 *   less) goes back to the sources (stripe-returns.ts).
 * - issuing_transaction.created: a capture is recorded (one above the approved amount is logged: the sources are
 *   never charged more than they funded); a merchant's refund goes back to the sources.
 * Each of these is applied once by event id (stripe_events, written in the transaction of its effect); a replay
 * answers {received: true, duplicate: true}. Other event types are answered and ignored.
 */

/** Stripe's tolerance for a signed event's age, in seconds (its library's default). */
export const STRIPE_SIGNATURE_TOLERANCE_S = 300;
/** The API version of the events bpay reads and of its answers (the stripe library's pinned version). */
export const STRIPE_API_VERSION: string = Stripe.API_VERSION;

type Authorization = Stripe.Issuing.Authorization;
type Transaction = Stripe.Issuing.Transaction;

export interface AuthorizationAnswer {
  approved: boolean;
  metadata: { bpay_authorization: string; bpay_decline_reason?: DeclineReason };
}
export type StripeWebhookAnswer =
  | { kind: 'authorization'; body: AuthorizationAnswer }
  | { kind: 'received'; body: { received: true; duplicate?: true } };

interface VerifiedEvent {
  id: string;
  type: string;
  object: Record<string, unknown>;
}

/**
 * Verifies one Stripe event and applies it. Fails with: stripe_webhook_not_configured (404: no signing secret),
 * stripe_signature_invalid (400: missing, not matching the body, or older than 5 minutes; nothing applied),
 * validation_error (signed, but not an event), vendor_unavailable (503: the processor or the bcard's settling was not
 * ready; nothing recorded, Stripe sends the event again).
 */
export async function receiveStripeEvent(deps: AppDeps, raw: string, signature: string | null): Promise<StripeWebhookAnswer> {
  const secret = deps.stripeWebhookSecret;
  if (!secret) throw new AppError('stripe_webhook_not_configured');
  const event = await verify(deps, raw, signature, secret);
  const meta = { id: event.id, type: event.type };
  switch (event.type) {
    case 'issuing_authorization.request':
      return { kind: 'authorization', body: await answerRequest(deps, event.object as unknown as Authorization) };
    case 'issuing_authorization.created':
    case 'issuing_authorization.updated':
      return received(await reconcileAuthorization(deps, meta, event.object as unknown as Authorization));
    case 'issuing_transaction.created':
      return received(await reconcileTransaction(deps, meta, event.object as unknown as Transaction));
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'charge.failed':
      return received(await bankDebitEvent(deps, meta, event.object));
    case 'refund.failed':
    case 'refund.updated':
    case 'charge.refund.updated':
      return received(await refundEvent(deps, meta, event.object));
    // Disputes of a funding share (issue 26): disputes/stripe-events.ts.
    case 'charge.dispute.created':
    case 'charge.dispute.updated':
    case 'charge.dispute.closed':
    case 'charge.dispute.funds_withdrawn':
    case 'charge.dispute.funds_reinstated':
      return received(
        await receiveStripeDispute(deps, meta, event.object, (tx) => markApplied(tx, deps, meta)).catch((e: unknown) => {
          if (e instanceof DuplicateEvent) return 'duplicate' as const;
          throw e;
        }),
      );
    default:
      return received('ignored');
  }
}

const received = (outcome: 'applied' | 'duplicate' | 'ignored'): StripeWebhookAnswer =>
  outcome === 'duplicate' ? { kind: 'received', body: { received: true, duplicate: true } } : { kind: 'received', body: { received: true } };

async function verify(deps: AppDeps, raw: string, signature: string | null, secret: string): Promise<VerifiedEvent> {
  if (!signature?.trim()) throw new AppError('stripe_signature_invalid', 'The Stripe-Signature header is missing.');
  let event: unknown;
  try {
    // The age is measured on the system clock as it is, the one Stripe's timestamp is to agree with (lib/clock.ts).
    event = await Stripe.webhooks.constructEventAsync(raw, signature, secret, STRIPE_SIGNATURE_TOLERANCE_S, undefined, systemNow(deps.clock).getTime());
  } catch (e) {
    if (e instanceof Stripe.errors.StripeSignatureVerificationError) {
      const stale = /tolerance/i.test(e.message);
      deps.log.warn('a Stripe webhook event failed signature verification', { stale });
      throw new AppError(
        'stripe_signature_invalid',
        stale
          ? 'The Stripe-Signature timestamp is more than 5 minutes old: a replayed event is refused.'
          : 'The Stripe-Signature header does not match the body (another signing secret, or a changed body).',
      );
    }
    if (e instanceof SyntaxError) throw new AppError('invalid_json');
    throw e;
  }
  const e = event as { id?: unknown; type?: unknown; data?: { object?: unknown } };
  if (typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.data?.object !== 'object' || e.data.object === null) {
    throw new AppError('validation_error', 'A Stripe event needs an id, a type and data.object.');
  }
  const object = e.data.object as Record<string, unknown>;
  const problem = shapeProblem(e.type, object) ?? moneyShapeProblem(e.type, object);
  if (problem) throw new AppError('validation_error', `The Stripe event ${e.type} is malformed: ${problem}.`);
  return { id: e.id, type: e.type, object };
}

const isCents = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
const isList = (v: unknown) => v === undefined || v === null || Array.isArray(v);

/**
 * What bpay reads of an authorization or issuing transaction, checked before it is read: a signed event of another
 * shape (an API version bpay does not read, a hand-made test event) is a clear 400, never a 500.
 */
function shapeProblem(type: string, o: Record<string, unknown>): string | null {
  const dispute = disputeShapeProblem(type, o);
  if (dispute) return dispute;
  if (type.startsWith('issuing_authorization.')) {
    if (typeof o.id !== 'string') return 'data.object.id must be the authorization id';
    if (o.amount !== undefined && !isCents(o.amount)) return 'data.object.amount must be whole cents';
    const p = o.pending_request as Record<string, unknown> | null | undefined;
    if (p !== undefined && p !== null) {
      if (typeof p !== 'object' || !isCents(p.amount)) return 'data.object.pending_request.amount must be whole cents';
      if (p.currency !== undefined && typeof p.currency !== 'string') return 'data.object.pending_request.currency must be a currency code';
    }
    if (type === 'issuing_authorization.request' && (p === undefined || p === null) && !isCents(o.amount)) {
      return 'a request needs data.object.pending_request or data.object.amount';
    }
    if (!isList(o.request_history)) return 'data.object.request_history must be a list';
    if (!isList(o.transactions)) return 'data.object.transactions must be a list';
    for (const r of (o.request_history as unknown[] | null | undefined) ?? []) {
      if (typeof r !== 'object' || r === null || !isCents((r as { amount?: unknown }).amount)) return 'each request_history entry needs whole-cent amount';
    }
    for (const t of (o.transactions as unknown[] | null | undefined) ?? []) {
      if (typeof t !== 'object' || t === null || !isCents((t as { amount?: unknown }).amount)) return 'each transactions entry needs whole-cent amount';
    }
    if (o.currency !== undefined && o.currency !== null && typeof o.currency !== 'string') return 'data.object.currency must be a currency code';
  }
  if (type === 'issuing_transaction.created') {
    if (typeof o.id !== 'string') return 'data.object.id must be the transaction id';
    if (!isCents(o.amount)) return 'data.object.amount must be whole cents';
    if (typeof o.type !== 'string') return 'data.object.type must be capture or refund';
  }
  return null;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Reading Stripe's objects
 * ------------------------------------------------------------------------------------------------------------- */

const cardIdOf = (card: unknown): string | null =>
  typeof card === 'string' ? card : card && typeof card === 'object' && typeof (card as { id?: unknown }).id === 'string' ? (card as { id: string }).id : null;

const check = (v: unknown): Check => (v === 'match' || v === 'mismatch' ? v : 'not_provided');

function merchantOf(auth: Pick<Authorization, 'merchant_data'>): NetworkMerchant & { url: string | null } {
  const m = auth.merchant_data ?? ({} as Partial<Stripe.Issuing.Authorization.MerchantData>);
  // The network's text as bpay shows it: control and bidirectional-override characters written out (lib/text.ts).
  const text = (v: unknown, max: number) => (typeof v === 'string' && v.trim() ? escapeUnsafe(v.trim()).slice(0, max) : null);
  return {
    name: text(m.name, 100) ?? 'Card purchase',
    city: text(m.city, 100),
    category: text(m.category, 60),
    url: text(m.url, 2048),
  };
}

function factsOf(auth: Authorization, amountCents: number, currency: string): AuthorizationFacts {
  const url = merchantOf(auth).url;
  return {
    amountCents,
    currency: currency || 'usd',
    merchantDomain: url ? registrableDomain(url) : null,
    cvc: check(auth.verification_data?.cvc_check),
    expiry: check(auth.verification_data?.expiry_check),
  };
}

/** What the merchant captured of an authorization, as the authorization itself lists it (captures are negative). */
const capturedIn = (auth: Authorization): number =>
  (auth.transactions ?? []).filter((t) => t.type === 'capture').reduce((a, t) => a + Math.abs(t.amount), 0);

/** What Stripe approved in all (the first request and any increments), or what the authorization shows. */
function approvedAmountOf(auth: Authorization): number {
  const approved = (auth.request_history ?? []).filter((r) => r.approved);
  return approved.length > 0 ? approved.reduce((a, r) => a + r.amount, 0) : Math.max(0, auth.amount) + capturedIn(auth);
}

/** A Stripe-side decline reason (request_history[].reason) in bpay's words. */
function declineReasonOf(auth: Authorization): DeclineReason {
  const reason = [...(auth.request_history ?? [])].reverse().find((r) => !r.approved)?.reason;
  switch (reason) {
    case 'card_expired':
      return 'expired';
    case 'insufficient_funds':
    case 'spending_controls':
      return 'insufficient_funds';
    case 'verification_failed':
      return auth.verification_data?.expiry_check === 'mismatch' ? 'incorrect_expiry' : 'incorrect_cvc';
    default:
      return 'card_inactive';
  }
}

function bcardOfCard(deps: AppDeps, cardId: string | null) {
  if (!cardId) return Promise.resolve(undefined);
  return firstRow(deps.db, schema.bcards, and(eq(schema.bcards.vendorCardId, cardId), eq(schema.bcards.vendor, 'stripe')));
}

const authorizationByRef = (deps: AppDeps, ref: string) =>
  firstRow(deps.db, schema.issuerAuthorizations, and(eq(schema.issuerAuthorizations.network, 'stripe'), eq(schema.issuerAuthorizations.networkRef, ref)));

/* ---------------------------------------------------------------------------------------------------------------
 * issuing_authorization.request: the real-time answer
 * ------------------------------------------------------------------------------------------------------------- */

async function answerRequest(deps: AppDeps, auth: Authorization): Promise<AuthorizationAnswer> {
  if (typeof auth.id !== 'string') throw new AppError('validation_error', 'The authorization has no id.');
  const answer = (o: { id: string; approved: boolean; reason: DeclineReason | null }): AuthorizationAnswer => ({
    approved: o.approved,
    metadata: { bpay_authorization: o.id, ...(o.reason ? { bpay_decline_reason: o.reason } : {}) },
  });
  // An increment of an authorization already approved (the merchant asks for more): a single-use bcard was spent for
  // the first amount and holds nothing more. A repeat of the first request has nothing approved yet.
  const prior = await authorizationByRef(deps, auth.id);
  if (prior && (auth.request_history ?? []).some((r) => r.approved)) {
    deps.log.info('an increment of an Issuing authorization was declined: bcards are spent once', { authorizationId: prior.id });
    return answer({ id: prior.id, approved: false, reason: 'insufficient_funds' });
  }
  const bcard = await bcardOfCard(deps, cardIdOf(auth.card));
  const pending = auth.pending_request;
  const outcome = await authorizeBcard(deps, requestOf(auth, bcard ?? null, pending?.amount ?? auth.amount, pending?.currency ?? auth.currency), {
    settle: 'background',
  });
  return answer(outcome);
}

function requestOf(auth: Authorization, bcard: NetworkAuthorization['bcard'], amount: number, currency: string): NetworkAuthorization {
  const { url: _url, ...merchant } = merchantOf(auth);
  return { network: 'stripe', networkRef: auth.id, bcard, facts: factsOf(auth, amount, currency), merchant };
}

/* ---------------------------------------------------------------------------------------------------------------
 * issuing_authorization.created / .updated
 * ------------------------------------------------------------------------------------------------------------- */

async function reconcileAuthorization(deps: AppDeps, event: { id: string; type: string }, auth: Authorization) {
  if (typeof auth.id !== 'string') throw new AppError('validation_error', 'The authorization has no id.');
  if (await wasApplied(deps.db, event.id)) return 'duplicate';
  let row = await authorizationByRef(deps, auth.id);
  const known = !!row;
  if (!row) {
    const bcard = await bcardOfCard(deps, cardIdOf(auth.card));
    if (!bcard) {
      // Another card on the same Stripe account (not a bcard): nothing of bpay's.
      return applied(deps, event);
    }
    row = auth.approved ? await applyStripeApproval(deps, auth, bcard) : await recordStripeDecline(deps, auth, bcard);
  }
  if (row.decision !== 'approved') {
    // (An approval applied just now has been logged by applyStripeApproval.)
    if (auth.approved && known) {
      deps.log.error(
        'Stripe approved an Issuing authorization that bpay declined: the Issuing balance pays the merchant, no funding source was charged',
        { authorizationId: row.id, stripeAuthorization: auth.id, amount: auth.amount, reason: row.declineReason },
      );
    }
    return applied(deps, event);
  }
  // Approved and spent: what the hold no longer holds, and the merchant did not capture, goes back.
  const held = auth.approved && auth.status === 'pending' ? Math.max(0, auth.amount) : 0;
  const snapshotCaptured = capturedIn(auth);
  // Closed and approved means captured: without the capture in hand, releasing would give back what the merchant
  // took. Not recorded: Stripe sends the event again, by when issuing_transaction.created has told of the capture.
  if (auth.approved && auth.status === 'closed' && snapshotCaptured === 0 && row.capturedCents === 0) {
    deps.log.warn('a closed Issuing authorization lists no capture yet; its event is asked for again', { authorizationId: row.id, eventId: event.id });
    throw new AppError('vendor_unavailable', 'The authorization is closed but its capture is not known yet; Stripe will send this event again.');
  }
  if (!auth.approved) {
    deps.log.warn('Stripe declined an authorization bpay approved (a late answer or its own controls): the purchase goes back', {
      authorizationId: row.id,
      stripeAuthorization: auth.id,
    });
  }
  const outcome = await returnToSources(deps, {
    event,
    kind: 'issuing.released',
    authorizationId: row.id,
    amount: (now, sofar: ReturnedSoFar) => {
      const captured = Math.max(now.capturedCents, snapshotCaptured);
      const released = now.returnedCents - sofar.refunded;
      return Math.max(0, now.amountCents - captured - held) - released;
    },
  });
  return outcome === 'duplicate' ? 'duplicate' : 'applied';
}

/**
 * An approval Stripe gave alone (bpay's answer never arrived, or the authorization never asked): applied through the
 * same decision and spend, since the money has left. When bpay's rules decline it, the decline is recorded and
 * logged: bpay cannot take back what Stripe let through, and does not charge the sources for what it refused.
 */
async function applyStripeApproval(deps: AppDeps, auth: Authorization, bcard: NonNullable<NetworkAuthorization['bcard']>) {
  const outcome = await authorizeBcard(deps, requestOf(auth, bcard, approvedAmountOf(auth), auth.currency));
  deps.log[outcome.approved ? 'warn' : 'error'](
    outcome.approved
      ? 'Stripe approved an Issuing authorization without asking bpay; it was applied (the bcard spent)'
      : 'Stripe approved an Issuing authorization bpay declines: the Issuing balance pays the merchant, no funding source was charged',
    { authorizationId: outcome.id, stripeAuthorization: auth.id, reason: outcome.reason },
  );
  return (await authorizationByRef(deps, auth.id))!;
}

async function recordStripeDecline(deps: AppDeps, auth: Authorization, bcard: NonNullable<NetworkAuthorization['bcard']>) {
  const at = deps.clock.now();
  const merchant = merchantOf(auth);
  // What was asked for: the last request Stripe decided, else the pending one.
  const amountCents = Math.max(0, (auth.request_history ?? []).at(-1)?.amount ?? auth.pending_request?.amount ?? auth.amount);
  const reason = declineReasonOf(auth);
  await deps.db.transaction(async (tx) => {
    const written = await tx
      .insert(schema.issuerAuthorizations)
      .values({
        id: newId('iauth'),
        network: 'stripe',
        networkRef: auth.id,
        bcardId: bcard.id,
        userId: bcard.userId,
        amountCents,
        currency: (auth.currency || 'usd').toLowerCase(),
        merchantName: merchant.name,
        merchantCity: merchant.city,
        merchantCategory: merchant.category,
        merchantDomain: merchant.url ? registrableDomain(merchant.url) : null,
        decision: 'declined',
        declineReason: reason,
        createdAt: at,
        updatedAt: at,
      })
      .onConflictDoNothing()
      .returning({ id: schema.issuerAuthorizations.id });
    // Stripe declined it alone: the owner hears of it as of any decline, once per authorization.
    if (written[0]) await noticeBcardDeclined(tx, deps, bcard, { merchant: merchant.name, amountCents, reason }, at);
  });
  return (await authorizationByRef(deps, auth.id))!;
}

/** Records an event with no money to move, once. */
async function applied(deps: AppDeps, event: { id: string; type: string }): Promise<'applied' | 'duplicate'> {
  try {
    await deps.db.transaction((tx) => markApplied(tx, deps, event));
    return 'applied';
  } catch (e) {
    if (e instanceof DuplicateEvent) return 'duplicate';
    throw e;
  }
}

/* ---------------------------------------------------------------------------------------------------------------
 * issuing_transaction.created
 * ------------------------------------------------------------------------------------------------------------- */

async function reconcileTransaction(deps: AppDeps, event: { id: string; type: string }, txn: Transaction) {
  if (await wasApplied(deps.db, event.id)) return 'duplicate';
  const amount = Math.abs(Number(txn.amount) || 0);
  const authRef = typeof txn.authorization === 'string' ? txn.authorization : (txn.authorization?.id ?? null);
  // A refund is usually not linked to an authorization: the bcard's (single) approved one is the purchase it returns.
  let row = authRef ? await authorizationByRef(deps, authRef) : undefined;
  if (!row || row.decision !== 'approved') {
    const bcard = await bcardOfCard(deps, cardIdOf(txn.card));
    row = bcard ? await approvedAuthorizationOf(deps.db, bcard.id) : undefined;
  }
  if (!row) {
    if (await bcardOfCard(deps, cardIdOf(txn.card))) {
      deps.log.error('an Issuing transaction on a bcard that no approved authorization spent: the Issuing balance bears it', {
        transaction: txn.id,
        type: txn.type,
        amount,
      });
    }
    return applied(deps, event);
  }
  const authorization = row;
  if (txn.type === 'capture') {
    try {
      const captured = await deps.db.transaction(async (tx) => {
        await markApplied(tx, deps, event);
        const [r] = await tx
          .update(schema.issuerAuthorizations)
          .set({ capturedCents: sql`${schema.issuerAuthorizations.capturedCents} + ${amount}`, updatedAt: deps.clock.now() })
          .where(eq(schema.issuerAuthorizations.id, authorization.id))
          .returning();
        return r!;
      });
      const released = captured.returnedCents - (await returnedSoFar(deps.db, captured.id)).refunded;
      if (captured.capturedCents + released > captured.amountCents) {
        deps.log.error(
          'a merchant captured more than bpay approved and still held (a tip, or a capture after the hold was released): ' +
            'the Issuing balance pays the difference, no funding source is charged',
          { authorizationId: captured.id, approved: captured.amountCents, captured: captured.capturedCents, released },
        );
      }
      return 'applied';
    } catch (e) {
      if (e instanceof DuplicateEvent) return 'duplicate';
      throw e;
    }
  }
  if (txn.type === 'refund') {
    const outcome = await returnToSources(deps, {
      event,
      kind: 'issuing.refunded',
      authorizationId: authorization.id,
      amount: (now) => Math.min(amount, now.amountCents - now.returnedCents),
    });
    if (typeof outcome === 'number' && outcome < amount) {
      deps.log.error('a merchant refunded more than the sources paid for the purchase: the rest stays with bpay, which paid it', {
        authorizationId: authorization.id,
        refund: amount,
        returned: outcome,
      });
    }
    return outcome === 'duplicate' ? 'duplicate' : 'applied';
  }
  return applied(deps, event);
}
