import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { createStripeVendor } from './stripe';
import { startStripeStub, type StripeStub } from '../../test-support/stripe-stub';
import { VendorDeclineError, type BankAccountDetails, type PaymentVendor } from './types';

/*
 * The Stripe adapter's US bank accounts against the local Stripe stub: a us_bank_account payment method attached by
 * a SetupIntent confirmed with an online mandate and micro-deposit verification; verify_microdeposits (Stripe's
 * 32 and 45 cents; its error codes as bpay's declines); ACH debits that are `processing` until they settle or return.
 */

const SECRET = 'sk_test_51bpayStubKey000000000000';
let stub: StripeStub;
beforeAll(() => {
  stub = startStripeStub({ secretKey: SECRET });
});
afterAll(async () => {
  await stub.stop();
});
beforeEach(() => stub.clearRequests());

const vendor = (): PaymentVendor =>
  createStripeVendor({ secretKey: SECRET, host: 'localhost', port: stub.port, protocol: 'http', maxNetworkRetries: 0, timeoutMs: 3000 });

let seq = 0;
const key = (label: string) => `${label}-${Date.now()}-${++seq}`;
const mandate = { ipAddress: '203.0.113.7', userAgent: 'Mozilla/5.0 test' };
const account = (accountNumber = '000123456789'): BankAccountDetails => ({
  routingNumber: '110000000',
  accountNumber,
  accountType: 'checking',
  name: 'Ada Lovelace',
});

async function declineOf(p: Promise<unknown>): Promise<VendorDeclineError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof VendorDeclineError) return e;
    throw e;
  }
  throw new Error('expected a decline');
}

describe('addBankAccount', () => {
  test('a us_bank_account payment method and a SetupIntent with micro-deposits and the online mandate', async () => {
    const k = key('bank');
    const added = await vendor().addBankAccount(account(), { idempotencyKey: k, customerRef: 'user-bank-1', mandate });
    expect(added).toEqual({ token: expect.stringMatching(/^pm_/), last4: '6789', verificationRef: expect.stringMatching(/^seti_/) });
    const pm = stub.find('POST', '/v1/payment_methods')[0]!;
    expect(pm.form.get('type')).toBe('us_bank_account');
    expect(pm.form.get('us_bank_account[routing_number]')).toBe('110000000');
    expect(pm.form.get('us_bank_account[account_number]')).toBe('000123456789');
    expect(pm.form.get('us_bank_account[account_type]')).toBe('checking');
    expect(pm.idempotencyKey).toBe(`${k}:bank-pm`);
    const seti = stub.find('POST', '/v1/setup_intents')[0]!;
    expect(seti.form.get('payment_method_options[us_bank_account][verification_method]')).toBe('microdeposits');
    expect(seti.form.get('allowed_payment_method_types[0]')).toBe('us_bank_account');
    expect(seti.form.get('confirm')).toBe('true');
    expect(seti.form.get('mandate_data[customer_acceptance][type]')).toBe('online');
    expect(seti.form.get('mandate_data[customer_acceptance][online][ip_address]')).toBe('203.0.113.7');
    expect(seti.idempotencyKey).toBe(`${k}:bank-seti`);
  });
});

describe('verifyMicrodeposits', () => {
  test('32 and 45 verify; other amounts are a mismatch; an account with no deposits fails for good', async () => {
    const v = vendor();
    const a = await v.addBankAccount(account(), { idempotencyKey: key('bank'), customerRef: 'user-bank-2', mandate });
    const wrong = await declineOf(v.verifyMicrodeposits(a.verificationRef, [10, 20]));
    expect(wrong.code).toBe('microdeposit_mismatch');
    expect(wrong.declineCode).toBe('payment_method_microdeposit_verification_amounts_mismatch');
    await v.verifyMicrodeposits(a.verificationRef, [32, 45]);
    const call = stub.find('POST', /verify_microdeposits$/).at(-1)!;
    expect([call.form.get('amounts[0]'), call.form.get('amounts[1]')]).toEqual(['32', '45']);
    // Asked again once verified: answered as verified.
    await v.verifyMicrodeposits(a.verificationRef, [32, 45]);

    const none = await v.addBankAccount(account('000111111116'), { idempotencyKey: key('bank'), customerRef: 'user-bank-2', mandate });
    expect((await declineOf(v.verifyMicrodeposits(none.verificationRef, [32, 45]))).code).toBe('bank_verification_failed');
  });

  test("Stripe's own limit of tries is a failed verification", async () => {
    const v = vendor();
    const a = await v.addBankAccount(account(), { idempotencyKey: key('bank'), customerRef: 'user-bank-3', mandate });
    for (let i = 0; i < 9; i++) expect((await declineOf(v.verifyMicrodeposits(a.verificationRef, [1, 2]))).code).toBe('microdeposit_mismatch');
    expect((await declineOf(v.verifyMicrodeposits(a.verificationRef, [1, 2]))).code).toBe('bank_verification_failed');
  });
});

describe('debitBank and getBankDebit', () => {
  test('a debit is a confirmed ACH PaymentIntent, pending while processing, then settled or returned with its NACHA code', async () => {
    const v = vendor();
    const a = await v.addBankAccount(account(), { idempotencyKey: key('bank'), customerRef: 'user-bank-4', mandate });
    await v.verifyMicrodeposits(a.verificationRef, [32, 45]);
    const k = key('hold:shr');
    const { debitId } = await v.debitBank(a.token, 2500, { idempotencyKey: k, description: 'bpay Groceries' });
    const req = stub.find('POST', '/v1/payment_intents').at(-1)!;
    expect(req.form.get('allowed_payment_method_types[0]')).toBe('us_bank_account');
    expect(req.form.get('capture_method')).toBeNull();
    expect(req.form.get('metadata[bpay_purpose]')).toBe('bank_debit');
    expect(req.idempotencyKey).toBe(`${k}:debit`);
    expect(await v.getBankDebit(debitId)).toEqual({ status: 'pending' });

    stub.objects.get(debitId)!.status = 'succeeded';
    expect(await v.getBankDebit(debitId)).toEqual({ status: 'succeeded' });

    const second = await v.debitBank(a.token, 1000, { idempotencyKey: key('hold:shr'), description: 'bpay Shoes' });
    const pi = stub.objects.get(second.debitId)!;
    pi.status = 'requires_payment_method';
    Object.assign(stub.objects.get(String(pi.latest_charge))!, { status: 'failed', failure_code: 'insufficient_funds', failure_message: 'The account has insufficient funds.' });
    expect(await v.getBankDebit(second.debitId)).toEqual({ status: 'returned', code: 'R01', message: 'The account has insufficient funds.' });
  });
});
