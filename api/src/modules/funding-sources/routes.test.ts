import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { call, makeTestApp, type CallResult, type TestContext } from '../../../test-support/app';
import { bcardCard, createMerchant, postCard, cardBody, registerUser, setKycVerified, setTier } from '../../../test-support/world';

/*
 * POST/GET/PATCH/DELETE /api/funding-sources: every rule of spec §5 and the server's own (Luhn, a future expiry,
 * the account-name rule, the plan's limit), the card_error answer of each declining test card, 3-D Secure, and
 * the promise that only a token, brand, last 4, expiry and name are kept. The clock starts on 2026-01-15.
 */

const FS = '/api/funding-sources';
const VISA = '4242424242424242';
const MASTERCARD = '5555555555554444';
const AMEX = '378282246310005';
const THREE_DS = '4000002760003184';

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string | null): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  expect(typeof res.body.error.message).toBe('string');
  if (param !== undefined) expect(res.body.error.param).toBe(param ?? undefined);
}

const list = async (ctx: TestContext, cookie: string) => {
  const res = await call(ctx, FS, { cookie });
  expect(res.status).toBe(200);
  return res.body as Array<Record<string, any>>;
};

interface Row {
  name: string;
  request: { body?: unknown; rawBody?: string; headers?: Record<string, string>; auth?: boolean; origin?: string };
  expectStatus: number;
  expectCode: ErrorCode;
  expectParam?: string | null;
}

