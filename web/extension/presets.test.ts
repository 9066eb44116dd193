import { expect, test } from 'bun:test';
import { evaluateSplit, type SplitSourceOption } from '../src/components/split-configurator/split-rules';
import type { FundingSource } from './src/lib/api';
import { defaultPreset, defaultsAddUp, evenPreset, oneCardPreset, splitOptions } from './src/popup/presets';

/* The popup's presets are starting points for the web's split rules: each must be valid by those same rules. */

const source = (id: string, over: Partial<SplitSourceOption> = {}): SplitSourceOption => ({
  id,
  name: `Card ${id}`,
  last4: '4242',
  brand: 'visa',
  available: '10000.00',
  defaultPercentage: 0,
  ...over,
});

const evaluate = (value: ReturnType<typeof evenPreset>, sources: SplitSourceOption[], cents = 10_000) =>
  evaluateSplit(value, sources, cents, 2.9, { checkAvailable: true });

test('even split: percentages sum to exactly 100 (largest remainder), valid by the web rules', () => {
  const three = [source('a'), source('b'), source('c')];
  const even = evenPreset(three);
  expect(even.rows.map((r) => r.percentage)).toEqual(['33.34', '33.33', '33.33']);
  const e = evaluate(even, three, 4250);
  expect(e.valid).toBe(true);
  expect(e.shares.reduce((a, s) => a + s.cents, 0)).toBe(e.totalCents);
  expect(evenPreset([source('a'), source('b')]).rows.map((r) => r.percentage)).toEqual(['50', '50']);
});

test('your default split: the saved defaults; valid only when they add up to 100', () => {
  const ok = [source('a', { defaultPercentage: 60 }), source('b', { defaultPercentage: 40 })];
  expect(defaultsAddUp(ok)).toBe(true);
  expect(defaultPreset(ok).rows.map((r) => r.percentage)).toEqual(['60', '40']);
  expect(evaluate(defaultPreset(ok), ok).valid).toBe(true);
  const off = [source('a', { defaultPercentage: 60 }), source('b', { defaultPercentage: 60 })];
  expect(defaultsAddUp(off)).toBe(false);
  expect(evaluate(defaultPreset(off), off).error?.code).toBe('percentage_total');
});

test('one card: 100 % from that source, the others at 0 to adjust', () => {
  const two = [source('a'), source('b')];
  const one = oneCardPreset(two, 'b');
  expect(one.rows.map((r) => [r.sourceId, r.percentage])).toEqual([['a', '0'], ['b', '100']]);
  const e = evaluate(one, two);
  expect(e.valid).toBe(true);
  expect(e.shares.map((s) => s.sourceId)).toEqual(['b']);
});

test('a source that cannot cover its share is refused by the same rule as the web (insufficient)', () => {
  const poor = [source('a', { available: '10.00' })];
  expect(evaluate(oneCardPreset(poor, 'a'), poor, 5000).error?.code).toBe('insufficient');
});

test('only active sources, and bank accounts once verified, can fund a bcard', () => {
  const base = { last4: '1111', brand: 'visa', balance: '100.00', defaultSplitPercentage: 50, type: 'card' } as const;
  const list = [
    { ...base, id: 'card', name: 'Card', isActive: true, bankAccount: null },
    { ...base, id: 'off', name: 'Off', isActive: false, bankAccount: null },
    { ...base, id: 'bank-ok', name: 'Bank', type: 'bank_account', isActive: true, bankAccount: { verificationStatus: 'verified' } },
    { ...base, id: 'bank-wait', name: 'Bank 2', type: 'bank_account', isActive: true, bankAccount: { verificationStatus: 'pending' } },
  ] as unknown as FundingSource[];
  const options = splitOptions(list);
  expect(options.map((o) => o.id)).toEqual(['card', 'bank-ok']);
  expect(options.map((o) => o.brand)).toEqual(['visa', 'bank']);
  expect(options[0]).toMatchObject({ available: '100.00', defaultPercentage: 50 });
});
