import { describe, expect, test } from 'bun:test';
import { MAX_AMOUNT, MIN_AMOUNT } from '../../api/src/modules/payment-intents/service';
import {
  formatDetails,
  formatMoney,
  formatTable,
  formatTime,
  MAX_PAYMENT_CENTS,
  MIN_PAYMENT_CENTS,
  parseCents,
  parseIntFlag,
  parsePairs,
  parsePaymentAmount,
  UsageError,
  withSpinner,
  type Io,
} from './output';

describe('formatMoney', () => {
  const table: Array<[number, string, string]> = [
    [1234, 'usd', '$12.34 USD'],
    [5, 'usd', '$0.05 USD'],
    [0, 'usd', '$0.00 USD'],
    [2000, 'USD', '$20.00 USD'],
    [123456789, 'usd', '$1,234,567.89 USD'],
    [-1050, 'usd', '-$10.50 USD'],
    [999, 'eur', '€9.99 EUR'],
    [100, 'chf', '1.00 CHF'],
  ];
  for (const [cents, currency, text] of table) test(`${cents} ${currency} → ${text}`, () => expect(formatMoney(cents, currency)).toBe(text));
});

test('formatTime reads unix seconds and ISO strings', () => {
  expect(formatTime(1768478400)).toBe('2026-01-15 12:00:00 UTC');
  expect(formatTime('2026-01-15T12:00:00.000Z')).toBe('2026-01-15 12:00:00 UTC');
  expect(formatTime(null)).toBe('—');
});

describe('formatTable', () => {
  const rows = [
    { id: 'pi_1', amount: 2000, status: 'succeeded', note: null as string | null },
    { id: 'pi_22222', amount: 5, status: 'requires_payment_method', note: 'two\nlines' },
  ];
  const out = formatTable(rows, [
    { header: 'ID', value: (r) => r.id },
    { header: 'Amount', value: (r) => formatMoney(r.amount), align: 'right' },
    { header: 'Status', value: (r) => r.status },
    { header: 'Note', value: (r) => r.note },
  ]);

  test('columns line up under upper-case headers; amounts (and their header) right-aligned; empty cells shown as a dash', () => {
    expect(out).toBe(
      [
        'ID            AMOUNT  STATUS                   NOTE',
        'pi_1      $20.00 USD  succeeded                —',
        'pi_22222   $0.05 USD  requires_payment_method  two lines',
        '',
      ].join('\n'),
    );
  });

  test('every row has its columns at the same offsets', () => {
    const lines = out.trimEnd().split('\n');
    const statusAt = lines.map((l) => l.search(/STATUS|succeeded|requires_/));
    expect(new Set(statusAt).size).toBe(1);
  });

  test('a table with no rows is its header', () => {
    expect(formatTable([], [{ header: 'Id', value: () => 'x' }])).toBe('ID\n');
  });
});

test('formatDetails aligns keys', () => {
  expect(formatDetails([['ID', 'pi_1'], ['Description', null], ['Amount', '$1.00 USD']])).toBe(
    'ID           pi_1\nDescription  —\nAmount       $1.00 USD\n',
  );
});

describe('flag parsing', () => {
  test('parsePairs', () => {
    expect(parsePairs(['order=42', 'note=a=b', 'empty='], '--metadata')).toEqual({ order: '42', note: 'a=b', empty: '' });
    expect(() => parsePairs(['nokey'], '--metadata')).toThrow(UsageError);
    expect(() => parsePairs(['=v'], '--metadata')).toThrow(UsageError);
  });
  test('parseIntFlag: whole numbers within bounds only', () => {
    expect(parseIntFlag('20', '--risk', 0, 100)).toBe(20);
    expect(parseIntFlag('0', '--risk', 0, 100)).toBe(0);
    for (const bad of ['101', '-1', '2.5', 'abc', '', '1e2']) expect(() => parseIntFlag(bad, '--risk', 0, 100)).toThrow(UsageError);
  });
  test('parsePaymentAmount: the server\'s range (50 to 99999999 cents), said in cents and dollars', () => {
    expect(parsePaymentAmount('50', '--amount')).toBe(50);
    expect(parsePaymentAmount('99999999', '--amount')).toBe(99_999_999);
    for (const bad of ['49', '0', '100000000', '20.00', '-50', 'abc', '', '1e3']) {
      expect(() => parsePaymentAmount(bad, '--amount')).toThrow(
        `--amount must be a whole number of cents from 50 to 99999999 ($0.50 to $999,999.99) (got "${bad}").`,
      );
    }
  });
  test('the local amount range is the server\'s', () => {
    expect([MIN_PAYMENT_CENTS, MAX_PAYMENT_CENTS]).toEqual([MIN_AMOUNT, MAX_AMOUNT]);
  });
  test('parseCents', () => {
    expect(parseCents('2000', '--amount')).toBe(2000);
    expect(() => parseCents('20.00', '--amount')).toThrow('--amount must be a whole number');
  });
});

describe('withSpinner', () => {
  const io = (tty: boolean): Io & { errText: string } => {
    const o = { errText: '', errIsTTY: tty, out: () => {}, err: (s: string) => void (o.errText += s) };
    return o;
  };
  const slow = () => new Promise<string>((r) => setTimeout(() => r('done'), 200));

  test('draws on a terminal and clears its line', async () => {
    const t = io(true);
    expect(await withSpinner(t, 'Loading', true, slow)).toBe('done');
    expect(t.errText).toContain('Loading');
    expect(t.errText.endsWith('\r\x1b[2K')).toBe(true);
  });
  test('silent when stderr is not a terminal or the output is JSON', async () => {
    const notTty = io(false);
    await withSpinner(notTty, 'Loading', true, slow);
    expect(notTty.errText).toBe('');
    const json = io(true);
    await withSpinner(json, 'Loading', false, slow);
    expect(json.errText).toBe('');
  });
  test('passes errors through', async () => {
    await expect(withSpinner(io(true), 'x', true, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
