// The Stripe vendor through the real SDK against a local stub of Stripe's API (api/test-support/stripe-stub.ts).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import {
  achReturnCode,
  checkStripeCredentials,
  createStripeVendor,
  issuingName,
  metadataQuery,
  redact,
  StripeIntegrationError,
  toFunding,
  toVendorError,
  type StripeVendorOptions,
} from './stripe';
import { startStripeStub, stripeError, TEST_CARDS, type StripeStub, type StubAnswer } from '../../test-support/stripe-stub';
import { VendorDeclineError, VendorUnavailableError, type CardDetails, type DeclineCode, type PaymentVendor } from './types';

const SECRET = 'sk_test_51bpayStubKey000000000000';
const CVC = '987';
const ALL_NUMBERS: string[] = Object.values(TEST_CARDS);

let stub: StripeStub;
let closedPort = 0;

beforeAll(async () => {
  stub = startStripeStub({ secretKey: SECRET });
  // A port that nothing listens on: open a server, note its port, close it.
  const dead = Bun.serve({ port: 0, hostname: 'localhost', fetch: () => new Response('') });
  closedPort = dead.port ?? 0;
  await dead.stop(true);
});
afterAll(async () => {
  await stub.stop();
});
beforeEach(() => stub.clearRequests());

function vendor(extra: Partial<StripeVendorOptions> = {}): PaymentVendor {
  return createStripeVendor({
    secretKey: SECRET,
    host: 'localhost',
    port: stub.port,
    protocol: 'http',
    maxNetworkRetries: 0,
    timeoutMs: 3000,
    ...extra,
  });
}

const card = (number: string = TEST_CARDS.visa): CardDetails => ({ number, expMonth: 12, expYear: 2031, cvc: CVC, name: 'Ada Lovelace' });

let seq = 0;
const newKey = (label: string) => `${label}-${Date.now()}-${++seq}`;

/** The rejection of `p`, after checking it carries no card number or CVC anywhere a log could print. */
async function rejection(p: Promise<unknown>): Promise<Error> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  if (!(caught instanceof Error)) throw new Error(`expected a rejection with an Error, got ${String(caught)}`);
  const printable = `${caught.message} ${String(caught.stack)} ${JSON.stringify(caught.cause ?? null)}`;
  for (const n of ALL_NUMBERS) expect(printable).not.toContain(n);
  expect(printable).not.toContain(`cvc ${CVC}`);
  expect(printable).not.toContain(SECRET);
  return caught;
}

async function declineCode(p: Promise<unknown>): Promise<DeclineCode> {
  const err = await rejection(p);
  expect(err).toBeInstanceOf(VendorDeclineError);
  return (err as VendorDeclineError).code;
}

async function verifiedToken(v: PaymentVendor, number: string = TEST_CARDS.visa): Promise<string> {
  const r = await v.verifyCard(card(number), { idempotencyKey: newKey('verify'), customerRef: 'user-1' });
  if (r.status !== 'verified') throw new Error('expected a verified card');
  return r.card.token;
}

async function heldIntent(v: PaymentVendor, amount = 2_500): Promise<{ holdId: string; key: string }> {
  const token = await verifiedToken(v);
  const key = newKey('hold');
  const { holdId } = await v.hold(token, amount, { idempotencyKey: key, description: 'share 1 of 2' });
  return { holdId, key };
}

const posts = () => stub.requests.filter((r) => r.method === 'POST');

describe("card.funding and ACH returns", () => {
  test("the card's funding is Stripe's card.funding: debit and prepaid test cards come back as such", async () => {
    for (const [number, funding] of [
      ['4000056655665556', 'debit'],
      ['5200828282828210', 'debit'],
      ['5105105105105100', 'prepaid'],
      [TEST_CARDS.visa, 'credit'],
    ] as const) {
      const r = await vendor().verifyCard(card(number), { idempotencyKey: newKey('verify'), customerRef: 'user-funding' });
      expect(r.status === 'verified' && r.card.funding).toBe(funding);
    }
    expect(toFunding('unknown')).toBe('unknown');
    expect(toFunding(null)).toBe('unknown');
    expect(toFunding('charge_card')).toBe('unknown');
  });

  test("Stripe's ACH failure codes are shown as NACHA return codes", () => {
    expect(achReturnCode('insufficient_funds')).toBe('R01');
    expect(achReturnCode('account_closed')).toBe('R02');
    expect(achReturnCode('no_account')).toBe('R03');
    expect(achReturnCode('something_new')).toBe('something_new');
  });
});

