import { describe, expect, test } from 'bun:test';
import { en, ar } from '../../i18n/messages/bcards';
import { ltrIsolate } from '../../lib/card-display';
import { bankDebitWords, stageWords, type BcardStage } from './stage';

const stage = (over: Partial<BcardStage>): BcardStage => ({ code: 'active', held: null, spent: null, returned: null, merchant: null, ...over });
const say = (lang: 'en' | 'ar', s: BcardStage, iso?: (t: string) => string) => {
  const w = stageWords(s, iso);
  return Object.entries(w.values).reduce((text, [k, v]) => text.replace(`{${k}}`, v), (lang === 'en' ? en : ar)[w.key as keyof typeof en]);
};

describe('a bcard stage in words', () => {
  test('each stage says what it is, with its figures, in English', () => {
    expect(say('en', stage({ code: 'active', held: '40.00' }))).toBe('Active ($40.00 held)');
    expect(say('en', stage({ code: 'used', spent: '25.00', merchant: 'Corner Books' }))).toBe('Used at Corner Books');
    expect(say('en', stage({ code: 'used', spent: '25.00' }))).toBe('Used');
    expect(say('en', stage({ code: 'partly_used', spent: '60.00', returned: '40.00', merchant: 'X' }))).toBe('Partly used ($40.00 returned)');
    expect(say('en', stage({ code: 'expired', returned: '20.58' }))).toBe('Expired ($20.58 returned)');
    expect(say('en', stage({ code: 'canceled', returned: '10.29' }))).toBe('Canceled ($10.29 returned)');
    expect(say('en', stage({ code: 'canceling', returned: '10.29' }))).toBe('Closing…');
    // Never "Completed" for any stage.
    for (const code of ['collecting', 'not_issued', 'active', 'authorized', 'used', 'partly_used', 'expiring', 'expired', 'canceling', 'canceled'] as const) {
      expect(say('en', stage({ code, held: '1.00', returned: '1.00', merchant: 'M' }))).not.toMatch(/complete/i);
    }
  });

  test('in Arabic the amount stays one left-to-right piece', () => {
    const text = say('ar', stage({ code: 'canceled', returned: '10.29' }), ltrIsolate);
    expect(text).toBe(`ملغاة (أُعيد ${ltrIsolate('$10.29')})`);
  });

  test('bank debits: settling yellow, returned red', () => {
    expect(bankDebitWords('pending')).toMatchObject({ key: 'bcards.bankDebit.pending', tone: 'yellow' });
    expect(en[bankDebitWords('pending').key as keyof typeof en]).toBe('Pending (bank debit settling)');
    expect(en[bankDebitWords('returned').key as keyof typeof en]).toBe('Returned by the bank');
    expect(ar[bankDebitWords('returned').key as keyof typeof en]).toBe('أعاده البنك');
  });
});
