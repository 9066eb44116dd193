import { expect, test } from 'bun:test';
import { translate, type Lang } from '../../i18n';
import {
  featureLabel,
  formatApiCallsLimit,
  formatFee,
  formatMonthlyLimit,
  formatPrice,
  formatSourcesLimit,
  formatTier,
  isUnlimited,
  planButtonLabel,
  tierTitle,
  type Translate,
} from './pricing-format';
import type { SubscriptionTier } from './api';

const tr =
  (lang: Lang): Translate =>
  (key, vars) =>
    translate(lang, key, vars);
const en = tr('en');
const ar = tr('ar');

const pro: SubscriptionTier = {
  id: 'tier_pro',
  name: 'pro',
  displayName: 'Professional',
  monthlyPrice: 9.99,
  transactionFeeRate: 0.029,
  limits: { fundingSources: 5, monthlyTransactions: 200, bcardGenerationLimit: 100, apiCallsPerMonth: 10_000 },
  features: ['priority_support', 'api_access'],
};

test('price 0 shows Free with no period', () => {
  expect(formatPrice(0, en)).toEqual({ amount: 'Free', period: null });
});

test('a paid price shows two decimals per month', () => {
  expect(formatPrice(9.99, en)).toEqual({ amount: '$9.99', period: '/month' });
  expect(formatPrice(20, en)).toEqual({ amount: '$20.00', period: '/month' });
  expect(formatPrice(19.99, ar).amount).toBe('$19.99');
});

test('the fee is the rate times 100 with one decimal', () => {
  expect(formatFee(0.029, en)).toBe('2.9% transaction fee');
  expect(formatFee(0.019, en)).toBe('1.9% transaction fee');
  expect(formatFee(0.009, en)).toBe('0.9% transaction fee');
  expect(formatFee(0.03, en)).toBe('3.0% transaction fee');
  expect(formatFee(0.0125, en)).toBe('1.25% transaction fee');
  expect(formatFee(0, en)).toBe('0.0% transaction fee');
  expect(formatFee(0.019, ar)).toContain('1.9%');
});

test('-1 or an empty limit is Unlimited', () => {
  for (const empty of [-1, null, undefined]) {
    expect(isUnlimited(empty)).toBe(true);
    expect(formatSourcesLimit(empty, en)).toBe('Unlimited');
    expect(formatMonthlyLimit(empty, en)).toBe('Unlimited');
    expect(formatApiCallsLimit(empty, en)).toBe('Unlimited');
  }
  expect(isUnlimited(0)).toBe(false);
  expect(formatSourcesLimit(0, en)).toBe('0 sources');
});

test('limits read "{n} sources", "{n}/month" and grouped API calls per month', () => {
  expect(formatSourcesLimit(5, en)).toBe('5 sources');
  expect(formatMonthlyLimit(200, en)).toBe('200/month');
  expect(formatMonthlyLimit(1500, en)).toBe('1,500/month');
  expect(formatApiCallsLimit(10_000, en)).toBe('10,000 API calls/month');
  expect(formatApiCallsLimit(1_000_000, en)).toBe('1,000,000 API calls/month');
});

test('Arabic keeps Western digits and grouping', () => {
  expect(formatApiCallsLimit(10_000, ar)).toContain('10,000');
  expect(formatMonthlyLimit(200, ar)).toContain('200');
  expect(formatSourcesLimit(-1, ar)).toBe('غير محدود');
});

test('the button reads Start Free for price 0, else Choose Plan', () => {
  expect(planButtonLabel(0, en)).toBe('Start Free');
  expect(planButtonLabel(9.99, en)).toBe('Choose Plan');
});

test('feature keys get human labels; unknown keys fall back to spaced text', () => {
  expect(featureLabel('api_access', en)).toBe('API access');
  expect(featureLabel('dedicated_account_manager', en)).toBe('Dedicated account manager');
  expect(featureLabel('brand_new_thing', en)).toBe('brand new thing');
});

test('tier titles: displayName in English, translated by name in Arabic, displayName otherwise', () => {
  expect(tierTitle(pro, 'en', en)).toBe('Professional');
  expect(tierTitle({ name: 'free', displayName: 'Free' }, 'ar', ar)).toBe('مجاني');
  expect(tierTitle(pro, 'ar', ar)).toBe('احترافي');
  expect(tierTitle({ name: 'premium', displayName: 'Premium' }, 'ar', ar)).toBe('مميز');
  expect(tierTitle({ name: 'gold', displayName: 'Gold' }, 'ar', ar)).toBe('Gold');
});

test('formatTier puts the rules together', () => {
  const view = formatTier(pro, 'en', en);
  expect(view.title).toBe('Professional');
  expect(view.price).toEqual({ amount: '$9.99', period: '/month' });
  expect(view.fee).toBe('2.9% transaction fee');
  expect(view.limits.map((l) => l.value)).toEqual(['5 sources', '200/month', '100/month', '10,000 API calls/month']);
  expect(view.features).toEqual(['Priority support', 'API access']);
  expect(view.cta).toBe('Choose Plan');
});
