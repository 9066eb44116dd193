import { describe, expect, test } from 'bun:test';
import { canRefund, checkRefundAmount, refundableCents, refundState } from './refunds';

describe('what can be refunded', () => {
  test('received less refunded (pending refunds included), never below zero', () => {
    expect(refundableCents({ amount_received: 2500, amount_refunded: 0 })).toBe(2500);
    expect(refundableCents({ amount_received: 2500, amount_refunded: 1000 })).toBe(1500);
    expect(refundableCents({ amount_received: 2500, amount_refunded: 2500 })).toBe(0);
  });

  test('only a succeeded payment with something left', () => {
    expect(canRefund({ status: 'succeeded', amount_received: 2500, amount_refunded: 0 })).toBe(true);
    expect(canRefund({ status: 'succeeded', amount_received: 2500, amount_refunded: 2500 })).toBe(false);
    expect(canRefund({ status: 'requires_capture', amount_received: 0, amount_refunded: 0 })).toBe(false);
    expect(canRefund({ status: 'canceled', amount_received: 0, amount_refunded: 0 })).toBe(false);
  });

  test('none, partial or full', () => {
    expect(refundState({ amount_received: 2500, amount_refunded: 0 })).toBe('none');
    expect(refundState({ amount_received: 2500, amount_refunded: 1 })).toBe('partial');
    expect(refundState({ amount_received: 2500, amount_refunded: 2500 })).toBe('full');
  });
});

describe('a partial refund amount in dollars', () => {
  test.each([
    ['12', 1200],
    ['12.5', 1250],
    ['12.50', 1250],
    ['0.01', 1],
    ['.5', 50],
    [' 25.00 ', 2500],
  ])('%p is %p cents', (input, cents) => {
    expect(checkRefundAmount(input, 2500)).toEqual({ cents });
  });

  test.each([
    ['', 'merchants.refund.error.amountRequired'],
    ['  ', 'merchants.refund.error.amountRequired'],
    ['abc', 'merchants.refund.error.amountInvalid'],
    ['1,000', 'merchants.refund.error.amountInvalid'],
    ['$5', 'merchants.refund.error.amountInvalid'],
    ['-5', 'merchants.refund.error.amountInvalid'],
    ['1e3', 'merchants.refund.error.amountInvalid'],
    ['.', 'merchants.refund.error.amountInvalid'],
    ['12.345', 'merchants.refund.error.amountDecimals'],
    ['0', 'merchants.refund.error.amountPositive'],
    ['0.00', 'merchants.refund.error.amountPositive'],
    ['25.01', 'merchants.refund.error.amountTooMuch'],
    ['99999999999999999999', 'merchants.refund.error.amountTooMuch'],
  ] as const)('%p is refused: %s', (input, problem) => {
    expect(checkRefundAmount(input, 2500)).toEqual({ problem });
  });

  test('at most what is left', () => {
    expect(checkRefundAmount('15.00', 1500)).toEqual({ cents: 1500 });
    expect(checkRefundAmount('15.01', 1500)).toEqual({ problem: 'merchants.refund.error.amountTooMuch' });
  });
});
