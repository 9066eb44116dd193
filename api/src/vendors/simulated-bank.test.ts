import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { abaRoutingValid } from '../lib/cards';
import { makeTestApp, type TestContext } from '../../test-support/app';
import { createSimulatedVendor, simulatedFundingOf, TEST_CARD_FUNDING_BINS } from './simulated';
import {
  SIM_ACH_SETTLEMENT_MS,
  SIM_BANK_STARTING_BALANCE_CENTS,
  SIM_LOW_BANK_BALANCE_CENTS,
  SIM_MICRODEPOSITS_CENTS,
  TEST_BANK_ACCOUNTS,
} from './simulated-bank';
import { VendorDeclineError, type BankAccountDetails, type PaymentVendor } from './types';

/* The simulated processor's debit/prepaid BIN ranges and its US bank accounts: micro-deposits, debits, returns. */

let ctx: TestContext;
let vendor: PaymentVendor;
let n = 0;
const key = (what: string) => `${what}:${++n}`;
const mandate = { ipAddress: '127.0.0.1', userAgent: 'test' };

beforeAll(async () => {
  ctx = await makeTestApp();
  vendor = createSimulatedVendor(ctx.handle.db, ctx.clock, 'simulated-test-secret');
});
afterAll(() => ctx.close());

const account = (accountNumber: string): BankAccountDetails => ({
  routingNumber: '110000000',
  accountNumber,
  accountType: 'checking',
  name: 'Ada Lovelace',
});

async function declineOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof VendorDeclineError) return e.code;
    throw e;
  }
  throw new Error('expected a decline');
}

async function verifiedAccount(number: string) {
  const added = await vendor.addBankAccount(account(number), { idempotencyKey: key('bank'), customerRef: 'usr', mandate });
  await vendor.verifyMicrodeposits(added.verificationRef, SIM_MICRODEPOSITS_CENTS);
  return added;
}

describe('card funding by BIN', () => {
  test("Stripe's debit and prepaid test cards are debit and prepaid; others are credit", async () => {
    expect(simulatedFundingOf('4000056655665556')).toBe('debit');
    expect(simulatedFundingOf('5200828282828210')).toBe('debit');
    expect(simulatedFundingOf('5105105105105100')).toBe('prepaid');
    expect(simulatedFundingOf('4242424242424242')).toBe('credit');
    expect(Object.keys(TEST_CARD_FUNDING_BINS).sort()).toEqual(['400005', '510510', '520082']);
    const res = await vendor.verifyCard(
      { number: '5105105105105100', expMonth: 12, expYear: 2030, cvc: '123', name: 'Ada Lovelace' },
      { idempotencyKey: key('verify'), customerRef: 'usr' },
    );
    expect(res.status === 'verified' && res.card.funding).toBe('prepaid');
  });
});

describe('the ABA checksum', () => {
  test('accepts real routing numbers and refuses a changed digit or a bad prefix', () => {
    for (const ok of ['110000000', '021000021', '011401533', '091000019', '322271627']) expect(abaRoutingValid(ok)).toBe(true);
    for (const bad of ['110000001', '021000022', '12345678', '1100000000', 'abcdefghi', '000000000'.replace(/^0/, '9')]) {
      expect(abaRoutingValid(bad)).toBe(false);
    }
  });
});

describe('simulated bank accounts', () => {
  test('the test accounts are the documented ones', () => {
    expect(TEST_BANK_ACCOUNTS).toEqual({
      '000123456789': 'normal',
      '000111111116': 'fails_verification',
      '000222222227': 'returns_r01',
      '000999999991': 'low_balance',
    });
    expect(SIM_MICRODEPOSITS_CENTS).toEqual([32, 45]);
  });

  test('micro-deposits: 32 and 45 in either order verify; other amounts are a mismatch that can be retried', async () => {
    const a = await vendor.addBankAccount(account('000123456789'), { idempotencyKey: key('bank'), customerRef: 'usr', mandate });
    expect(a).toEqual({ token: expect.stringMatching(/^sim_ba_/), last4: '6789', verificationRef: a.token });
    expect(await declineOf(vendor.verifyMicrodeposits(a.verificationRef, [32, 46]))).toBe('microdeposit_mismatch');
    expect(await declineOf(vendor.debitBank(a.token, 100, { idempotencyKey: key('d'), description: 'x' }))).toBe('card_declined');
    await vendor.verifyMicrodeposits(a.verificationRef, [45, 32]);
    expect(await vendor.availableBalance(a.token)).toBe(SIM_BANK_STARTING_BALANCE_CENTS);
  });

  test('000111111116 fails verification whatever the amounts, for good', async () => {
    const a = await vendor.addBankAccount(account('000111111116'), { idempotencyKey: key('bank'), customerRef: 'usr', mandate });
    expect(await declineOf(vendor.verifyMicrodeposits(a.verificationRef, SIM_MICRODEPOSITS_CENTS))).toBe('bank_verification_failed');
    expect(await declineOf(vendor.verifyMicrodeposits(a.verificationRef, SIM_MICRODEPOSITS_CENTS))).toBe('bank_verification_failed');
  });

  test('a debit is pending until the settlement window passes, then succeeds; the same key is the same debit', async () => {
    const a = await verifiedAccount('000123456789');
    const k = key('debit');
    const d = await vendor.debitBank(a.token, 2500, { idempotencyKey: k, description: 'x' });
    expect((await vendor.debitBank(a.token, 2500, { idempotencyKey: k, description: 'x' })).debitId).toBe(d.debitId);
    expect(await vendor.availableBalance(a.token)).toBe(SIM_BANK_STARTING_BALANCE_CENTS - 2500);
    expect(await vendor.getBankDebit(d.debitId)).toEqual({ status: 'pending' });
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    expect(await vendor.getBankDebit(d.debitId)).toEqual({ status: 'succeeded' });
    await vendor.refund(d.debitId, 1000, { idempotencyKey: key('refund') });
    expect(await vendor.availableBalance(a.token)).toBe(SIM_BANK_STARTING_BALANCE_CENTS - 1500);
  });

  test('000222222227 verifies, and its debits come back R01 once the window passes', async () => {
    const a = await verifiedAccount('000222222227');
    const d = await vendor.debitBank(a.token, 2500, { idempotencyKey: key('debit'), description: 'x' });
    expect(await vendor.getBankDebit(d.debitId)).toEqual({ status: 'pending' });
    ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
    expect(await vendor.getBankDebit(d.debitId)).toEqual({ status: 'returned', code: 'R01', message: 'Insufficient funds' });
  });

  test('000999999991 has $5.00: a larger debit is refused as insufficient funds', async () => {
    const a = await verifiedAccount('000999999991');
    expect(await vendor.availableBalance(a.token)).toBe(SIM_LOW_BANK_BALANCE_CENTS);
    expect(await declineOf(vendor.debitBank(a.token, 501, { idempotencyKey: key('d'), description: 'x' }))).toBe('insufficient_funds');
    await vendor.debitBank(a.token, 500, { idempotencyKey: key('d'), description: 'x' });
    expect(await vendor.availableBalance(a.token)).toBe(0);
  });
});
