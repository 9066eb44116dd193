import Stripe from 'stripe';
import { VendorDeclineError, type BankDebitState, type PaymentVendor } from '../types';
import { assertPositiveCents, CURRENCY, type StripeContext } from './client';
import { declineFromIntent, guard, redact, StripeIntegrationError, unknownOutcome } from './errors';
import { customerOfMethod } from './customers';

const BANK_DEBIT_PURPOSE = 'bank_debit';

/** Stripe's micro-deposit verification errors (https://docs.stripe.com/error-codes), as bpay's declines. */
const MICRODEPOSIT_ERRORS: Record<string, ['microdeposit_mismatch' | 'bank_verification_failed', string]> = {
  payment_method_microdeposit_verification_amounts_mismatch: [
    'microdeposit_mismatch',
    'The amounts do not match the micro-deposits sent to this account.',
  ],
  payment_method_microdeposit_verification_descriptor_code_mismatch: [
    'microdeposit_mismatch',
    'The amounts do not match the micro-deposits sent to this account.',
  ],
  payment_method_microdeposit_verification_attempts_exceeded: [
    'bank_verification_failed',
    'Too many wrong answers: this bank account cannot be verified.',
  ],
  payment_method_microdeposit_verification_timeout: [
    'bank_verification_failed',
    'The micro-deposits expired before they were confirmed (10 days).',
  ],
  payment_method_microdeposit_failed: ['bank_verification_failed', 'The micro-deposits could not be sent to this account.'],
};

/** A US bank account: attached with a mandate and verified by micro-deposits, then debited by ACH. */
export function bankAccountOperations({ stripe, customerFor }: StripeContext): Pick<
  PaymentVendor,
  'addBankAccount' | 'verifyMicrodeposits' | 'debitBank' | 'getBankDebit'
> {
  return {
    /**
     * A us_bank_account payment method, attached through a SetupIntent confirmed with the customer's mandate and
     * micro-deposit verification: Stripe sends the deposits and the SetupIntent waits in requires_action.
     */
    addBankAccount: (account, { idempotencyKey: key, customerRef, mandate }) =>
      guard(async () => {
        const customer = await customerFor(customerRef);
        const pm = await stripe.paymentMethods.create(
          {
            type: 'us_bank_account',
            us_bank_account: {
              routing_number: account.routingNumber,
              account_number: account.accountNumber,
              account_holder_type: 'individual',
              account_type: account.accountType,
            },
            billing_details: { name: account.name },
          },
          { idempotencyKey: `${key}:bank-pm` },
        );
        const seti = await stripe.setupIntents.create(
          {
            customer,
            payment_method: pm.id,
            // (API 2026-09-30: `allowed_payment_method_types` on create, as for PaymentIntents.)
            allowed_payment_method_types: ['us_bank_account'],
            payment_method_options: { us_bank_account: { verification_method: 'microdeposits' } },
            confirm: true,
            usage: 'off_session',
            mandate_data: {
              customer_acceptance: {
                type: 'online',
                online: { ip_address: mandate.ipAddress, user_agent: mandate.userAgent },
              },
            },
            metadata: { bpay_idempotency_key: key },
          },
          { idempotencyKey: `${key}:bank-seti` },
        );
        if (seti.status === 'succeeded') return { token: pm.id, last4: pm.us_bank_account?.last4 ?? '', verificationRef: seti.id };
        if (seti.status !== 'requires_action' || seti.next_action?.type !== 'verify_with_microdeposits') {
          const e = seti.last_setup_error;
          throw new VendorDeclineError('card_declined', redact(e?.message ?? '') || 'Stripe refused the bank account.');
        }
        const last4 = pm.us_bank_account?.last4;
        if (!last4) throw new StripeIntegrationError(`Stripe payment method ${pm.id} is not a US bank account.`);
        return { token: pm.id, last4, verificationRef: seti.id };
      }),

    verifyMicrodeposits: (ref, amounts) =>
      guard(async () => {
        try {
          const seti = await stripe.setupIntents.verifyMicrodeposits(ref, { amounts });
          if (seti.status !== 'succeeded' && seti.status !== 'processing') {
            throw new VendorDeclineError('bank_verification_failed', 'Stripe did not verify the bank account.');
          }
        } catch (err) {
          if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code) {
            const known = MICRODEPOSIT_ERRORS[err.code];
            if (known) throw new VendorDeclineError(known[0], known[1], err.code);
            if (err.code === 'setup_intent_unexpected_state') {
              const seti = await stripe.setupIntents.retrieve(ref);
              if (seti.status === 'succeeded') return; // verified before
              throw new VendorDeclineError('bank_verification_failed', 'This bank account can no longer be verified.');
            }
          }
          throw err;
        }
      }),

    debitBank: (token, amountCents, { idempotencyKey: key, description }) =>
      guard(async () => {
        assertPositiveCents(amountCents);
        const customer = await customerOfMethod(stripe, token);
        // ACH debits cannot be authorized and captured later: confirmed, they are `processing` until they settle.
        const pi = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: CURRENCY,
            payment_method: token,
            ...(customer ? { customer } : {}),
            confirm: true,
            off_session: true,
            allowed_payment_method_types: ['us_bank_account'],
            description,
            metadata: { bpay_idempotency_key: key, bpay_purpose: BANK_DEBIT_PURPOSE },
          },
          { idempotencyKey: `${key}:debit` },
        );
        if (pi.status === 'processing' || pi.status === 'succeeded') return { debitId: pi.id };
        if (pi.status === 'requires_payment_method') throw declineFromIntent(pi);
        throw unknownOutcome('bank debit', pi);
      }),

    getBankDebit: (debitId) =>
      guard(async (): Promise<BankDebitState> => {
        const pi = await stripe.paymentIntents.retrieve(debitId, { expand: ['latest_charge'] });
        if (pi.status === 'processing') return { status: 'pending' };
        if (pi.status === 'succeeded') return { status: 'succeeded' };
        return returnedDebit(typeof pi.latest_charge === 'object' ? pi.latest_charge : null, pi.last_payment_error);
      }),
  };
}

/**
 * A returned ACH debit as bpay records it, from its failed charge (Stripe's failure_code and message) or, without the
 * charge, the PaymentIntent's last_payment_error: what getBankDebit answers and what a Stripe event of the debit says
 * (payment_intent.payment_failed, charge.failed).
 */
export function returnedDebit(
  charge: { failure_code?: string | null; failure_message?: string | null } | null,
  lastError: { code?: string | null; message?: string | null } | null | undefined,
): { status: 'returned'; code: string; message: string } {
  const code = charge?.failure_code ?? lastError?.code ?? 'unknown';
  const message = redact(charge?.failure_message ?? lastError?.message ?? '') || 'The bank returned the debit.';
  return { status: 'returned', code: achReturnCode(code), message };
}

/**
 * Stripe names an ACH return by a failure code (https://docs.stripe.com/payments/ach-direct-debit#failed-payments);
 * bpay shows the NACHA return code people and banks know.
 */
export function achReturnCode(failureCode: string): string {
  const codes: Record<string, string> = {
    insufficient_funds: 'R01',
    account_closed: 'R02',
    no_account: 'R03',
    invalid_account_number: 'R04',
    debit_not_authorized: 'R29',
    bank_account_restricted: 'R16',
  };
  return codes[failureCode] ?? failureCode;
}
