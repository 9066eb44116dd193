import type { MessageKey } from '../../i18n';
import type { PaymentIntent, RefundReason } from './api';

/*
 * Refund rules the dashboard checks before asking (the server is the authority: it reserves the amount in one guarded
 * statement, so two refunds at once never pass what was received).
 */

export const REFUND_REASONS: readonly RefundReason[] = ['requested_by_customer', 'duplicate', 'fraudulent'];

/** What can still be refunded, in cents: received, less what refunds (pending ones included) already took. */
export function refundableCents(pi: Pick<PaymentIntent, 'amount_received' | 'amount_refunded'>): number {
  return Math.max(0, pi.amount_received - pi.amount_refunded);
}

/** Only a succeeded payment with something left to give back can be refunded. */
export function canRefund(pi: Pick<PaymentIntent, 'status' | 'amount_received' | 'amount_refunded'>): boolean {
  return pi.status === 'succeeded' && refundableCents(pi) > 0;
}

/** How much of a payment went back: none, part, or all of what was received. */
export function refundState(pi: Pick<PaymentIntent, 'amount_received' | 'amount_refunded'>): 'none' | 'partial' | 'full' {
  if (pi.amount_refunded <= 0) return 'none';
  return pi.amount_refunded >= pi.amount_received ? 'full' : 'partial';
}

export type RefundAmountCheck = { cents: number; problem?: undefined } | { cents?: undefined; problem: MessageKey };

/**
 * A partial refund's amount typed in dollars ("12", "12.5", "12.50"): more than zero, at most two decimals, and at
 * most what is left to refund (`leftCents`).
 */
export function checkRefundAmount(input: string, leftCents: number): RefundAmountCheck {
  const value = input.trim();
  if (!value) return { problem: 'merchants.refund.error.amountRequired' };
  const m = /^(\d*)(?:\.(\d*))?$/.exec(value);
  if (!m || (!m[1] && !m[2])) return { problem: 'merchants.refund.error.amountInvalid' };
  const decimals = m[2] ?? '';
  if (decimals.length > 2) return { problem: 'merchants.refund.error.amountDecimals' };
  const whole = m[1] ?? '';
  // Past the API's largest amount (and far past any payment) is simply too much; it also keeps Number exact.
  if (whole.replace(/^0+/, '').length > 9) return { problem: 'merchants.refund.error.amountTooMuch' };
  const cents = Number(whole || '0') * 100 + Number(decimals.padEnd(2, '0'));
  if (cents <= 0) return { problem: 'merchants.refund.error.amountPositive' };
  if (cents > leftCents) return { problem: 'merchants.refund.error.amountTooMuch' };
  return { cents };
}