describe('POST /api/funding-sources: validation', () => {
  let ctx: TestContext;
  let cookie: string;
  beforeAll(async () => {
    ctx = await makeTestApp();
    cookie = (await registerUser(ctx)).cookie;
  });
  afterAll(() => {
    ctx.close();
  });

  const body = (over: Record<string, unknown>, number = VISA) => ({ body: cardBody(number, over), auth: true });
  const rows: Row[] = [
    { name: 'number with a letter', request: body({ cardNumber: '4242abcd42424242' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cardNumber' },
    { name: 'number of 11 digits', request: body({ cardNumber: '42424242424' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cardNumber' },
    { name: 'number of 20 digits', request: body({ cardNumber: '42424242424242424242' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cardNumber' },
    { name: 'number failing Luhn', request: body({ cardNumber: '4242424242424241' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cardNumber' },
    { name: 'number missing', request: body({ cardNumber: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cardNumber' },
    { name: 'number as a JSON number', request: body({ cardNumber: 4242424242424242 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cardNumber' },
    { name: 'month 0', request: body({ expiryMonth: '0' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryMonth' },
    { name: 'month 00', request: body({ expiryMonth: '00' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryMonth' },
    { name: 'month 13', request: body({ expiryMonth: 13 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryMonth' },
    { name: 'month is text', request: body({ expiryMonth: 'ab' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryMonth' },
    { name: 'expired last month (12/2025)', request: body({ expiryMonth: '12', expiryYear: '2025' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryYear' },
    { name: 'expired in a past year (06/2024)', request: body({ expiryMonth: '06', expiryYear: '2024' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryYear' },
    { name: 'expired, 2-digit year (12/25)', request: body({ expiryMonth: '12', expiryYear: '25' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryYear' },
    { name: 'year 1999', request: body({ expiryYear: '1999' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryYear' },
    { name: 'year of 5 digits', request: body({ expiryYear: '20300' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryYear' },
    { name: "year '-1'", request: body({ expiryYear: '-1' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryYear' },
    { name: 'month of 6 digits', request: body({ expiryMonth: '123456' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryMonth' },
    { name: 'month 1.5', request: body({ expiryMonth: 1.5 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'expiryMonth' },
    { name: 'cvv of 2 digits', request: body({ cvv: '12' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cvv' },
    { name: 'cvv of 5 digits', request: body({ cvv: '12345' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cvv' },
    { name: 'cvv with a letter', request: body({ cvv: '12a' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cvv' },
    { name: 'cvv of 3 digits on an amex (37…)', request: body({ cvv: '123' }, AMEX), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cvv' },
    { name: 'cvv of 3 digits on an amex (34…)', request: body({ cvv: '123' }, '343434343434343'), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cvv' },
    { name: 'cvv of 4 digits on a visa', request: body({ cvv: '1234' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cvv' },
    { name: 'cvv of 4 digits on a mastercard', request: body({ cvv: '1234' }, MASTERCARD), expectStatus: 400, expectCode: 'validation_error', expectParam: 'cvv' },
    { name: 'empty name', request: body({ name: '' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'name' },
    { name: 'blank name', request: body({ name: '   ' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'name' },
    { name: 'name over 100 characters', request: body({ name: 'A'.repeat(101) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'name' },
    { name: 'split -1', request: body({ defaultSplitPercentage: -1 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'defaultSplitPercentage' },
    { name: 'split 101', request: body({ defaultSplitPercentage: 101 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'defaultSplitPercentage' },
    { name: "split 'abc'", request: body({ defaultSplitPercentage: 'abc' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'defaultSplitPercentage' },
    { name: 'split missing', request: body({ defaultSplitPercentage: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'defaultSplitPercentage' },
    { name: "type other than 'credit_card'", request: body({ type: 'bank_account' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'type' },
    { name: 'unknown field', request: body({ pin: '1234' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'pin' },
    { name: 'body is not JSON', request: { rawBody: '{"cardNumber":', headers: { 'content-type': 'application/json' }, auth: true }, expectStatus: 400, expectCode: 'invalid_json' },
    { name: 'text/plain body', request: { rawBody: JSON.stringify(cardBody()), headers: { 'content-type': 'text/plain' }, auth: true }, expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'form-encoded body', request: { rawBody: 'cardNumber=4242424242424242', headers: { 'content-type': 'application/x-www-form-urlencoded' }, auth: true }, expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'no session cookie', request: { body: cardBody() }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'a forged session cookie', request: { body: cardBody(), headers: { cookie: 'bpay_session=forged' } }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'cross-site Origin', request: { body: cardBody(), auth: true, origin: 'https://evil.example' }, expectStatus: 403, expectCode: 'cross_site_request' },
    { name: 'Sec-Fetch-Site cross-site', request: { body: cardBody(), auth: true, headers: { 'sec-fetch-site': 'cross-site' } }, expectStatus: 403, expectCode: 'cross_site_request' },
  ];

  for (const row of rows) {
    test(`${row.name} -> ${row.expectStatus} ${row.expectCode}`, async () => {
      const res = await call(ctx, FS, {
        method: 'POST',
        body: row.request.body,
        rawBody: row.request.rawBody,
        headers: row.request.headers,
        cookie: row.request.auth ? cookie : null,
        origin: row.request.origin,
      });
      expectError(res, row.expectStatus, row.expectCode, row.expectParam);
      // An error never repeats the card number or the CVV it was sent.
      expect(res.text).not.toContain(VISA);
      expect(res.text).not.toContain('"123"');
    });
  }

  test('none of the refused requests stored anything', async () => {
    expect(await list(ctx, cookie)).toEqual([]);
  });
});

describe('POST /api/funding-sources: test cards the processor refuses', () => {
  let ctx: TestContext;
  let cookie: string;
  beforeAll(async () => {
    ctx = await makeTestApp();
    cookie = (await registerUser(ctx)).cookie;
  });
  afterAll(() => {
    ctx.close();
  });

  const declines: Array<[string, ErrorCode]> = [
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error'],
  ];
  for (const [number, code] of declines) {
    test(`${number} -> 402 card_error ${code}`, async () => {
      const res = await postCard(ctx, cookie, number);
      expectError(res, 402, code);
      expect(res.body.error.type).toBe('card_error');
      expect(res.text).not.toContain(number);
    });
  }

  test('a refused card is not stored and does not count towards the limit', async () => {
    expect(await list(ctx, cookie)).toEqual([]);
    expect((await postCard(ctx, cookie)).status).toBe(201);
    expect((await postCard(ctx, cookie, MASTERCARD)).status).toBe(201);
  });

  test('4000000000000341 verifies (its charges fail later)', async () => {
    const other = await registerUser(ctx);
    const res = await postCard(ctx, other.cookie, '4000000000000341');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ last4: '0341', brand: 'visa', balance: '10000.00' });
  });
});

describe('POST /api/funding-sources: success', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => {
    ctx.close();
  });

  /** One premium user for every success case, so the plan's limit never interferes. */
  let shared: Promise<{ cookie: string }> | null = null;
  function premiumUser() {
    shared ??= (async () => {
      const u = await registerUser(ctx);
      await setTier(ctx, u.user.id, 'tier_premium');
      return u;
    })();
    return shared;
  }

  test('201 with the stored view: token-only, brand and last 4 computed by the server, $10,000.00 available', async () => {
    const u = await premiumUser();
    const res = await postCard(ctx, u.cookie, VISA, { brand: 'amex', last4: '0000', cvv: '917' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^fs_/),
      name: 'Ada Lovelace',
      type: 'credit_card',
      funding: 'credit',
      last4: '4242',
      brand: 'visa',
      expiryMonth: 12,
      expiryYear: 2030,
      defaultSplitPercentage: 50,
      isActive: true,
      balance: '10000.00',
      bankAccount: null,
      createdAt: ctx.clock.now().toISOString(),
    });
    expect(res.text).not.toContain(VISA);
    // The CVV nowhere (the random id aside: '917' turns up in about one id in twenty).
    expect(res.text.replace(res.body.id, '')).not.toContain('917');
    expect(res.text).not.toMatch(/cardNumber|cvv/i);
    const row = await ctx.handle.db.query.fundingSources.findFirst({ where: eq(schema.fundingSources.id, res.body.id) });
    expect(row).toMatchObject({ brand: 'visa', last4: '4242', vendor: 'simulated', vendorToken: expect.stringMatching(/^sim_pm_/) });
    expect(JSON.stringify(row)).not.toContain(VISA);
  });

  const brands: Array<[string, string, string]> = [
    [MASTERCARD, 'mastercard', '4444'],
    [AMEX, 'amex', '0005'],
    ['343434343434343', 'amex', '4343'],
    ['6011111111111117', 'unknown', '1117'], // Discover: the spec knows four brands
    ['3056930009020004', 'unknown', '0004'],
  ];
  for (const [number, brand, last4] of brands) {
    test(`brand of ${number.slice(0, 2)}… is ${brand}`, async () => {
      const u = await premiumUser();
      const res = await postCard(ctx, u.cookie, number, { brand: 'visa' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ brand, last4 });
    });
  }

  // The processor's funding decides the type, whatever type the card was sent with (the simulator's BIN ranges).
  const fundings: Array<[string, string, string, string]> = [
    ['4000056655665556', 'credit_card', 'debit', 'debit_card'],
    ['5200828282828210', 'debit_card', 'debit', 'debit_card'],
    ['5105105105105100', 'credit_card', 'prepaid', 'prepaid_card'],
    ['5555555555554444', 'debit_card', 'credit', 'credit_card'],
  ];
  for (const [number, sentType, funding, type] of fundings) {
    test(`${number.slice(0, 6)}… sent as ${sentType} is stored and answered as ${type} (funding ${funding})`, async () => {
      const u = await premiumUser();
      const res = await postCard(ctx, u.cookie, number, { type: sentType });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ type, funding, bankAccount: null });
      const row = await ctx.handle.db.query.fundingSources.findFirst({ where: eq(schema.fundingSources.id, res.body.id) });
      expect(row).toMatchObject({ type, cardFunding: funding });
      const listed = await call(ctx, '/api/funding-sources', { cookie: u.cookie });
      expect(listed.body.find((s: { id: string }) => s.id === res.body.id)).toMatchObject({ type, funding });
    });
  }

  test('a number grouped with spaces or dashes is accepted', async () => {
    const u = await premiumUser();
    const spaced = await postCard(ctx, u.cookie, '4242 4242 4242 4242');
    expect(spaced.status).toBe(201);
    expect(spaced.body.last4).toBe('4242');
    const dashed = await postCard(ctx, u.cookie, '5555-5555-5555-4444');
    expect(dashed.status).toBe(201);
    expect(dashed.body).toMatchObject({ last4: '4444', brand: 'mastercard' });
  });

  test('a 2-digit year is 20YY; numeric month and year are accepted; the current month has not expired', async () => {
    const u = await premiumUser();
    const two = await postCard(ctx, u.cookie, VISA, { expiryMonth: '03', expiryYear: '28' });
    expect(two.status).toBe(201);
    expect(two.body).toMatchObject({ expiryMonth: 3, expiryYear: 2028 });
    const nums = await postCard(ctx, u.cookie, VISA, { expiryMonth: 7, expiryYear: 31 });
    expect(nums.status).toBe(201);
    expect(nums.body).toMatchObject({ expiryMonth: 7, expiryYear: 2031 });
    // The clock is on 2026-01-15: a card expiring 01/26 is good through the end of January.
    const current = await postCard(ctx, u.cookie, VISA, { expiryMonth: '01', expiryYear: '2026' });
    expect(current.status).toBe(201);
    expect(current.body).toMatchObject({ expiryMonth: 1, expiryYear: 2026 });
  });

  test('split 0 and 100 are accepted, 33.33 is kept to the hundredth', async () => {
    const u = await premiumUser();
    for (const split of [0, 100, 33.33]) {
      const res = await postCard(ctx, u.cookie, VISA, { defaultSplitPercentage: split });
      expect(res.status).toBe(201);
      expect(res.body.defaultSplitPercentage).toBe(split);
    }
  });

  test('the cardholder name is trimmed and its inner spaces collapsed', async () => {
    const u = await premiumUser();
    const res = await postCard(ctx, u.cookie, VISA, { name: '  Ada    Lovelace ' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Ada Lovelace');
  });

  test('the $1.00 verification hold is placed and released: one voided 100-cent hold, nothing taken', async () => {
    const u = await premiumUser();
    const res = await postCard(ctx, u.cookie);
    expect(res.status).toBe(201);
    const source = await ctx.handle.db.query.fundingSources.findFirst({ where: eq(schema.fundingSources.id, res.body.id) });
    const holds = await ctx.handle.db.select().from(schema.simHolds).where(eq(schema.simHolds.token, source!.vendorToken));
    expect(holds).toEqual([expect.objectContaining({ amountCents: 100, status: 'voided', refundedCents: 0 })]);
    const card = await ctx.handle.db.query.simCards.findFirst({ where: eq(schema.simCards.token, source!.vendorToken) });
    expect(card!.availableCents).toBe(1_000_000);
    expect((await list(ctx, u.cookie)).find((s) => s.id === res.body.id)!.balance).toBe('10000.00');
  });
});

describe('POST /api/funding-sources: 3-D Secure', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => {
    ctx.close();
  });
  const complete = (cookie: string, id: string, code: unknown) =>
    call(ctx, `${FS}/verifications/${id}`, { method: 'POST', body: { code }, cookie });

  test('202 requires_action, nothing stored; the right code completes it with 201 and the verification hold', async () => {
    const u = await registerUser(ctx);
    const started = await postCard(ctx, u.cookie, THREE_DS, { defaultSplitPercentage: 40 });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ status: 'requires_action', verificationId: expect.stringMatching(/^cv_/), message: expect.any(String) });
    expect(started.text).not.toContain(THREE_DS);
    expect(await list(ctx, u.cookie)).toEqual([]);

    const done = await complete(u.cookie, started.body.verificationId, '123456');
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ last4: '3184', brand: 'visa', name: 'Ada Lovelace', defaultSplitPercentage: 40, balance: '10000.00' });
    const listed = await list(ctx, u.cookie);
    expect(listed.map((s) => s.id)).toEqual([done.body.id]);

    const source = await ctx.handle.db.query.fundingSources.findFirst({ where: eq(schema.fundingSources.id, done.body.id) });
    const holds = await ctx.handle.db.select().from(schema.simHolds).where(eq(schema.simHolds.token, source!.vendorToken));
    expect(holds).toEqual([expect.objectContaining({ amountCents: 100, status: 'voided' })]);

    // Completing it again answers the same source and adds nothing.
    const again = await complete(u.cookie, started.body.verificationId, '123456');
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(done.body.id);
    expect(await list(ctx, u.cookie)).toHaveLength(1);
  });

  test('five completions sent at once add the card once, and all answer that one source', async () => {
    const u = await registerUser(ctx);
    const started = await postCard(ctx, u.cookie, THREE_DS);
    const answers = await Promise.all(Array.from({ length: 5 }, () => complete(u.cookie, started.body.verificationId, '123456')));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect((await list(ctx, u.cookie)).map((s) => s.id)).toEqual([answers[0]!.body.id]);
  });

  test("'000000' fails with 402 authentication_failed; completing the failed one again is 409", async () => {
    const u = await registerUser(ctx);
    const started = await postCard(ctx, u.cookie, THREE_DS);
    expect(started.status).toBe(202);
    const failed = await complete(u.cookie, started.body.verificationId, '000000');
    expectError(failed, 402, 'authentication_failed');
    expect(failed.body.error.type).toBe('card_error');
    const second = await complete(u.cookie, started.body.verificationId, '123456');
    expectError(second, 409, 'verification_not_pending');
    expect(await list(ctx, u.cookie)).toEqual([]);
  });

  test("another user's verification id is 404, and stays usable by its owner", async () => {
    const owner = await registerUser(ctx);
    const intruder = await registerUser(ctx);
    const started = await postCard(ctx, owner.cookie, THREE_DS);
    expectError(await complete(intruder.cookie, started.body.verificationId, '123456'), 404, 'resource_not_found');
    expectError(await complete(intruder.cookie, 'cv_doesnotexist', '123456'), 404, 'resource_not_found');
    expect(await list(ctx, intruder.cookie)).toEqual([]);
    expect((await complete(owner.cookie, started.body.verificationId, '654321')).status).toBe(201);
  });

  test('a challenge older than 15 minutes is 409; a malformed code is 400 param code; no cookie is 401', async () => {
    const u = await registerUser(ctx);
    const started = await postCard(ctx, u.cookie, THREE_DS);
    expectError(await complete(u.cookie, started.body.verificationId, '12345'), 400, 'validation_error', 'code');
    expectError(await complete(u.cookie, started.body.verificationId, 123456), 400, 'validation_error', 'code');
    expectError(
      await call(ctx, `${FS}/verifications/${started.body.verificationId}`, { method: 'POST', body: { code: '123456' } }),
      401,
      'unauthenticated',
    );
    ctx.clock.advance(15 * 60_000 + 1);
    expectError(await complete(u.cookie, started.body.verificationId, '123456'), 409, 'verification_not_pending');
  });
});

describe('POST /api/funding-sources: the account-name rule (spec §5)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => {
    ctx.close();
  });

  test('an unverified account cannot add a card in another name: 400 name_mismatch on name', async () => {
    const u = await registerUser(ctx, { firstName: 'Ada', lastName: 'Lovelace' });
    const res = await postCard(ctx, u.cookie, VISA, { name: 'Grace Hopper' });
    expectError(res, 400, 'name_mismatch', 'name');
    expect(res.body.error.message).toContain('Ada Lovelace');
    expectError(await postCard(ctx, u.cookie, VISA, { name: 'Ada' }), 400, 'name_mismatch', 'name');
    expect(await list(ctx, u.cookie)).toEqual([]);
  });

  test('the match ignores letter case and extra spaces', async () => {
    const u = await registerUser(ctx, { firstName: 'Ada', lastName: 'Lovelace' });
    expect((await postCard(ctx, u.cookie, VISA, { name: ' ada   LOVELACE ' })).status).toBe(201);
  });

  test('the 3-D Secure card is held to the same rule before any challenge', async () => {
    const u = await registerUser(ctx);
    expectError(await postCard(ctx, u.cookie, THREE_DS, { name: 'Grace Hopper' }), 400, 'name_mismatch', 'name');
  });

  test('a verified account may use any name', async () => {
    const u = await registerUser(ctx);
    await setKycVerified(ctx, u.user.id);
    const res = await postCard(ctx, u.cookie, VISA, { name: 'Grace Hopper' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Grace Hopper');
  });

  test('an account with no first and last name gets name_mismatch, whatever the name', async () => {
    const u = await registerUser(ctx, { firstName: '', lastName: '' });
    expectError(await postCard(ctx, u.cookie, VISA, { name: 'Ada Lovelace' }), 400, 'name_mismatch', 'name');
    const half = await registerUser(ctx, { firstName: 'Ada', lastName: '' });
    expectError(await postCard(ctx, half.cookie, VISA, { name: 'Ada' }), 400, 'name_mismatch', 'name');
  });
});

describe("POST /api/funding-sources: the plan's limit", () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => {
    ctx.close();
  });

  async function fill(cookie: string, n: number) {
    for (let i = 0; i < n; i++) {
      const res = await postCard(ctx, cookie, i % 2 ? MASTERCARD : VISA);
      expect(res.status).toBe(201);
    }
  }

  test('free: 2, then 403 funding_source_limit_reached; ID verification makes it 3', async () => {
    const u = await registerUser(ctx);
    await fill(u.cookie, 2);
    const refused = await postCard(ctx, u.cookie);
    expectError(refused, 403, 'funding_source_limit_reached');
    expect(refused.body.error.message).toContain('2');
    // The 3-D Secure card is refused before any challenge.
    expectError(await postCard(ctx, u.cookie, THREE_DS), 403, 'funding_source_limit_reached');
    expect(await list(ctx, u.cookie)).toHaveLength(2);

    await setKycVerified(ctx, u.user.id);
    await fill(u.cookie, 1);
    expectError(await postCard(ctx, u.cookie), 403, 'funding_source_limit_reached');
    expect(await list(ctx, u.cookie)).toHaveLength(3);
  });

  test('a removed source frees its place', async () => {
    const u = await registerUser(ctx);
    await fill(u.cookie, 2);
    const [first] = await list(ctx, u.cookie);
    expect((await call(ctx, `${FS}/${first!.id}`, { method: 'DELETE', cookie: u.cookie })).status).toBe(200);
    expect((await postCard(ctx, u.cookie)).status).toBe(201);
    expectError(await postCard(ctx, u.cookie), 403, 'funding_source_limit_reached');
  });

  test('pro: 5, then 403 (ID verification adds nothing on pro)', async () => {
    const u = await registerUser(ctx);
    await setTier(ctx, u.user.id, 'tier_pro');
    await fill(u.cookie, 5);
    expectError(await postCard(ctx, u.cookie), 403, 'funding_source_limit_reached');
    await setKycVerified(ctx, u.user.id);
    expectError(await postCard(ctx, u.cookie), 403, 'funding_source_limit_reached');
    expect(await list(ctx, u.cookie)).toHaveLength(5);
  });

  test('premium: unlimited', async () => {
    const u = await registerUser(ctx);
    await setTier(ctx, u.user.id, 'tier_premium');
    await fill(u.cookie, 7);
    expect(await list(ctx, u.cookie)).toHaveLength(7);
  });

  test('a 3-D Secure completion also respects the limit', async () => {
    const u = await registerUser(ctx);
    await fill(u.cookie, 1);
    const started = await postCard(ctx, u.cookie, THREE_DS);
    expect(started.status).toBe(202);
    await fill(u.cookie, 1);
    const res = await call(ctx, `${FS}/verifications/${started.body.verificationId}`, {
      method: 'POST',
      body: { code: '123456' },
      cookie: u.cookie,
    });
    expectError(res, 403, 'funding_source_limit_reached');
    expect(await list(ctx, u.cookie)).toHaveLength(2);
  });
});

describe('GET, PATCH and DELETE /api/funding-sources', () => {
  let ctx: TestContext;
  let alice: { cookie: string; id: string };
  let bob: { cookie: string; id: string };
  let aliceSource: Record<string, any>;
  let bobSource: Record<string, any>;

  beforeAll(async () => {
    ctx = await makeTestApp();
    const a = await registerUser(ctx, { firstName: 'Alice', lastName: 'Liddell' });
    const b = await registerUser(ctx, { firstName: 'Bob', lastName: 'Dylan' });
    alice = { cookie: a.cookie, id: a.user.id };
    bob = { cookie: b.cookie, id: b.user.id };
    aliceSource = (await postCard(ctx, alice.cookie, VISA, { name: 'Alice Liddell' })).body;
    bobSource = (await postCard(ctx, bob.cookie, MASTERCARD, { name: 'Bob Dylan' })).body;
  });
  afterAll(() => {
    ctx.close();
  });
  const patch = (cookie: string | null, id: string, body: unknown) => call(ctx, `${FS}/${id}`, { method: 'PATCH', body, cookie });

  test('GET lists only the caller’s sources, oldest first, with their balance', async () => {
    ctx.clock.advance(1000);
    const second = await postCard(ctx, alice.cookie, MASTERCARD, { name: 'Alice Liddell' });
    const mine = await list(ctx, alice.cookie);
    expect(mine.map((s) => s.id)).toEqual([aliceSource.id, second.body.id]);
    expect(mine.every((s) => s.balance === '10000.00')).toBe(true);
    expect(JSON.stringify(mine)).not.toContain(bobSource.id);
    expect((await list(ctx, bob.cookie)).map((s) => s.id)).toEqual([bobSource.id]);
    expectError(await call(ctx, FS), 401, 'unauthenticated');
    await call(ctx, `${FS}/${second.body.id}`, { method: 'DELETE', cookie: alice.cookie });
  });

  const rows: Array<{ name: string; body: unknown; status: number; code?: ErrorCode; param?: string }> = [
    { name: 'empty name', body: { name: '' }, status: 400, code: 'validation_error', param: 'name' },
    { name: 'blank name', body: { name: '   ' }, status: 400, code: 'validation_error', param: 'name' },
    { name: 'name over 100 characters', body: { name: 'x'.repeat(101) }, status: 400, code: 'validation_error', param: 'name' },
    { name: 'split -1', body: { defaultSplitPercentage: -1 }, status: 400, code: 'validation_error', param: 'defaultSplitPercentage' },
    { name: 'split 101', body: { defaultSplitPercentage: 101 }, status: 400, code: 'validation_error', param: 'defaultSplitPercentage' },
    { name: "split 'abc'", body: { defaultSplitPercentage: 'abc' }, status: 400, code: 'validation_error', param: 'defaultSplitPercentage' },
    { name: "isActive 'no'", body: { isActive: 'no' }, status: 400, code: 'validation_error', param: 'isActive' },
    { name: 'unknown field', body: { last4: '1111' }, status: 400, code: 'validation_error', param: 'last4' },
    { name: 'another name on an unverified account', body: { name: 'Grace Hopper' }, status: 400, code: 'name_mismatch', param: 'name' },
  ];
  for (const row of rows) {
    test(`PATCH ${row.name} -> ${row.status} ${row.code}`, async () => {
      const res = await patch(alice.cookie, aliceSource.id, row.body);
      expectError(res, row.status, row.code!, row.param);
      // Nothing changed.
      expect((await list(ctx, alice.cookie))[0]).toMatchObject({ name: 'Alice Liddell', defaultSplitPercentage: 50, isActive: true, last4: '4242' });
    });
  }

  test('PATCH changes the split, pauses and resumes, and renames within the account name', async () => {
    const split = await patch(alice.cookie, aliceSource.id, { defaultSplitPercentage: 25.5 });
    expect(split.status).toBe(200);
    expect(split.body).toMatchObject({ id: aliceSource.id, defaultSplitPercentage: 25.5, isActive: true, balance: '10000.00' });
    const paused = await patch(alice.cookie, aliceSource.id, { isActive: false });
    expect(paused.body.isActive).toBe(false);
    expect((await list(ctx, alice.cookie))[0]!.isActive).toBe(false);
    const resumed = await patch(alice.cookie, aliceSource.id, { isActive: true, defaultSplitPercentage: 50 });
    expect(resumed.body).toMatchObject({ isActive: true, defaultSplitPercentage: 50 });
    const renamed = await patch(alice.cookie, aliceSource.id, { name: '  alice   LIDDELL ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('alice LIDDELL');
    await patch(alice.cookie, aliceSource.id, { name: 'Alice Liddell' });
    const empty = await patch(alice.cookie, aliceSource.id, {});
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ name: 'Alice Liddell', defaultSplitPercentage: 50, isActive: true });
  });

  test('a verified account may rename a source to any name', async () => {
    const u = await registerUser(ctx);
    const s = await postCard(ctx, u.cookie);
    expectError(await patch(u.cookie, s.body.id, { name: 'Grace Hopper' }), 400, 'name_mismatch', 'name');
    await setKycVerified(ctx, u.user.id);
    const res = await patch(u.cookie, s.body.id, { name: 'Grace Hopper' });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Grace Hopper');
  });

  test("another user's source is 404 for PATCH and DELETE, and is left alone", async () => {
    expectError(await patch(alice.cookie, bobSource.id, { isActive: false }), 404, 'resource_not_found');
    expectError(await patch(alice.cookie, bobSource.id, { name: 'Alice Liddell' }), 404, 'resource_not_found');
    expectError(await call(ctx, `${FS}/${bobSource.id}`, { method: 'DELETE', cookie: alice.cookie }), 404, 'resource_not_found');
    expectError(await patch(alice.cookie, 'fs_nope', { isActive: false }), 404, 'resource_not_found');
    expectError(await patch(null, aliceSource.id, { isActive: false }), 401, 'unauthenticated');
    expect(await list(ctx, bob.cookie)).toEqual([expect.objectContaining({ id: bobSource.id, isActive: true, name: 'Bob Dylan' })]);
  });

  test("another user's source is 404 in POST /api/virtual-cards, and nothing is charged", async () => {
    const res = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: alice.cookie,
      body: { name: 'Steal', balance: '10.00', fundingSources: [{ fundingSourceId: bobSource.id, percentage: 100 }] },
    });
    expectError(res, 404, 'resource_not_found');
    expect((await list(ctx, bob.cookie))[0]!.balance).toBe('10000.00');
    const mixed = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: alice.cookie,
      body: {
        name: 'Steal',
        balance: '10.00',
        fundingSources: [
          { fundingSourceId: aliceSource.id, percentage: 50 },
          { fundingSourceId: bobSource.id, percentage: 50 },
        ],
      },
    });
    expectError(mixed, 404, 'resource_not_found');
    expect((await list(ctx, alice.cookie))[0]!.balance).toBe('10000.00');
  });

  test('DELETE answers { id, deleted: true }; the source is gone from GET, a second DELETE is 404', async () => {
    const s = await postCard(ctx, bob.cookie, VISA, { name: 'Bob Dylan' });
    const res = await call(ctx, `${FS}/${s.body.id}`, { method: 'DELETE', cookie: bob.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: s.body.id, deleted: true });
    expect((await list(ctx, bob.cookie)).map((x) => x.id)).toEqual([bobSource.id]);
    expectError(await call(ctx, `${FS}/${s.body.id}`, { method: 'DELETE', cookie: bob.cookie }), 404, 'resource_not_found');
    expectError(await patch(bob.cookie, s.body.id, { isActive: true }), 404, 'resource_not_found');
    // A removed source cannot fund a bcard.
    const bcard = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: bob.cookie,
      body: { name: 'Gone', balance: '10.00', fundingSources: [{ fundingSourceId: s.body.id, percentage: 100 }] },
    });
    expectError(bcard, 404, 'resource_not_found');
  });

  test('DELETE is refused (409) while the source backs an active bcard, and allowed once it is canceled', async () => {
    const s = await postCard(ctx, bob.cookie, VISA, { name: 'Bob Dylan' });
    const bcard = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: bob.cookie,
      body: { name: 'Lunch', balance: '20.00', fundingSources: [{ fundingSourceId: s.body.id, percentage: 100 }] },
    });
    expect(bcard.status).toBe(201);
    expectError(await call(ctx, `${FS}/${s.body.id}`, { method: 'DELETE', cookie: bob.cookie }), 409, 'funding_source_in_use');
    expect((await call(ctx, `/api/virtual-cards/${bcard.body.id}/cancel`, { method: 'POST', cookie: bob.cookie })).status).toBe(200);
    expect((await call(ctx, `${FS}/${s.body.id}`, { method: 'DELETE', cookie: bob.cookie })).status).toBe(200);
  });

  test('DELETE is refused while a merchant holds an uncaptured authorization on a bcard it funds', async () => {
    const carol = await registerUser(ctx, { firstName: 'Carol', lastName: 'King' });
    const s = await postCard(ctx, carol.cookie, VISA, { name: 'Carol King' });
    const { card } = await bcardCard(ctx, carol.cookie, s.body.id, '20.00');
    const shop = await createMerchant(ctx, carol.cookie, 'production');
    const v1 = (path: string, body: unknown) =>
      call(ctx, `/api/v1${path}`, { method: 'POST', body, origin: null, headers: { authorization: `Bearer ${shop.secretKey}` } });
    const pi = await v1('/payment_intents', { amount: 1500, currency: 'usd', capture_method: 'manual' });
    const confirmed = await v1(`/payment_intents/${pi.body.id}/confirm`, { payment_method_data: { type: 'card', card } });
    expect(confirmed.body.status).toBe('requires_capture');
    expectError(await call(ctx, `${FS}/${s.body.id}`, { method: 'DELETE', cookie: carol.cookie }), 409, 'funding_source_in_use');
    expect((await v1(`/payment_intents/${pi.body.id}/capture`, {})).body.status).toBe('succeeded');
    expect((await call(ctx, `${FS}/${s.body.id}`, { method: 'DELETE', cookie: carol.cookie })).status).toBe(200);
  });
});
