import { expect, test } from 'bun:test';
import { planFee, planPrice, tierNameKey } from './plan-format';
import { splitTemplate } from './template';
import { mailtoHref, telHrefFor } from './hooks/use-investor-contact';

test('plan prices come from the API in dollars and show with two decimals; free has no price', () => {
  expect(planPrice(0)).toBeNull();
  expect(planPrice(9.99)).toBe('$9.99');
  expect(planPrice(19.99)).toBe('$19.99');
  expect(planPrice(100)).toBe('$100.00');
});

test('fees are the rate × 100 with one decimal, without float noise', () => {
  expect(planFee(0.029)).toBe('2.9%');
  expect(planFee(0.019)).toBe('1.9%');
  expect(planFee(0.009)).toBe('0.9%');
  expect(planFee(0.03)).toBe('3.0%');
  expect(planFee(0.0125)).toBe('1.25%');
});

test('known tiers have a translated name; admin-made tiers keep their display name', () => {
  expect(tierNameKey({ name: 'pro' })).toBe('investors.plans.tier.pro');
  expect(tierNameKey({ name: 'enterprise_custom' })).toBeNull();
});

test('templates split into text and placeholders', () => {
  expect(splitTemplate('Total: {total}.')).toEqual(['Total: ', { name: 'total' }, '.']);
  expect(splitTemplate('{year}: {amount}')).toEqual([{ name: 'year' }, ': ', { name: 'amount' }]);
  expect(splitTemplate('no placeholders')).toEqual(['no placeholders']);
});

test('contact links: the subject is encoded, the phone keeps only + and digits', () => {
  expect(mailtoHref('ir@bpay.example', 'Pitch deck request: bpay')).toBe('mailto:ir@bpay.example?subject=Pitch%20deck%20request%3A%20bpay');
  expect(telHrefFor('+1 (555) 010-2025')).toBe('tel:+15550102025');
});
