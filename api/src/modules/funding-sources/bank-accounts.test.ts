import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { call, makeTestApp, type CallResult, type TestContext } from '../../../test-support/app';
import { addBankAccount, BANK_FAILS_VERIFICATION, BANK_OK, BANK_ROUTING_OK, registerUser, setTier } from '../../../test-support/world';

/*
 * POST /api/funding-sources/bank-accounts and POST /api/funding-sources/:id/verify-microdeposits: the ABA checksum,
 * the account number's length, the holder-name rule, duplicates, the plan's limit, and micro-deposit verification
 * (right, wrong, too many tries, an account that cannot be verified). The account number is never stored.
 */

const BANKS = '/api/funding-sources/bank-accounts';

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

const body = (over: Record<string, unknown> = {}) => ({
  routingNumber: BANK_ROUTING_OK,
  accountNumber: BANK_OK,
  accountType: 'checking',
  name: 'Ada Lovelace',
  defaultSplitPercentage: 50,
  ...over,
});

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp();
});
afterAll(() => ctx.close());

async function premium() {
  const u = await registerUser(ctx);
  await setTier(ctx, u.user.id, 'tier_premium');
  return u;
}

describe('POST /api/funding-sources/bank-accounts: validation', () => {
  const rows: Array<{ name: string; body: Record<string, unknown>; status: number; code: ErrorCode; param?: string }> = [
    { name: 'routing number failing the ABA checksum', body: body({ routingNumber: '110000001' }), status: 400, code: 'validation_error', param: 'routingNumber' },
    { name: 'routing number of 8 digits', body: body({ routingNumber: '11000000' }), status: 400, code: 'validation_error', param: 'routingNumber' },
    { name: 'routing number with a letter', body: body({ routingNumber: '11000000a' }), status: 400, code: 'validation_error', param: 'routingNumber' },
    { name: 'routing number with a bad prefix (checksum fine)', body: body({ routingNumber: '990000000' }), status: 400, code: 'validation_error', param: 'routingNumber' },
    { name: 'account number of 3 digits', body: body({ accountNumber: '123' }), status: 400, code: 'validation_error', param: 'accountNumber' },
    { name: 'account number of 18 digits', body: body({ accountNumber: '123456789012345678' }), status: 400, code: 'validation_error', param: 'accountNumber' },
    { name: 'account number with a letter', body: body({ accountNumber: '00012345678x' }), status: 400, code: 'validation_error', param: 'accountNumber' },
    { name: 'account type other than checking/savings', body: body({ accountType: 'brokerage' }), status: 400, code: 'validation_error', param: 'accountType' },
    { name: 'blank holder name', body: body({ name: '   ' }), status: 400, code: 'validation_error', param: 'name' },
    { name: "someone else's name on an unverified account", body: body({ name: 'Charles Babbage' }), status: 400, code: 'name_mismatch', param: 'name' },
    { name: 'split above 100', body: body({ defaultSplitPercentage: 101 }), status: 400, code: 'validation_error', param: 'defaultSplitPercentage' },
    { name: 'an unknown field', body: body({ cardNumber: '4242424242424242' }), status: 400, code: 'validation_error' },
  ];
  for (const row of rows) {
    test(`${row.name} -> ${row.status} ${row.code}`, async () => {
      const u = await premium();
      const res = await call(ctx, BANKS, { method: 'POST', cookie: u.cookie, body: row.body });
      expectError(res, row.status, row.code, row.param);
      const sources = await ctx.handle.db.query.fundingSources.findMany({ where: eq(schema.fundingSources.userId, u.user.id) });
      expect(sources).toHaveLength(0);
    });
  }

  test('signed out -> 401', async () => {
    expectError(await call(ctx, BANKS, { method: 'POST', body: body() }), 401, 'unauthenticated');
  });

  test('the plan limit counts bank accounts with cards: the free plan refuses a third source', async () => {
    const u = await registerUser(ctx);
    await addBankAccount(ctx, u.cookie, '000000001111', { verify: false });
    await addBankAccount(ctx, u.cookie, '000000002222', { verify: false });
    expectError(await call(ctx, BANKS, { method: 'POST', cookie: u.cookie, body: body() }), 403, 'funding_source_limit_reached');
  });
});

