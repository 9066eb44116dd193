import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { findAmounts, parseAmount, pickTotal, totalLabel } from './amount';

const NBSP = '\u00a0';
const NNBSP = '\u202f';

describe('parseAmount', () => {
  const cases: Array<[string, number, string | null]> = [
    ['$1,234.50', 123450, 'usd'],
    ['USD 1,234.50', 123450, 'usd'],
    ['1,234.50 USD', 123450, 'usd'],
    ['US$49.00', 4900, 'usd'],
    [`1.234,56${NBSP}€`, 123456, 'eur'],
    ['1.234,56 €', 123456, 'eur'],
    [`1${NNBSP}234,56${NBSP}€`, 123456, 'eur'],
    [`1${NBSP}234,56 €`, 123456, 'eur'],
    ['€12', 1200, 'eur'],
    ['£12', 1200, 'gbp'],
    ['¥1,200', 1200, 'jpy'],
    ['￥12,800', 12800, 'jpy'],
    ['¥1,200.00', 1200, 'jpy'],
    ['١٬٢٣٤٫٥٠ ر.س', 123450, 'sar'],
    ['\u200f١٬٢٣٤٬٥٦٧٫٥٠\u00a0ر.س.\u200f', 123456750, 'sar'],
    ['SAR 1,234.50', 123450, 'sar'],
    ['AED 99', 9900, 'aed'],
    ['2,499.00 د.إ', 249900, 'aed'],
    ['١٢٠٫٠٠ ج.م', 12000, 'egp'],
    ['١٢٫٥٠٠ د.ك', 12500, 'kwd'],
    ['KWD 12.500', 12500, 'kwd'],
    ['KWD 1,234.500', 1234500, 'kwd'],
    ['۱۲۳٫۴۵ ﷼', 12345, 'sar'],
    ['₹12,34,567.50', 123456750, 'inr'],
    ["CHF 1'234.50", 123450, 'chf'],
    ['CHF 1’234.50', 123450, 'chf'],
    ['12,5 €', 1250, 'eur'],
    ['$12.5', 1250, 'usd'],
    ['$0.99', 99, 'usd'],
    ['12.50', 1250, null],
    ['1,234,567', 123456700, null],
    // A lone separator before exactly three digits groups thousands, in a euro context or none (a decimal reading
    // would be a fraction of a cent); in a three-decimal currency a lone '.' is the decimal point.
    ['1.234', 123400, null],
    ['1.234 €', 123400, 'eur'],
    ['1,234 €', 123400, 'eur'],
    ['$1.234', 123400, 'usd'],
    ['KWD 1.234', 1234, 'kwd'],
  ];
  for (const [text, cents, currency] of cases) {
    test(JSON.stringify(text), () => expect(parseAmount(text)).toEqual({ cents, currency }));
  }

  const garbage = ['', ' ', 'abc', 'Total', 'Total $5.00', '12/25', '4242 4242 4242 4242', '4242424242424242', '$1.2345',
    '¥1,200.50', '1,23,4', '1.2.3', '€5 $6', '-$5.00', '−$5.00', '15%', '$', 'USD', '12 34', '1,2345', '٢٠٢٥-١٠-٠٣',
    '+1 555 123 4567', '9'.repeat(20), '$1,234,56.00'];
  for (const text of garbage) test(`rejects ${JSON.stringify(text)}`, () => expect(parseAmount(text)).toBeNull());

  test('never a float: every result is a safe integer', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (s) => {
        const a = parseAmount(s);
        return a === null || (Number.isSafeInteger(a.cents) && a.cents >= 0);
      }),
    );
  });
});

