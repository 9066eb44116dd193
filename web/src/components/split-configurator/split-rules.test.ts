import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { DEMO_SPLIT_SOURCES, sampleSplitOptions } from './sample-sources';
import {
  addRow,
  allocateCents,
  canAddRow,
  canRemoveRow,
  canSubmit,
  clampPercentageInput,
  createBcardFundingSources,
  evaluateSplit,
  feeCents,
  fixedInputToCents,
  initialSplit,
  processPaymentSplits,
  removeRow,
  sanitizeFixedInput,
  selectableSources,
  setMode,
  setRowFixedAmount,
  setRowPercentage,
  setRowSource,
  type SplitSourceOption,
  type SplitValue,
} from './split-rules';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

const src = (id: string, available: string | null = '10000.00', defaultPercentage?: number): SplitSourceOption => ({
  id,
  name: `Card ${id}`,
  last4: '4242',
  brand: 'visa',
  available,
  defaultPercentage,
});
const three = [src('a'), src('b'), src('c')];

/** A value with the given percentages (or fixed amounts) on the first sources, in order. */
function withPercentages(sources: readonly SplitSourceOption[], pcts: string[]): SplitValue {
  let v = initialSplit(sources.slice(0, pcts.length));
  pcts.forEach((p, i) => (v = setRowPercentage(v, v.rows[i]!.key, p)));
  return v;
}
function withFixed(sources: readonly SplitSourceOption[], amounts: string[]): SplitValue {
  let v = setMode(initialSplit(sources.slice(0, amounts.length)), 'fixed');
  amounts.forEach((a, i) => (v = setRowFixedAmount(v, v.rows[i]!.key, a)));
  return v;
}
const evaluate = (v: SplitValue, sources: readonly SplitSourceOption[], amountCents = 10000, checkAvailable = false) =>
  evaluateSplit(v, sources, amountCents, 2.9, { checkAvailable });

