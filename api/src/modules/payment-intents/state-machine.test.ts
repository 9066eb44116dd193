import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { PAYMENT_INTENT_STATUSES, type PaymentIntentStatus } from '@bpay/db';
import { AppError } from '../../errors';
import { makeTestApp, merchantCall, type TestContext } from '../../../test-support/app';
import { createMerchant, makePremium, registerUser, testBcardCard, type TestMerchant } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { resetRateWindows } from '../merchants/usage';
import { assertIntentTransition, INTENT_TRANSITIONS } from './service';

/*
 * The payment intent state machine: the transition table itself (every pair of statuses, exhaustively), and a
 * model of the API that predicts every answer and status over random sequences of confirm, decline, capture and
 * cancel on one intent.
 */

/** Stripe's transitions, written out independently of the table under test. */
const EXPECTED: Record<PaymentIntentStatus, PaymentIntentStatus[]> = {
  requires_payment_method: ['requires_confirmation', 'processing', 'canceled'],
  requires_confirmation: ['processing', 'requires_payment_method', 'canceled'],
  requires_action: ['processing', 'requires_payment_method', 'canceled'],
  processing: ['succeeded', 'requires_capture', 'requires_payment_method'],
  requires_capture: ['processing', 'canceled'],
  succeeded: [],
  canceled: [],
};

describe('INTENT_TRANSITIONS', () => {
  test('covers every status and is exactly the expected table', () => {
    expect(Object.keys(INTENT_TRANSITIONS).sort()).toEqual([...PAYMENT_INTENT_STATUSES].sort());
    for (const from of PAYMENT_INTENT_STATUSES) expect([...INTENT_TRANSITIONS[from]].sort()).toEqual([...EXPECTED[from]].sort());
  });

  test('assertIntentTransition allows exactly the table and refuses every other pair (all 49)', () => {
    let allowed = 0;
    let refused = 0;
    for (const from of PAYMENT_INTENT_STATUSES) {
      for (const to of PAYMENT_INTENT_STATUSES) {
        if (EXPECTED[from].includes(to)) {
          expect(() => assertIntentTransition(from, to)).not.toThrow();
          allowed++;
        } else {
          let thrown: unknown;
          try {
            assertIntentTransition(from, to);
          } catch (e) {
            thrown = e;
          }
          expect(thrown).toBeInstanceOf(AppError);
          expect((thrown as AppError).code).toBe('payment_intent_unexpected_state');
          expect((thrown as AppError).status).toBe(400);
          expect((thrown as AppError).message).toContain(from);
          refused++;
        }
      }
    }
    expect(allowed + refused).toBe(PAYMENT_INTENT_STATUSES.length ** 2);
    expect(allowed).toBe(Object.values(EXPECTED).flat().length);
  });

  test('succeeded and canceled are final; no status moves to itself; every status is reachable', () => {
    expect(INTENT_TRANSITIONS.succeeded).toEqual([]);
    expect(INTENT_TRANSITIONS.canceled).toEqual([]);
    for (const s of PAYMENT_INTENT_STATUSES) expect(INTENT_TRANSITIONS[s]).not.toContain(s);
    // succeeded is reached only through processing: money moves in one place.
    for (const s of PAYMENT_INTENT_STATUSES) if (s !== 'processing') expect(INTENT_TRANSITIONS[s]).not.toContain('succeeded');
    const seen = new Set<PaymentIntentStatus>(['requires_payment_method']);
    const queue: PaymentIntentStatus[] = ['requires_payment_method'];
    while (queue.length) for (const next of INTENT_TRANSITIONS[queue.shift()!]) if (!seen.has(next)) (seen.add(next), queue.push(next));
    // requires_action is entered by 3-D Secure flows bcards never need; everything else is reachable.
    expect([...PAYMENT_INTENT_STATUSES].filter((s) => !seen.has(s))).toEqual(['requires_action']);
  });

  test('property: a transition is allowed if and only if the table lists it', () => {
    const status = fc.constantFrom(...PAYMENT_INTENT_STATUSES);
    fc.assert(
      fc.property(status, status, (from, to) => {
        let ok = true;
        try {
          assertIntentTransition(from, to);
        } catch {
          ok = false;
        }
        return ok === INTENT_TRANSITIONS[from].includes(to);
      }),
    );
  });
});

describe('the API follows the state machine', () => {
  let ctx: TestContext;
  let merchant: TestMerchant;
  beforeAll(async () => {
    ctx = await makeTestApp();
    const owner = await registerUser(ctx);
    await makePremium(ctx, owner.user.id);
    // A sandbox merchant, paid with sandbox test bcards (a consumer's bcard pays production intents only).
    merchant = await createMerchant(ctx, owner.cookie);
  });
  afterAll(() => ctx.close());

  type Op = 'confirm' | 'decline' | 'capture' | 'cancel';

  test('property: random operations on one intent get the answers and statuses the model predicts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(fc.constantFrom<Op>('confirm', 'decline', 'capture', 'cancel'), { minLength: 1, maxLength: 6 }), async (manual, ops) => {
        resetRateWindows();
        const post = (path: string, body: unknown) => merchantCall(ctx, merchant.secretKey, path, { method: 'POST', body });
        const made = await post('/payment_intents', { amount: 1000, currency: 'usd', capture_method: manual ? 'manual' : 'automatic' });
        expect(made.status).toBe(200);
        const id: string = made.body.id;
        let model: PaymentIntentStatus = 'requires_payment_method';
        let received = 0;
        for (const op of ops) {
          const open = model === 'requires_payment_method';
          let res;
          let next: PaymentIntentStatus = model;
          let expectStatus = 400;
          if (op === 'confirm' || op === 'decline') {
            const bcard = await testBcardCard(ctx, merchant.secretKey, op === 'confirm' ? 1000 : 500);
            res = await post(`/payment_intents/${id}/confirm`, { payment_method_data: { type: 'card', card: bcard.card } });
            if (open && op === 'confirm') (expectStatus = 200), (next = manual ? 'requires_capture' : 'succeeded');
            if (open && op === 'decline') expectStatus = 402;
          } else if (op === 'capture') {
            res = await post(`/payment_intents/${id}/capture`, {});
            if (model === 'requires_capture') (expectStatus = 200), (next = 'succeeded');
          } else {
            res = await post(`/payment_intents/${id}/cancel`, {});
            if (open || model === 'requires_capture') (expectStatus = 200), (next = 'canceled');
          }
          expect({ op, from: model, status: res.status }).toEqual({ op, from: model, status: expectStatus });
          if (expectStatus === 400) expect(res.body.error.code).toBe('payment_intent_unexpected_state');
          if (next === 'succeeded' && model !== 'succeeded') received = 1000;
          model = next;
          expect((await merchantCall(ctx, merchant.secretKey, `/payment_intents/${id}`)).body).toMatchObject({ status: model, amount_received: received });
        }
        // Leave no authorization behind, then the books must balance.
        if (model === 'requires_capture') expect((await post(`/payment_intents/${id}/cancel`, {})).status).toBe(200);
        expect(moneyViolations(await moneyReport(ctx))).toEqual([]);
      }),
      { numRuns: 25 },
    );
    // Up to 150 API calls and 100 bcards: more than the default 5 s on a busy machine.
  }, 60_000);
});
