import { expect, test } from 'bun:test';
import { abaValid, microdepositAmount, validateBankForm } from './bank-format';

test('the ABA checksum matches the server: Stripe test routing passes, a changed digit does not', () => {
  expect(abaValid('110000000')).toBe(true);
  expect(abaValid('021000021')).toBe(true);
  expect(abaValid('110000001')).toBe(false);
  expect(abaValid('990000000')).toBe(false);
});

test('the form names each wrong field', () => {
  expect(validateBankForm({ routingNumber: '1100', accountNumber: '123', accountType: 'checking', name: ' ', splitPercentage: '101' })).toEqual({
    routingNumber: 'routingLength',
    accountNumber: 'accountLength',
    name: 'nameRequired',
    splitPercentage: 'splitRange',
  });
  expect(validateBankForm({ routingNumber: '110000001', accountNumber: '000123456789', accountType: 'savings', name: 'Ada', splitPercentage: '50' })).toEqual({
    routingNumber: 'routingChecksum',
  });
});

test('micro-deposit amounts in dollars or cents', () => {
  expect(microdepositAmount('0.32')).toBe('0.32');
  expect(microdepositAmount('.45')).toBe('0.45');
  expect(microdepositAmount('32')).toBe('0.32');
  expect(microdepositAmount('5')).toBe('0.05');
  expect(microdepositAmount('1.00')).toBeNull();
  expect(microdepositAmount('abc')).toBeNull();
});
