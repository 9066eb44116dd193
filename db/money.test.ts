import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { applyBps, cents, formatDecimal, parseDecimal, type Cents } from './money';

const MAX_CENTS = 10 ** 15 - 1; // 13 whole digits and 2 decimals: what parseDecimal accepts

describe('parseDecimal', () => {
  test.each([
    ['100.00', 10000],
    ['100', 10000],
    ['12.3', 1230],
    ['12.34', 1234],
    ['0.01', 1],
    ['0.1', 10],
    ['0', 0],
    [' 7.05 ', 705],
    ['-0.05', -5],
    ['-12.34', -1234],
    ['19.99', 1999],
    // Binary floating point would make these 1.0999999 or 29.009999: the parse is exact on the digits.
    ['1.10', 110],
    ['29.01', 2901],
    ['0.29', 29],
    ['9999999999999.99', 999999999999999],
  ] as const)('%p -> %p cents', (input, expected) => {
    expect(parseDecimal(input)).toBe(expected as Cents);
  });

  test.each([
    [9.99, 999],
    [0.29, 29],
    [1.1, 110],
    [100, 10000],
    [-0.05, -5],
  ] as const)('number %p -> %p cents', (input, expected) => {
    expect(parseDecimal(input)).toBe(expected as Cents);
  });

  test.each([
    '1.234',
    '0.001',
    '12.345',
    '',
    ' ',
    'abc',
    '1,00',
    '1.',
    '.5',
    '+1.00',
    '1e3',
    '--1',
    '1.2.3',
    'NaN',
    'Infinity',
    '0x10',
    '12345678901234', // 14 whole digits: beyond exact integer cents
  ])('refuses %p', (input) => {
    expect(parseDecimal(input)).toBeNull();
  });

  test('refuses a number with 3 decimals', () => {
    expect(parseDecimal(1.234)).toBeNull();
    expect(parseDecimal(0.005)).toBeNull();
  });

  test('negative amounts keep their sign', () => {
    const n = parseDecimal('-3.50');
    expect(n).toBe(-350 as Cents);
    expect(n! < 0).toBe(true);
  });

  test('results are integers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 99 }), (whole, frac) => {
        const parsed = parseDecimal(`${whole}.${String(frac).padStart(2, '0')}`);
        expect(parsed).not.toBeNull();
        expect(Number.isInteger(parsed)).toBe(true);
        expect(parsed).toBe((whole * 100 + frac) as Cents);
      }),
    );
  });
});

describe('formatDecimal', () => {
  test.each([
    [1234, '12.34'],
    [0, '0.00'],
    [5, '0.05'],
    [-5, '-0.05'],
    [-1234, '-12.34'],
    [10000, '100.00'],
    [999, '9.99'],
    [100, '1.00'],
    [999999999999999, '9999999999999.99'],
  ] as const)('%p cents -> %p', (amount, expected) => {
    expect(formatDecimal(cents(amount))).toBe(expected);
  });

  test('always two decimals', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_CENTS, max: MAX_CENTS }), (n) => {
        expect(formatDecimal(cents(n))).toMatch(/^-?\d+\.\d{2}$/);
      }),
    );
  });
});

describe('round trip', () => {
  test('parseDecimal(formatDecimal(c)) === c for every amount in range', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_CENTS, max: MAX_CENTS }), (n) => {
        expect(parseDecimal(formatDecimal(cents(n)))).toBe(cents(n));
      }),
      { numRuns: 2000 },
    );
  });

  test('formatDecimal(parseDecimal(s)) is s in canonical form', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 0, max: 9_999_999_999_999 }),
        fc.integer({ min: 0, max: 99 }),
        (negative, whole, frac) => {
          const s = `${negative && (whole > 0 || frac > 0) ? '-' : ''}${whole}.${String(frac).padStart(2, '0')}`;
          const parsed = parseDecimal(s);
          expect(parsed).not.toBeNull();
          expect(formatDecimal(parsed!)).toBe(s);
        },
      ),
    );
  });
});

describe('cents', () => {
  test('refuses fractions, NaN and unsafe integers', () => {
    expect(() => cents(1.5)).toThrow(RangeError);
    expect(() => cents(Number.NaN)).toThrow(RangeError);
    expect(() => cents(Number.MAX_SAFE_INTEGER + 1)).toThrow(RangeError);
    expect(cents(42)).toBe(42 as Cents);
  });
});

describe('applyBps', () => {
  test.each([
    [10000, 290, 290], // 2.9 % of $100.00 = $2.90
    [10000, 190, 190],
    [999, 290, 29], // 28.971 -> 29
    [1999, 290, 58], // 57.971 -> 58
    [100, 290, 3], // 2.9 -> 3
    [50, 100, 1], // 0.5 -> 1: half rounds up
    [49, 100, 0], // 0.49 -> 0
    [150, 100, 2], // 1.5 -> 2
    [250, 100, 3], // 2.5 -> 3 (half up, not to even)
    [0, 290, 0],
    [12345, 10000, 12345], // 100 %
    [12345, 0, 0],
  ] as const)('%p cents at %p bps -> %p cents', (amount, bps, expected) => {
    expect(applyBps(cents(amount), bps)).toBe(cents(expected));
  });

  test('matches exact rational rounding half up, and is an integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 10000 }), (amount, bps) => {
        const result = applyBps(cents(amount), bps);
        expect(Number.isInteger(result)).toBe(true);
        // Exact reference in bigint: floor((amount * bps + 5000) / 10000).
        const exact = (BigInt(amount) * BigInt(bps) + 5000n) / 10000n;
        expect(BigInt(result)).toBe(exact);
        // Never more than the amount, never negative.
        expect(result).toBeGreaterThanOrEqual(0);
        expect(result).toBeLessThanOrEqual(amount);
      }),
      { numRuns: 2000 },
    );
  });

  test('is symmetric for negative amounts (refunds round like charges)', () => {
    expect(applyBps(cents(-50), 100)).toBe(cents(-1));
    expect(applyBps(cents(-49), 100)).toBe(cents(0));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 10000 }), (amount, bps) => {
        expect(applyBps(cents(-amount), bps)).toBe(cents(-applyBps(cents(amount), bps) || 0));
      }),
    );
  });

  test('parses negative zero as zero', () => {
    expect(Object.is(parseDecimal('-0.00'), 0)).toBe(true);
  });

  test('is monotonic in the amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 10000 }), (amount, bps) => {
        expect(applyBps(cents(amount + 1), bps)).toBeGreaterThanOrEqual(applyBps(cents(amount), bps));
      }),
    );
  });
});