describe('verifyCard', () => {
  test('creates a customer and a card payment method, attaches it, authorizes $1.00 manually and releases it', async () => {
    const key = newKey('verify');
    const result = await vendor().verifyCard(card(), { idempotencyKey: key, customerRef: 'user-verify-1' });

    expect(stub.requests.map((r) => `${r.method} ${r.path.replace(/[a-z]+_stub\d+/, ':id')}`)).toEqual([
      'GET /v1/customers/search',
      'POST /v1/customers',
      'POST /v1/payment_methods',
      'POST /v1/payment_methods/:id/attach',
      'POST /v1/payment_intents',
      'POST /v1/payment_intents/:id/cancel',
    ]);
    const [search, customer, pm, attach, pi, cancel] = stub.requests;
    expect(search?.query.get('query')).toBe("metadata['bpay_customer_ref']:'user-verify-1'");
    expect(customer?.form.get('metadata[bpay_customer_ref]')).toBe('user-verify-1');

    expect(pm?.form.get('type')).toBe('card');
    expect(pm?.form.get('card[number]')).toBe(TEST_CARDS.visa);
    expect(pm?.form.get('card[exp_month]')).toBe('12');
    expect(pm?.form.get('card[exp_year]')).toBe('2031');
    expect(pm?.form.get('card[cvc]')).toBe(CVC);
    expect(pm?.form.get('billing_details[name]')).toBe('Ada Lovelace');

    if (result.status !== 'verified') throw new Error('expected verified');
    expect(result.card).toEqual({ token: result.card.token, brand: 'visa', funding: 'credit', last4: '4242', expMonth: 12, expYear: 2031 });
    expect(attach?.path).toBe(`/v1/payment_methods/${result.card.token}/attach`);
    const customerId = stub.objects.get(result.card.token)?.customer;
    expect(attach?.form.get('customer')).toBe(String(customerId));

    expect(Object.fromEntries(pi?.form ?? [])).toMatchObject({
      amount: '100',
      currency: 'usd',
      capture_method: 'manual',
      confirm: 'true',
      payment_method: result.card.token,
      customer: String(customerId),
      off_session: 'false',
      'allowed_payment_method_types[0]': 'card',
      'metadata[bpay_purpose]': 'card_verification',
    });
    const piId = cancel?.path.split('/')[3] ?? '';
    expect(cancel?.path).toBe(`/v1/payment_intents/${piId}/cancel`);
    expect(stub.objects.get(piId)?.status).toBe('canceled'); // the $1.00 is released

    for (const r of stub.requests) expect(r.authorization).toBe(`Bearer ${SECRET}`);
    expect(posts().map((r) => r.idempotencyKey)).toEqual([
      'bpay-customer:user-verify-1',
      `${key}:pm`,
      `${key}:attach`,
      `${key}:pi`,
      `${key}:cancel`,
    ]);
  });

  test('reuses the customer of a customerRef', async () => {
    const v = vendor();
    const a = await verifiedToken(v);
    const b = await vendor().verifyCard(card(TEST_CARDS.mastercard), { idempotencyKey: newKey('v'), customerRef: 'user-1' });
    if (b.status !== 'verified') throw new Error('expected verified');
    expect(b.card.brand).toBe('mastercard');
    expect(stub.objects.get(b.card.token)?.customer).toBe(stub.objects.get(a)?.customer ?? 'missing');
    expect(stub.find('POST', '/v1/customers')).toHaveLength(1); // first time only: then found by search
  });

  test('a call retried with the same key sends the same idempotency keys and moves nothing twice', async () => {
    const key = newKey('verify-retry');
    const v = vendor();
    stub.override({ method: 'POST', path: '/v1/payment_intents' }, stripeError(500, { type: 'api_error', message: 'Something went wrong.' }));
    expect(await rejection(v.verifyCard(card(), { idempotencyKey: key, customerRef: 'user-retry' }))).toBeInstanceOf(VendorUnavailableError);
    const ownKeys = () => posts().map((r) => r.idempotencyKey).filter((k) => k?.startsWith(key));
    const firstKeys = ownKeys();
    expect(firstKeys).toEqual([`${key}:pm`, `${key}:attach`, `${key}:pi`]);
    const pmsBefore = [...stub.objects.values()].filter((o) => o.object === 'payment_method').length;

    stub.clearRequests();
    const again = await v.verifyCard(card(), { idempotencyKey: key, customerRef: 'user-retry' });
    expect(again.status).toBe('verified');
    expect(ownKeys()).toEqual([...firstKeys, `${key}:cancel`]);
    // The payment method was created once: the retry's creation was a replay.
    expect([...stub.objects.values()].filter((o) => o.object === 'payment_method').length).toBe(pmsBefore);

    // A third call after success replays everything, including the verification's outcome.
    const third = await v.verifyCard(card(), { idempotencyKey: key, customerRef: 'user-retry' });
    expect(third).toEqual(again);
  });

  test('a card that needs 3-D Secure returns requires_action with the intent and Stripe’s redirect', async () => {
    const v = vendor({ returnUrl: 'https://bpay.test/cards/3ds-return' });
    const r = await v.verifyCard(card(TEST_CARDS.threeDSecure), { idempotencyKey: newKey('3ds'), customerRef: 'user-3ds' });
    if (r.status !== 'requires_action') throw new Error('expected requires_action');
    expect(r.challengeId).toMatch(/^pi_/);
    expect(r.redirectUrl).toContain(r.challengeId);
    expect(stub.find('POST', /\/cancel$/)).toHaveLength(0);
    expect(stub.find('POST', '/v1/payment_intents')[0]?.form.get('return_url')).toBe('https://bpay.test/cards/3ds-return');

    // Not answered yet on Stripe's page: refused, and the intent is left for the cardholder.
    expect(await declineCode(v.completeChallenge(r.challengeId, '123456'))).toBe('authentication_failed');

    stub.completeChallenge(r.challengeId, true);
    stub.clearRequests();
    const tokenized = await v.completeChallenge(r.challengeId, 'unused by Stripe');
    expect(tokenized).toMatchObject({ brand: 'visa', last4: '3184', expMonth: 12, expYear: 2031 });
    const retrieve = stub.find('GET', `/v1/payment_intents/${r.challengeId}`)[0];
    expect(retrieve?.query.getAll('expand[0]').concat(retrieve.query.getAll('expand[1]'))).toEqual(['payment_method', 'latest_charge']);
    expect(stub.find('POST', `/v1/payment_intents/${r.challengeId}/cancel`)).toHaveLength(1);
    expect(stub.objects.get(r.challengeId)?.status).toBe('canceled');

    // Asked again (a retry after a lost answer): still verified, nothing more released.
    expect(await v.completeChallenge(r.challengeId, 'x')).toEqual(tokenized);
  });

  test('a verification that was captured after the challenge is refunded, not cancelled', async () => {
    const v = vendor({ returnUrl: 'https://bpay.test/cards/3ds-return' });
    const r = await v.verifyCard(card(TEST_CARDS.threeDSecure), { idempotencyKey: newKey('3ds'), customerRef: 'user-3ds' });
    if (r.status !== 'requires_action') throw new Error('expected requires_action');
    stub.completeChallenge(r.challengeId, true);
    const pi = stub.objects.get(r.challengeId);
    if (pi) pi.status = 'succeeded';
    stub.clearRequests();
    expect((await v.completeChallenge(r.challengeId, '')).last4).toBe('3184');
    const [refund] = stub.find('POST', '/v1/refunds');
    expect(refund?.form.get('payment_intent')).toBe(r.challengeId);
    expect(refund?.idempotencyKey).toBe(`bpay-verify-refund:${r.challengeId}`);
    expect(stub.find('POST', /\/cancel$/)).toHaveLength(0);
  });

  test('a failed or unknown 3-D Secure challenge is authentication_failed', async () => {
    const v = vendor();
    const r = await v.verifyCard(card(TEST_CARDS.threeDSecure), { idempotencyKey: newKey('3ds'), customerRef: 'user-3ds' });
    if (r.status !== 'requires_action') throw new Error('expected requires_action');
    expect(r.redirectUrl).toBeUndefined(); // no returnUrl configured: Stripe answers use_stripe_sdk
    stub.completeChallenge(r.challengeId, false);
    expect(await declineCode(v.completeChallenge(r.challengeId, '000000'))).toBe('authentication_failed');
    expect(await declineCode(v.completeChallenge('pi_doesnotexist', '000000'))).toBe('authentication_failed');
    // A hold's intent is not a verification challenge.
    const { holdId } = await heldIntent(v);
    expect(await declineCode(v.completeChallenge(holdId, '000000'))).toBe('authentication_failed');
    expect(stub.objects.get(holdId)?.status).toBe('requires_capture');
  });

  test('a declined card is refused and its payment method detached', async () => {
    const key = newKey('declined');
    const err = await rejection(vendor().verifyCard(card(TEST_CARDS.declined), { idempotencyKey: key, customerRef: 'user-1' }));
    expect(err).toBeInstanceOf(VendorDeclineError);
    expect((err as VendorDeclineError).code).toBe('card_declined');
    expect((err as VendorDeclineError).declineCode).toBe('generic_decline');
    const detach = stub.find('POST', /\/detach$/)[0];
    expect(detach?.idempotencyKey).toBe(`${key}:detach`);
  });

  test.each([
    ['insufficient funds', TEST_CARDS.insufficientFunds, 'insufficient_funds'],
    ['expired card', TEST_CARDS.expired, 'expired_card'],
    ['incorrect CVC', TEST_CARDS.incorrectCvc, 'incorrect_cvc'],
    ['processing error', TEST_CARDS.processingError, 'processing_error'],
    ['number failing Luhn', TEST_CARDS.incorrectNumber, 'incorrect_number'],
  ] as const)('Stripe test card: %s', async (_name, number, code) => {
    expect(await declineCode(vendor().verifyCard(card(number), { idempotencyKey: newKey('card'), customerRef: 'user-1' }))).toBe(code);
  });
});