describe('Intl-formatted amounts parse back exactly', () => {
  const locales: Array<[string, string, number]> = [
    ['en-US', 'USD', 2],
    ['de-DE', 'EUR', 2],
    ['ar-SA', 'SAR', 2],
    ['fr-FR', 'EUR', 2],
    ['ar-EG', 'EGP', 2],
    ['ar-KW', 'KWD', 3],
    ['ja-JP', 'JPY', 0],
    ['en-IN', 'INR', 2],
    ['de-CH', 'CHF', 2],
    ['en-GB', 'GBP', 2],
  ];
  for (const [locale, currency, digits] of locales) {
    test(`${locale} ${currency}`, () => {
      const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 10 ** 12 }), (minor) => {
          // A decimal string, so the formatter sees the exact value and no float rounding is involved.
          const whole = String(Math.floor(minor / 10 ** digits));
          const frac = digits ? `.${String(minor % 10 ** digits).padStart(digits, '0')}` : '';
          const text = format.format(`${whole}${frac}` as unknown as number);
          expect(parseAmount(text)).toEqual({ cents: minor, currency: currency.toLowerCase() });
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('findAmounts', () => {
  test('finds each amount with its currency, skipping discounts, percentages and codes', () => {
    const found = findAmounts('Subtotal $10.00 · Discount −$2.00 (20%) (١٥٪) · Shipping $5.00 · SKU12345 · Total $13.00');
    expect(found.map((a) => [a.cents, a.currency, a.text])).toEqual([
      [1000, 'usd', '$10.00'],
      [500, 'usd', '$5.00'],
      [1300, 'usd', '$13.00'],
    ]);
  });
  test('a currency after one amount is not taken from the next', () => {
    expect(findAmounts('$10.00 $20.00').map((a) => a.cents)).toEqual([1000, 2000]);
    expect(findAmounts('$10.00 $20.00').every((a) => a.currency === 'usd')).toBe(true);
  });
  test('Arabic text keeps the original characters in text', () => {
    const [a] = findAmounts('الإجمالي: ١٬٢٣٤٫٥٠ ر.س');
    expect(a).toMatchObject({ cents: 123450, currency: 'sar', text: '١٬٢٣٤٫٥٠ ر.س' });
  });
});

describe('totals near labels', () => {
  test('labels and their strength', () => {
    expect(totalLabel('Order total').rank).toBe(3);
    expect(totalLabel('Grand total (incl. VAT)').rank).toBe(3);
    expect(totalLabel('Total due today').rank).toBe(3);
    expect(totalLabel('Amount due').rank).toBe(3);
    expect(totalLabel('Total').rank).toBe(2);
    expect(totalLabel('Total:').rank).toBe(2);
    expect(totalLabel('الإجمالي').rank).toBe(2);
    expect(totalLabel('المجموع').rank).toBe(2);
    expect(totalLabel('المبلغ الإجمالي').rank).toBe(3);
    expect(totalLabel('合計（税込）').rank).toBe(2);
    expect(totalLabel('Gesamtsumme').rank).toBe(3);
    expect(totalLabel('Pay $45.00').rank).toBe(1);
    expect(totalLabel('ادفع ١٢٣٫٠٠ ر.س').rank).toBe(1);
    expect(totalLabel('Payment').rank).toBe(0);
    for (const no of ['Subtotal', 'Sub-total', 'Total savings', 'Total items: 3', 'Totals', 'Cart totals', 'المجموع الفرعي',
      'Total conversion rates dropped by a fifth after the redesign', 'Totally worth it', '小計']) {
      expect(totalLabel(no).rank).toBe(0);
    }
  });

  test('the amount after the label, across runs and split currency symbols', () => {
    expect(pickTotal(['Subtotal', '$', '76.00', 'Shipping', '$', '13.00', 'Total', '$', '89.00'])).toEqual({
      cents: 8900,
      currency: 'usd',
      text: '$ 89.00',
    });
    expect(pickTotal(['Total', '(USD)', '$52.00'])).toMatchObject({ cents: 5200, currency: 'usd' });
    expect(pickTotal(['المجموع الفرعي', '١٬٠٧٣٫٤٨ ر.س', 'الإجمالي', '١٬٢٣٤٫٥٠ ر.س'])).toMatchObject({ cents: 123450, currency: 'sar' });
    expect(pickTotal(['Gesamtsumme 1.234,56 €'])).toMatchObject({ cents: 123456, currency: 'eur' });
  });

  test('the strongest label wins, then the last one', () => {
    expect(pickTotal(['Total', '$10.00', 'Order total', '$15.00', 'Total', '$20.00'])).toMatchObject({ cents: 1500 });
    expect(pickTotal(['Total', '$10.00', 'Total', '$20.00'])).toMatchObject({ cents: 2000 });
    expect(pickTotal(['Pay $45.00', 'Total', '$45.00'])).toMatchObject({ cents: 4500 });
  });

  test('no total when the label has no amount of its own before the next line', () => {
    expect(pickTotal(['Total', 'Shipping', '$5.00'])).toBeNull();
    expect(pickTotal(['Cart totals', 'Subtotal', '$89.00'])).toBeNull();
    expect(pickTotal(['Total', '3 items'])).toBeNull();
    expect(pickTotal(['Pay now', '$45.00'])).toBeNull();
  });
});