describe('fee and allocation', () => {
  test('the fee is rounded half-up to the cent, as the server does', () => {
    expect(feeCents(10000, 2.9)).toBe(290);
    expect(feeCents(15000, 2.9)).toBe(435);
    expect(feeCents(3333, 2.9)).toBe(97); // 96.657
    expect(feeCents(50, 2.9)).toBe(1); // 1.45
    expect(feeCents(10000, 0)).toBe(0);
    expect(feeCents(10000, 1.9)).toBe(190);
  });

  test('largest remainder: thirds, ties to the earlier row, zero weights', () => {
    expect(allocateCents(10290, [6000, 4000])).toEqual([6174, 4116]);
    expect(allocateCents(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocateCents(1000, [0, 0])).toEqual([0, 0]);
  });
});

describe('initialSplit', () => {
  test('demo defaults 60/40/0/0 by position, 0 beyond the fourth; fixed amounts empty', () => {
    const v = initialSplit([src('a'), src('b'), src('c'), src('d'), src('e')]);
    expect(v.mode).toBe('percentage');
    expect(v.rows.map((r) => r.percentage)).toEqual(['60', '40', '0', '0', '0']);
    expect(v.rows.map((r) => r.fixedAmount)).toEqual(['', '', '', '', '']);
    expect(new Set(v.rows.map((r) => r.key)).size).toBe(5);
  });

  test("each source's default with useSourceDefaults", () => {
    const v = initialSplit([src('a', null, 25), src('b', null, 75), src('c')], { useSourceDefaults: true });
    expect(v.rows.map((r) => r.percentage)).toEqual(['25', '75', '0']);
  });

  test('cleared: every row empty whatever the defaults (120 % of defaults is not a split anyone chose)', () => {
    const sources = [src('a', null, 40), src('b', null, 40), src('c', null, 40)];
    const v = initialSplit(sources, { cleared: true, useSourceDefaults: true });
    expect(v.rows.map((r) => [r.sourceId, r.percentage, r.fixedAmount])).toEqual([
      ['a', '', ''],
      ['b', '', ''],
      ['c', '', ''],
    ]);
    const e = evaluateSplit(v, sources, 10000, 2.9, { checkAvailable: true });
    expect(e.valid).toBe(false);
    expect(e.error).toEqual({ code: 'no_splits' });
  });
});

describe('rows: add, remove, select', () => {
  test('Add appends the first unused source with 0 / empty, only while one remains', () => {
    let v = initialSplit([three[1]!]);
    expect(canAddRow(v, three)).toBe(true);
    v = addRow(v, three);
    expect(v.rows.map((r) => [r.sourceId, r.percentage, r.fixedAmount])).toEqual([
      ['b', '60', ''],
      ['a', '0', ''],
    ]);
    v = addRow(v, three);
    expect(v.rows.map((r) => r.sourceId)).toEqual(['b', 'a', 'c']);
    expect(canAddRow(v, three)).toBe(false);
    expect(addRow(v, three)).toBe(v);
    expect(new Set(v.rows.map((r) => r.key)).size).toBe(3);
  });

  test('a row can be removed only while more than one exists; a new key never repeats a live one', () => {
    let v = initialSplit(three.slice(0, 2));
    expect(canRemoveRow(v)).toBe(true);
    v = removeRow(v, v.rows[0]!.key);
    expect(v.rows.map((r) => r.sourceId)).toEqual(['b']);
    expect(canRemoveRow(v)).toBe(false);
    expect(removeRow(v, v.rows[0]!.key)).toBe(v);
    v = addRow(addRow(v, three), three);
    expect(new Set(v.rows.map((r) => r.key)).size).toBe(3);
  });

  test("a row's select offers its own source plus the unused ones; taking a used source is refused", () => {
    const v = initialSplit(three.slice(0, 2));
    const [first, second] = v.rows;
    expect(selectableSources(v, three, first!.key).map((s) => s.id)).toEqual(['a', 'c']);
    expect(selectableSources(v, three, second!.key).map((s) => s.id)).toEqual(['b', 'c']);
    expect(setRowSource(v, first!.key, 'b')).toBe(v);
    const moved = setRowSource(v, first!.key, 'c');
    expect(moved.rows.map((r) => r.sourceId)).toEqual(['c', 'b']);
    expect(moved.rows[0]!.percentage).toBe('60');
  });

  test('switching mode keeps both values of every row', () => {
    let v = withFixed(three.slice(0, 2), ['50', '52.90']);
    v = setRowPercentage(v, v.rows[0]!.key, '70');
    const back = setMode(v, 'percentage');
    expect(back.rows.map((r) => [r.percentage, r.fixedAmount])).toEqual([
      ['70', '50'],
      ['40', '52.90'],
    ]);
    expect(setMode(back, 'percentage')).toBe(back);
  });
});

describe('inputs', () => {
  test('typed percentages are clamped to 0–100; partial input is kept', () => {
    expect(clampPercentageInput('120')).toBe('100');
    expect(clampPercentageInput('-3')).toBe('0');
    expect(clampPercentageInput('33.3')).toBe('33.3');
    expect(clampPercentageInput('12.')).toBe('12.');
    expect(clampPercentageInput('')).toBe('');
    expect(clampPercentageInput('abc')).toBe('');
    const v = setRowPercentage(initialSplit([src('a')]), 'row-0', '250');
    expect(v.rows[0]!.percentage).toBe('100');
  });

  test('fixed amounts: never negative; a third decimal is kept as typed (to be refused), never cut', () => {
    expect(sanitizeFixedInput('-5')).toBe('0');
    expect(sanitizeFixedInput('12.345')).toBe('12.345');
    expect(sanitizeFixedInput('0.29')).toBe('0.29');
    expect(sanitizeFixedInput('1e2')).toBe('100.00');
    expect(sanitizeFixedInput('12.')).toBe('12.');
    expect(sanitizeFixedInput('')).toBe('');
    expect(fixedInputToCents('12.5')).toBe(1250);
    expect(fixedInputToCents('.5')).toBe(50);
    expect(fixedInputToCents('12.')).toBe(1200);
    expect(fixedInputToCents('')).toBe(0);
  });
});

describe('percentage mode', () => {
  test('$100 split 60/40 with the 2.9 % fee', () => {
    const e = evaluate(withPercentages(three, ['60', '40']), three);
    expect([e.feeCents, e.totalCents, e.percentTotal]).toEqual([290, 10290, 100]);
    expect(e.valid).toBe(true);
    expect(e.shares.map((s) => [s.sourceId, s.percentage, s.cents])).toEqual([
      ['a', 60, 6174],
      ['b', 40, 4116],
    ]);
    expect(canSubmit(e)).toBe(true);
  });

  test('the total must be 100 within 0.01', () => {
    const err = (pcts: string[]) => evaluate(withPercentages(three, pcts), three).error;
    expect(err(['60', '30'])).toEqual({ code: 'percentage_total', totalPercent: 90 });
    expect(err(['33.33', '33.33', '33.33'])).toBeNull(); // 99.99
    expect(err(['50', '50.01'])).toBeNull(); // 100.01
    expect(err(['33.33', '33.33', '33.32'])).toEqual({ code: 'percentage_total', totalPercent: 99.98 });
    expect(err(['50', '50.02'])).toEqual({ code: 'percentage_total', totalPercent: 100.02 });
  });

  test('an invalid total shows each row its own percentage of the total, not a rescaled one', () => {
    const e = evaluate(withPercentages(three, ['60', '30']), three);
    expect(e.rows.map((r) => r.cents)).toEqual([6174, 3087]);
  });

  test('zero-percent rows are not shares', () => {
    const e = evaluate(withPercentages(three, ['100', '0']), three);
    expect(e.shares.map((s) => s.sourceId)).toEqual(['a']);
    expect(e.rows.map((r) => r.cents)).toEqual([10290, 0]);
  });

  test('property: a valid split\'s shares sum exactly to amount + fee', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 3 }),
        (amount, weights) => {
          // Percentages that add up to exactly 100: allocate 10000 bps by the weights.
          const pcts = allocateCents(10_000, weights).map((b) => String(b / 100));
          const e = evaluate(withPercentages(three, pcts), three, amount);
          expect(e.valid).toBe(true);
          expect(e.totalCents).toBe(amount + feeCents(amount, 2.9));
          expect(sum(e.shares.map((s) => s.cents))).toBe(e.totalCents);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('fixed mode', () => {
  test('amounts that add up to amount + fee are valid and sent as they are', () => {
    const e = evaluate(withFixed(three, ['60', '42.90']), three);
    expect(e.valid).toBe(true);
    expect(e.fixedTotalCents).toBe(10290);
    expect(e.shares.map((s) => s.cents)).toEqual([6000, 4290]);
  });

  test('one cent over or under passes (the largest share absorbs it); two cents fails', () => {
    const over = evaluate(withFixed(three, ['60', '42.91']), three);
    expect(over.valid).toBe(true);
    expect(over.shares.map((s) => s.cents)).toEqual([5999, 4291]);
    const under = evaluate(withFixed(three, ['60.00', '42.89']), three);
    expect(under.valid).toBe(true);
    expect(under.shares.map((s) => s.cents)).toEqual([6001, 4289]);
    expect(evaluate(withFixed(three, ['60', '42.92']), three).error).toEqual({
      code: 'fixed_total',
      totalCents: 10292,
      requiredCents: 10290,
    });
    expect(evaluate(withFixed(three, ['60', '42.88']), three).error).toEqual({
      code: 'fixed_total',
      totalCents: 10288,
      requiredCents: 10290,
    });
  });

  test('a share of 52.905 is refused (fixed_decimals, naming its row), never rounded to 52.90 or 52.91', () => {
    // $50.00 + $1.45 fee = $51.45; 52.905 would pass the one-cent tolerance either way it was rounded.
    const e = evaluate(withFixed(three, ['52.905', '-1']), three, 5000);
    const v = withFixed(three, ['52.905']);
    expect(v.rows[0]!.fixedAmount).toBe('52.905');
    const single = evaluate(withFixed(three, ['51.455']), three, 5000);
    expect(single.error).toEqual({ code: 'fixed_decimals', rowKeys: ['row-0'] });
    expect(single.valid).toBe(false);
    expect(canSubmit(single)).toBe(false);
    expect(e.error).toEqual({ code: 'fixed_decimals', rowKeys: ['row-0'] });
    const second = evaluate(withFixed(three, ['1.00', '50.455']), three, 5000);
    expect(second.error).toEqual({ code: 'fixed_decimals', rowKeys: ['row-1'] });
    // The same two amounts with two decimals are a valid split.
    expect(evaluate(withFixed(three, ['1.00', '50.45']), three, 5000).valid).toBe(true);
  });

  test('property: within the tolerance, shares sum exactly to the total', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 100_000_000 }),
        fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: -1, max: 1 }),
        (amount, weights, off) => {
          const total = amount + feeCents(amount, 2.9);
          const cents = allocateCents(total, weights);
          cents[cents.length - 1]! += off;
          fc.pre(cents.every((c) => c >= 0));
          const e = evaluate(withFixed(three, cents.map((c) => (c / 100).toFixed(2))), three, amount);
          expect(e.valid).toBe(true);
          expect(sum(e.shares.map((s) => s.cents))).toBe(total);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('sample sources and the available check', () => {
  test('every spec field on four sources: three cards and a bank account, defaults 60/40/0/0', () => {
    expect(DEMO_SPLIT_SOURCES.map((s) => s.type)).toEqual(['credit_card', 'credit_card', 'credit_card', 'bank_account']);
    expect(DEMO_SPLIT_SOURCES.map((s) => s.defaultSplitPercentage)).toEqual([60, 40, 0, 0]);
    const keys = ['id', 'name', 'type', 'last4', 'brand', 'balance', 'creditLimit', 'availableCredit', 'defaultSplitPercentage',
      'stripePaymentMethodId', 'rewardsRate', 'accountType', 'bankName'];
    for (const s of DEMO_SPLIT_SOURCES) expect(Object.keys(s).sort()).toEqual([...keys].sort());
    expect(sampleSplitOptions().map((o) => o.available)).toEqual(['3750.00', '2179.50', '120.00', '2450.75']);
  });

  test('the default $150 purchase at 60/40 is covered', () => {
    const options = sampleSplitOptions();
    const e = evaluateSplit(initialSplit(options), options, 15000, 2.9, { checkAvailable: true });
    expect(e.totalCents).toBe(15435);
    expect(e.valid).toBe(true);
    expect(e.shares.map((s) => s.cents)).toEqual([9261, 6174]);
  });

  test('insufficient lists exactly the short sources, with both sums', () => {
    const options = sampleSplitOptions();
    let v = initialSplit(options);
    // 100 % on the card with $120.00 available: $154.35 needed.
    v = setRowPercentage(v, v.rows[0]!.key, '0');
    v = setRowPercentage(v, v.rows[1]!.key, '0');
    v = setRowPercentage(v, v.rows[2]!.key, '100');
    const e = evaluateSplit(v, options, 15000, 2.9, { checkAvailable: true });
    expect(e.error).toEqual({
      code: 'insufficient',
      requiredCents: 15435,
      availableCents: 12000,
      sources: [{ sourceId: 'demo_fs_amex', name: 'Amex Everyday', last4: '8431', requiredCents: 15435, availableCents: 12000 }],
    });
    expect(e.rows.map((r) => r.short)).toEqual([false, false, true, false]);
    expect(canSubmit(e)).toBe(false);
    // Without the check (signed in: the server checks), the same split is valid.
    expect(evaluateSplit(v, options, 15000, 2.9, { checkAvailable: false }).valid).toBe(true);
  });

  test('an unknown balance is never short', () => {
    const sources = [src('a', null)];
    const e = evaluate(withPercentages(sources, ['100']), sources, 99_999_900, true);
    expect(e.valid).toBe(true);
  });
});

describe('error order', () => {
  test('no_splits before totals, totals before insufficient', () => {
    const poor = [src('a', '1.00'), src('b', '1.00')];
    expect(evaluate(withPercentages(poor, ['0', '0']), poor, 10000, true).error).toEqual({ code: 'no_splits' });
    expect(evaluate(withFixed(poor, ['', '0']), poor, 10000, true).error).toEqual({ code: 'no_splits' });
    expect(evaluate(withPercentages(poor, ['60', '30']), poor, 10000, true).error?.code).toBe('percentage_total');
    expect(evaluate(withFixed(poor, ['60', '30']), poor, 10000, true).error?.code).toBe('fixed_total');
    expect(evaluate(withPercentages(poor, ['60', '40']), poor, 10000, true).error?.code).toBe('insufficient');
    expect(evaluate(withFixed(poor, ['60', '42.90']), poor, 10000, true).error?.code).toBe('insufficient');
  });

  test('a row whose source disappeared is left out', () => {
    const v = withPercentages(three, ['60', '40']);
    const e = evaluate(v, [three[0]!]);
    expect(e.rows.map((r) => r.sourceId)).toEqual(['a']);
    expect(e.error).toEqual({ code: 'percentage_total', totalPercent: 60 });
  });
});

describe('request bodies', () => {
  test('percentage mode', () => {
    const e = evaluate(withPercentages(three, ['60', '40', '0']), three);
    expect(processPaymentSplits(e)).toEqual([
      { fundingSourceId: 'a', percentage: 60 },
      { fundingSourceId: 'b', percentage: 40 },
    ]);
    expect(createBcardFundingSources(e)).toEqual([
      { fundingSourceId: 'a', percentage: 60, amount: '61.74' },
      { fundingSourceId: 'b', percentage: 40, amount: '41.16' },
    ]);
  });

  test('percentages are sent as rounded to 0.01, as the rows were checked', () => {
    const e = evaluate(withPercentages(three, ['33.333', '33.333', '33.334']), three);
    expect(processPaymentSplits(e).map((s) => ('percentage' in s ? s.percentage : null))).toEqual([33.33, 33.33, 33.33]);
  });

  test('fixed mode: positive shares only, the absorbed cent included', () => {
    const e = evaluate(withFixed(three, ['60', '42.91', '']), three);
    expect(processPaymentSplits(e)).toEqual([
      { fundingSourceId: 'a', fixedAmount: '59.99' },
      { fundingSourceId: 'b', fixedAmount: '42.91' },
    ]);
    expect(createBcardFundingSources(e)).toEqual([
      { fundingSourceId: 'a', amount: '59.99' },
      { fundingSourceId: 'b', amount: '42.91' },
    ]);
  });
});