describe('availableBalance', () => {
  test('is unknown with Stripe, without asking it', async () => {
    expect(await vendor().availableBalance('pm_anything')).toBeNull();
    expect(stub.requests).toHaveLength(0);
  });
});

describe('holds', () => {
  test('hold places a manual-capture off-session intent under the key and returns it', async () => {
    const v = vendor();
    const token = await verifiedToken(v);
    stub.clearRequests();
    const key = newKey('hold');
    const { holdId } = await v.hold(token, 2_599, { idempotencyKey: key, description: 'bpay payment pay_1, share 1 of 3' });

    expect(stub.find('GET', `/v1/payment_methods/${token}`)).toHaveLength(1);
    const create = stub.find('POST', '/v1/payment_intents')[0];
    expect(create?.idempotencyKey).toBe(`${key}:hold`);
    expect(Object.fromEntries(create?.form ?? [])).toMatchObject({
      amount: '2599',
      currency: 'usd',
      payment_method: token,
      customer: String(stub.objects.get(token)?.customer),
      capture_method: 'manual',
      confirm: 'true',
      off_session: 'true',
      description: 'bpay payment pay_1, share 1 of 3',
      'metadata[bpay_idempotency_key]': key,
    });
    expect(stub.objects.get(holdId)?.status).toBe('requires_capture');

    // Same key again: Stripe replays the first intent.
    expect(await v.hold(token, 2_599, { idempotencyKey: key, description: 'bpay payment pay_1, share 1 of 3' })).toEqual({ holdId });
    expect([...stub.objects.values()].filter((o) => o.metadata && (o.metadata as Record<string, unknown>).bpay_idempotency_key === key)).toHaveLength(1);
  });

  test('a refused hold is a VendorDeclineError carrying the decline code', async () => {
    const v = vendor();
    const token = await verifiedToken(v);
    stub.override(
      { method: 'POST', path: '/v1/payment_intents' },
      stripeError(402, { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' }),
    );
    const err = await rejection(v.hold(token, 10_000, { idempotencyKey: newKey('hold'), description: 'share' }));
    expect(err).toBeInstanceOf(VendorDeclineError);
    expect((err as VendorDeclineError).code).toBe('insufficient_funds');
    expect((err as VendorDeclineError).declineCode).toBe('insufficient_funds');
  });

  test('a card that needs authentication off-session is authentication_required', async () => {
    const v = vendor();
    const r = await v.verifyCard(card(TEST_CARDS.threeDSecure), { idempotencyKey: newKey('3ds'), customerRef: 'user-3ds' });
    if (r.status !== 'requires_action') throw new Error('expected requires_action');
    stub.completeChallenge(r.challengeId, true);
    const { token } = await v.completeChallenge(r.challengeId, '');
    expect(await declineCode(v.hold(token, 1_000, { idempotencyKey: newKey('hold'), description: 'share' }))).toBe('authentication_required');
  });

  test('a hold that comes back requires_action is cancelled and refused', async () => {
    const v = vendor();
    const token = await verifiedToken(v);
    stub.override({ method: 'POST', path: '/v1/payment_intents' }, { status: 200, body: { id: 'pi_stub999001', object: 'payment_intent', status: 'requires_action' } });
    stub.override({ method: 'POST', path: '/v1/payment_intents/pi_stub999001/cancel' }, { status: 200, body: { id: 'pi_stub999001', object: 'payment_intent', status: 'canceled' } });
    expect(await declineCode(v.hold(token, 1_000, { idempotencyKey: newKey('hold'), description: 'share' }))).toBe('authentication_required');
    expect(stub.find('POST', '/v1/payment_intents/pi_stub999001/cancel')).toHaveLength(1);
  });

  test('hold refuses amounts that are not positive integer cents, before calling Stripe', async () => {
    const err = await rejection(vendor().hold('pm_x', 10.5, { idempotencyKey: newKey('hold'), description: 'x' }));
    expect(err).toBeInstanceOf(StripeIntegrationError);
    expect(stub.requests).toHaveLength(0);
  });

  test('findHold searches by the key in metadata and follows the hold through captured and voided', async () => {
    const v = vendor();
    const captured = await heldIntent(v);
    const voided = await heldIntent(v);

    stub.clearRequests();
    expect(await v.findHold(captured.key)).toEqual({ holdId: captured.holdId, status: 'held' });
    const search = stub.find('GET', '/v1/payment_intents/search')[0];
    expect(search?.query.get('query')).toBe(`metadata['bpay_idempotency_key']:'${captured.key}'`);

    await v.capture(captured.holdId);
    expect(await v.findHold(captured.key)).toEqual({ holdId: captured.holdId, status: 'captured' });
    await v.voidHold(voided.holdId);
    expect(await v.findHold(voided.key)).toEqual({ holdId: voided.holdId, status: 'voided' });
    expect(await v.findHold(newKey('never-used'))).toBeNull();
  });

  test('getHold reads the intent by id (no search) through held, captured and voided; an unknown id is null', async () => {
    const v = vendor();
    const captured = await heldIntent(v);
    const voided = await heldIntent(v);
    stub.clearRequests();
    expect(await v.getHold(captured.holdId)).toEqual({ holdId: captured.holdId, status: 'held' });
    expect(stub.find('GET', `/v1/payment_intents/${captured.holdId}`)).toHaveLength(1);
    expect(stub.find('GET', '/v1/payment_intents/search')).toHaveLength(0);
    await v.capture(captured.holdId);
    expect(await v.getHold(captured.holdId)).toEqual({ holdId: captured.holdId, status: 'captured' });
    await v.voidHold(voided.holdId);
    expect(await v.getHold(voided.holdId)).toEqual({ holdId: voided.holdId, status: 'voided' });
    expect(await v.getHold('pi_doesnotexist')).toBeNull();
  });

  test('findHold ignores an intent that was refused under the key', async () => {
    const v = vendor();
    const token = await verifiedToken(v, TEST_CARDS.visa);
    const key = newKey('hold');
    // The intent exists (requires_payment_method) but never held anything.
    const pm = stub.objects.get(token);
    if (pm) pm._number = TEST_CARDS.declined;
    await rejection(v.hold(token, 500, { idempotencyKey: key, description: 'share' }));
    expect(await v.findHold(key)).toBeNull();
  });

  test('search queries escape quotes and backslashes', () => {
    expect(metadataQuery('bpay_idempotency_key', "o'brien\\x")).toBe("metadata['bpay_idempotency_key']:'o\\'brien\\\\x'");
  });

  test('capture posts to the intent with key capture:<holdId>; capturing twice is a no-op', async () => {
    const v = vendor();
    const { holdId } = await heldIntent(v, 4_200);
    stub.clearRequests();
    await v.capture(holdId);
    const [capture] = stub.find('POST', `/v1/payment_intents/${holdId}/capture`);
    expect(capture?.idempotencyKey).toBe(`capture:${holdId}`);
    expect(stub.objects.get(holdId)?.status).toBe('succeeded');
    await v.capture(holdId);
  });

  test('capturing a hold that was released is refused', async () => {
    const v = vendor();
    const { holdId } = await heldIntent(v);
    await v.voidHold(holdId);
    expect(await declineCode(v.capture(holdId))).toBe('processing_error');
  });

  test('voidHold cancels the intent; voiding a voided hold is a no-op', async () => {
    const v = vendor();
    const { holdId } = await heldIntent(v);
    stub.clearRequests();
    await v.voidHold(holdId);
    const [cancel] = stub.find('POST', `/v1/payment_intents/${holdId}/cancel`);
    expect(cancel?.idempotencyKey).toBe(`void:${holdId}`);
    expect(stub.objects.get(holdId)?.status).toBe('canceled');
    await v.voidHold(holdId); // replayed by key
  });

  test('voiding an intent cancelled elsewhere (400 payment_intent_unexpected_state) is a no-op', async () => {
    const v = vendor();
    const { holdId } = await heldIntent(v);
    const pi = stub.objects.get(holdId);
    if (pi) pi.status = 'canceled'; // e.g. Stripe released it after seven days
    stub.clearRequests();
    await v.voidHold(holdId);
    expect(stub.find('POST', `/v1/payment_intents/${holdId}/cancel`)).toHaveLength(1);
    expect(stub.find('GET', `/v1/payment_intents/${holdId}`)).toHaveLength(1);
  });

  test('voiding a captured hold is an error, not a silent success', async () => {
    const v = vendor();
    const { holdId } = await heldIntent(v);
    await v.capture(holdId);
    expect(await rejection(v.voidHold(holdId))).toBeInstanceOf(StripeIntegrationError);
  });

  test('refund creates one refund for the intent under the key; repeating it is a no-op', async () => {
    const v = vendor();
    const { holdId } = await heldIntent(v, 3_000);
    await v.capture(holdId);
    stub.clearRequests();
    const key = newKey('refund');
    await v.refund(holdId, 1_250, { idempotencyKey: key });
    expect(stub.find('GET', '/v1/refunds')[0]?.query.get('payment_intent')).toBe(holdId);
    const [create] = stub.find('POST', '/v1/refunds');
    expect(create?.idempotencyKey).toBe(`${key}:refund`);
    expect(Object.fromEntries(create?.form ?? [])).toMatchObject({ payment_intent: holdId, amount: '1250', 'metadata[bpay_idempotency_key]': key });

    await v.refund(holdId, 1_250, { idempotencyKey: key });
    expect(stub.find('POST', '/v1/refunds')).toHaveLength(1);
    expect([...stub.objects.values()].filter((o) => o.object === 'refund' && o.payment_intent === holdId)).toHaveLength(1);
  });
});

describe('issued cards', () => {
  test('issueCard creates a cardholder and an active single-use virtual card limited to the amount', async () => {
    const key = newKey('bcard');
    const expiresAt = new Date('2031-01-02T03:04:05.000Z');
    const issued = await vendor().issueCard({ limitCents: 12_345, expiresAt, cardholderName: 'Zoë Ångström-Lee 3rd', singleUse: true, idempotencyKey: key });

    const [holder] = stub.find('POST', '/v1/issuing/cardholders');
    expect(holder?.idempotencyKey).toBe(`${key}:cardholder`);
    expect(Object.fromEntries(holder?.form ?? [])).toMatchObject({
      type: 'individual',
      name: 'Zoe Angstrom Lee rd',
      'individual[first_name]': 'Zoe',
      'individual[last_name]': 'rd',
      'billing[address][line1]': '1 Market Street',
      'billing[address][city]': 'San Francisco',
      'billing[address][state]': 'CA',
      'billing[address][postal_code]': '94105',
      'billing[address][country]': 'US',
    });

    const [create] = stub.find('POST', '/v1/issuing/cards');
    expect(create?.idempotencyKey).toBe(`${key}:card`);
    expect(Object.fromEntries(create?.form ?? [])).toMatchObject({
      type: 'virtual',
      currency: 'usd',
      status: 'active',
      'spending_controls[spending_limits][0][amount]': '12345',
      'spending_controls[spending_limits][0][interval]': 'all_time',
      'lifecycle_controls[cancel_after][payment_count]': '1',
      'metadata[bpay_expires_at]': '2031-01-02T03:04:05.000Z',
    });
    expect(create?.form.get('cardholder')).toMatch(/^ich_/);

    expect(issued.cardId).toMatch(/^ic_/);
    expect(issued.brand).toBe('visa'); // Issuing says "Visa"
    expect(issued.last4).toMatch(/^\d{4}$/);
    expect(issued.expYear).toBeGreaterThan(2025);
  });

  test('a billing address can be configured', async () => {
    const billing = { line1: '5 Pier', city: 'Oakland', state: 'CA', postal_code: '94607', country: 'US' };
    await vendor({ billing }).issueCard({ limitCents: 100, expiresAt: new Date(Date.now() + 3_600_000), cardholderName: 'Ada Lovelace', singleUse: true, idempotencyKey: newKey('bcard') });
    expect(stub.find('POST', '/v1/issuing/cardholders')[0]?.form.get('billing[address][line1]')).toBe('5 Pier');
  });

  test('names are made printable for Issuing (letters and spaces, 24 characters at most)', () => {
    expect(issuingName('Ada Lovelace')).toEqual({ full: 'Ada Lovelace', first: 'Ada', last: 'Lovelace' });
    expect(issuingName('محمد علي').full).toBe('bpay Cardholder');
    expect(issuingName('Maximilian Alexander Christopher Featherstonehaugh').full.length).toBeLessThanOrEqual(24);
  });

  test('revealCard expands number and cvc', async () => {
    const v = vendor();
    const { cardId, expMonth, expYear } = await v.issueCard({ limitCents: 5_000, expiresAt: new Date(Date.now() + 3_600_000), cardholderName: 'Ada Lovelace', singleUse: true, idempotencyKey: newKey('bcard') });
    stub.clearRequests();
    const revealed = await v.revealCard(cardId);
    const [get] = stub.find('GET', `/v1/issuing/cards/${cardId}`);
    expect([get?.query.get('expand[0]'), get?.query.get('expand[1]')]).toEqual(['number', 'cvc']);
    expect(revealed).toEqual({ number: String(stub.objects.get(cardId)?._number), expMonth, expYear, cvc: String(stub.objects.get(cardId)?._cvc) });
    expect(revealed.number).toMatch(/^\d{16}$/);
  });

  test('deactivateCard cancels the card; doing it again is a no-op', async () => {
    const v = vendor();
    const { cardId } = await v.issueCard({ limitCents: 5_000, expiresAt: new Date(Date.now() + 3_600_000), cardholderName: 'Ada Lovelace', singleUse: true, idempotencyKey: newKey('bcard') });
    stub.clearRequests();
    await v.deactivateCard(cardId);
    const [update] = stub.find('POST', `/v1/issuing/cards/${cardId}`);
    expect(update?.form.get('status')).toBe('canceled');
    expect(update?.idempotencyKey).toBe(`deactivate:${cardId}`);
    expect(stub.objects.get(cardId)?.status).toBe('canceled');
    await v.deactivateCard(cardId);
    // Cancelled elsewhere (Stripe's single-use control): Stripe refuses the update, which is still success.
    const { cardId: other } = await v.issueCard({ limitCents: 5_000, expiresAt: new Date(Date.now() + 3_600_000), cardholderName: 'Ada Lovelace', singleUse: true, idempotencyKey: newKey('bcard') });
    const c = stub.objects.get(other);
    if (c) c.status = 'canceled';
    await v.deactivateCard(other);
  });
});

describe('error mapping', () => {
  const visaInMessage = `Card ${TEST_CARDS.visa} / ${TEST_CARDS.visa.replace(/(\d{4})(?=\d)/g, '$1 ')}`;
  const rows: { name: string; answer: StubAnswer; expect: 'unavailable' | 'plain' | DeclineCode; declineCode?: string }[] = [
    { name: '402 card_declined', answer: stripeError(402, { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: `${visaInMessage} was declined.` }), expect: 'card_declined', declineCode: 'generic_decline' },
    { name: '402 insufficient_funds (decline_code)', answer: stripeError(402, { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' }), expect: 'insufficient_funds', declineCode: 'insufficient_funds' },
    { name: '402 expired_card', answer: stripeError(402, { type: 'card_error', code: 'expired_card', message: 'Your card has expired.', param: 'exp_month' }), expect: 'expired_card' },
    { name: '402 incorrect_cvc', answer: stripeError(402, { type: 'card_error', code: 'incorrect_cvc', message: "Your card's security code is incorrect.", param: 'cvc' }), expect: 'incorrect_cvc' },
    { name: '402 incorrect_number', answer: stripeError(402, { type: 'card_error', code: 'incorrect_number', message: `${visaInMessage} is incorrect.`, param: 'number' }), expect: 'incorrect_number' },
    { name: '402 authentication_required', answer: stripeError(402, { type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required', message: 'Authenticate.' }), expect: 'authentication_required', declineCode: 'authentication_required' },
    { name: '402 unknown code', answer: stripeError(402, { type: 'card_error', code: 'card_velocity_exceeded', message: 'Too many.' }), expect: 'card_declined' },
    { name: '500 api_error', answer: stripeError(500, { type: 'api_error', message: `Internal error with ${visaInMessage}` }), expect: 'unavailable' },
    { name: '502 HTML page from a proxy', answer: { status: 502, body: '<html><body>Bad gateway</body></html>' }, expect: 'unavailable' },
    { name: '429 rate limit', answer: stripeError(429, { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests.' }), expect: 'unavailable' },
    { name: '409 key in use', answer: stripeError(409, { type: 'invalid_request_error', code: 'idempotency_key_in_use', message: 'In use.' }), expect: 'unavailable' },
    { name: '401 authentication', answer: stripeError(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${SECRET}` }), expect: 'plain' },
    { name: '403 permission', answer: stripeError(403, { type: 'invalid_request_error', message: 'The provided key does not have access.' }), expect: 'plain' },
    { name: '400 invalid request', answer: stripeError(400, { type: 'invalid_request_error', code: 'parameter_unknown', param: 'foo', message: 'Received unknown parameter: foo' }), expect: 'plain' },
    { name: '400 idempotency_error', answer: stripeError(400, { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters.' }), expect: 'plain' },
  ];

  test.each(rows)('$name', async (row) => {
    stub.override({ method: 'POST', path: '/v1/payment_methods' }, row.answer);
    const err = await rejection(vendor().verifyCard(card(), { idempotencyKey: newKey('err'), customerRef: 'user-1' }));
    if (row.expect === 'unavailable') expect(err).toBeInstanceOf(VendorUnavailableError);
    else if (row.expect === 'plain') {
      expect(err).toBeInstanceOf(StripeIntegrationError);
      expect(err.message).toContain('Stripe refused the request');
    } else {
      expect(err).toBeInstanceOf(VendorDeclineError);
      expect((err as VendorDeclineError).code).toBe(row.expect);
      expect((err as VendorDeclineError).declineCode).toBe(row.declineCode);
    }
  });

  test('connection refused is VendorUnavailableError', async () => {
    const err = await rejection(vendor({ port: closedPort }).verifyCard(card(), { idempotencyKey: newKey('down'), customerRef: 'user-1' }));
    expect(err).toBeInstanceOf(VendorUnavailableError);
  });

  test('a request Stripe does not answer within timeoutMs is VendorUnavailableError', async () => {
    const v = vendor({ timeoutMs: 150 });
    const token = await verifiedToken(v);
    stub.override({ method: 'POST', path: '/v1/payment_intents' }, 'hang');
    const started = performance.now();
    expect(await rejection(v.hold(token, 1_000, { idempotencyKey: newKey('slow'), description: 'share' }))).toBeInstanceOf(VendorUnavailableError);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test('a 5xx whose JSON has no error object is not taken for a hold', async () => {
    // The SDK hands back any JSON body without `error` as a success, whatever the status.
    const v = vendor();
    const token = await verifiedToken(v);
    stub.override({ method: 'POST', path: '/v1/payment_intents' }, { status: 503, body: { message: 'upstream unavailable' } });
    expect(await rejection(v.hold(token, 1_000, { idempotencyKey: newKey('hold'), description: 'share' }))).toBeInstanceOf(VendorUnavailableError);
  });

  test('anything else thrown while calling Stripe is an unknown outcome; bpay’s own integration errors stay 500s', () => {
    // e.g. the SDK tripping over a body it did not expect after the request was carried out
    expect(toVendorError(new TypeError('Properties can only be defined on Objects.'))).toBeInstanceOf(VendorUnavailableError);
    const own = new StripeIntegrationError('bad configuration');
    expect(toVendorError(own)).toBe(own);
    const decline = new VendorDeclineError('card_declined', 'no');
    expect(toVendorError(decline)).toBe(decline);
  });

  test('redact removes card numbers and API keys', () => {
    expect(redact(`x ${TEST_CARDS.visa} y 4242 4242 4242 4242 z 4242-4242-4242-4242 ${SECRET}`)).toBe('x [redacted] y [redacted] z [redacted] [redacted key]');
    expect(redact('amount 2500 on pi_123')).toBe('amount 2500 on pi_123');
  });
});

describe('checkStripeCredentials', () => {
  const at = () => ({ host: 'localhost', port: stub.port, protocol: 'http' as const });

  test('ok with a working key, through a read-only call', async () => {
    expect(await checkStripeCredentials(SECRET, at())).toEqual({ ok: true });
    expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/balance']);
  });

  test('a rejected key fails with a message that does not repeat it', async () => {
    const wrong = 'sk_test_wrongwrongwrong';
    const result = await checkStripeCredentials(wrong, at());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('rejected');
    expect(result.message).not.toContain(wrong);
  });

  test('unreachable Stripe, publishable and empty keys fail', async () => {
    const down = await checkStripeCredentials(SECRET, { ...at(), port: closedPort, timeoutMs: 1_000 });
    expect(down).toMatchObject({ ok: false });
    expect(await checkStripeCredentials('pk_test_abc', at())).toMatchObject({ ok: false });
    expect(await checkStripeCredentials('  ', at())).toMatchObject({ ok: false });
  });
});