describe('adding and verifying', () => {
  test('201 pending: routing, type, last 4, no expiry, no account number anywhere; the same account twice is 409', async () => {
    const u = await premium();
    const res = await call(ctx, BANKS, { method: 'POST', cookie: u.cookie, body: body({ accountNumber: '0001-2345-6789', accountType: 'savings' }) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^fs_/),
      name: 'Ada Lovelace',
      type: 'bank_account',
      funding: null,
      last4: '6789',
      brand: 'unknown',
      expiryMonth: null,
      expiryYear: null,
      defaultSplitPercentage: 50,
      isActive: true,
      // No balance: bpay cannot know a bank account's (issue 25).
      balance: null,
      bankAccount: { routingNumber: BANK_ROUTING_OK, accountType: 'savings', verificationStatus: 'pending', verificationAttemptsLeft: 3 },
      createdAt: ctx.clock.now().toISOString(),
    });
    expect(res.text).not.toContain(BANK_OK);
    const row = await ctx.handle.db.query.fundingSources.findFirst({ where: eq(schema.fundingSources.id, res.body.id) });
    expect(JSON.stringify(row)).not.toContain(BANK_OK);
    expect(row?.bankFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(row).toMatchObject({ expMonth: 12, expYear: 9999, vendorToken: expect.stringMatching(/^sim_ba_/) });

    const again = await call(ctx, BANKS, { method: 'POST', cookie: u.cookie, body: body() });
    expectError(again, 409, 'funding_source_duplicate', 'accountNumber');
    expect(again.body.error.message).toContain('•••• 6789');
    // Another user may link the same account (a joint account), and a removed one may be linked again.
    const other = await premium();
    expect((await call(ctx, BANKS, { method: 'POST', cookie: other.cookie, body: body() })).status).toBe(201);
    await call(ctx, `/api/funding-sources/${res.body.id}`, { method: 'DELETE', cookie: u.cookie });
    expect((await call(ctx, BANKS, { method: 'POST', cookie: u.cookie, body: body() })).status).toBe(201);
  });

  const verify = (cookie: string, id: string, amounts: unknown) =>
    call(ctx, `/api/funding-sources/${id}/verify-microdeposits`, { method: 'POST', cookie, body: { amounts } });

  test('the right amounts (either order, dollars or cents) verify it; asking again answers it verified', async () => {
    const u = await premium();
    const a = await addBankAccount(ctx, u.cookie, BANK_OK, { verify: false });
    const res = await verify(u.cookie, a.id, ['45', '0.32']);
    expect(res.status).toBe(200);
    expect(res.body.bankAccount).toMatchObject({ verificationStatus: 'verified' });
    expect((await verify(u.cookie, a.id, ['0.01', '0.02'])).body.bankAccount.verificationStatus).toBe('verified');
  });

  test('wrong amounts: 400 with the tries left; the third wrong answer fails it for good, and the right one no longer helps', async () => {
    const u = await premium();
    const a = await addBankAccount(ctx, u.cookie, BANK_OK, { verify: false });
    const first = await verify(u.cookie, a.id, ['0.32', '0.46']);
    expectError(first, 400, 'microdeposit_mismatch', 'amounts');
    expect(first.body.error.message).toContain('2 tries left');
    expect((await verify(u.cookie, a.id, ['0.11', '0.12'])).body.error.message).toContain('1 try left');
    expectError(await verify(u.cookie, a.id, ['0.13', '0.14']), 409, 'bank_verification_failed');
    expectError(await verify(u.cookie, a.id, ['0.32', '0.45']), 409, 'bank_verification_failed');
    const listed = await call(ctx, '/api/funding-sources', { cookie: u.cookie });
    expect(listed.body[0].bankAccount).toMatchObject({ verificationStatus: 'failed', verificationAttemptsLeft: 0 });
  });

  test('an account the bank cannot find (000111111116) fails verification on the first answer', async () => {
    const u = await premium();
    const a = await addBankAccount(ctx, u.cookie, BANK_FAILS_VERIFICATION, { verify: false });
    const res = await verify(u.cookie, a.id, ['0.32', '0.45']);
    expectError(res, 409, 'bank_verification_failed');
    expect(res.body.error.message).toContain('could not find this account');
  });

  test('amounts that are not micro-deposits, a card, another user\'s account', async () => {
    const u = await premium();
    const a = await addBankAccount(ctx, u.cookie, BANK_OK, { verify: false });
    for (const bad of [['1.00', '0.45'], ['0.3', '0.45'], ['abc', '0.45'], ['0.32'], ['0.32', '0.45', '0.01']]) {
      expectError(await verify(u.cookie, a.id, bad), 400, 'validation_error');
    }
    // None of those counted as a try.
    const listed = await call(ctx, '/api/funding-sources', { cookie: u.cookie });
    expect(listed.body[0].bankAccount.verificationAttemptsLeft).toBe(3);
    const other = await premium();
    expectError(await verify(other.cookie, a.id, ['0.32', '0.45']), 404, 'resource_not_found');
  });

  test('concurrent wrong answers cannot get past the limit', async () => {
    const u = await premium();
    const a = await addBankAccount(ctx, u.cookie, BANK_OK, { verify: false });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => verify(u.cookie, a.id, ['0.01', `0.${10 + i}`])));
    const codes = answers.map((r) => r.body.error.code).sort();
    expect(codes.filter((c) => c === 'microdeposit_mismatch')).toHaveLength(2);
    expect(codes.filter((c) => c === 'bank_verification_failed')).toHaveLength(6);
  });
});
