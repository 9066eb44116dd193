import { describe, expect, test } from 'bun:test';
import { ageOn, checkDateOfBirth, contentDisposition, detectContentType, sanitiseFileName } from './validation';

const bytes = (...b: number[]) => new Uint8Array(b);
const text = (s: string) => new TextEncoder().encode(s);

describe('KYC validation rules', () => {
  test('age in whole years, birthdays counted on the day (29 February on 1 March in common years)', () => {
    const leapling = { y: 2008, m: 2, d: 29 };
    expect(ageOn(leapling, new Date(Date.UTC(2026, 1, 28)))).toBe(17);
    expect(ageOn(leapling, new Date(Date.UTC(2026, 2, 1)))).toBe(18);
    expect(ageOn({ y: 2008, m: 1, d: 15 }, new Date(Date.UTC(2026, 0, 15, 0, 0, 0)))).toBe(18);
    expect(ageOn({ y: 2008, m: 1, d: 16 }, new Date(Date.UTC(2026, 0, 15, 23, 59, 59)))).toBe(17);
  });

  test('date of birth: format, calendar, plausibility, 18+', () => {
    const now = new Date(Date.UTC(2026, 0, 15, 12));
    expect(checkDateOfBirth('2008-01-15', now)).toBe('2008-01-15');
    for (const bad of ['2008-01-16', '2007-02-29', '1899-12-31', '2026-13-01', '20080115', '', undefined]) {
      expect(() => checkDateOfBirth(bad, now)).toThrow();
    }
  });

  test('content is detected from the first bytes only', () => {
    expect(detectContentType(bytes(0xff, 0xd8, 0xff, 0xdb))).toBe('image/jpeg');
    expect(detectContentType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))).toBe('image/png');
    expect(detectContentType(bytes(0x89, 0x50, 0x4e, 0x47))).toBeNull();
    expect(detectContentType(text('%PDF-1.4'))).toBe('application/pdf');
    expect(detectContentType(text('<svg/>'))).toBeNull();
    expect(detectContentType(text('<!doctype html>'))).toBeNull();
    expect(detectContentType(text(' %PDF-1.4'))).toBeNull();
    expect(detectContentType(new Uint8Array(0))).toBeNull();
  });

  test('file names are made safe to store and to put in a header', () => {
    expect(sanitiseFileName('C:\\Users\\me\\passport.png')).toBe('passport.png');
    expect(sanitiseFileName('../../.hidden')).toBe('hidden');
    expect(sanitiseFileName('a"b;c\r\n.pdf')).toBe('a_b_c__.pdf');
    expect(sanitiseFileName('')).toBe('document');
    expect(sanitiseFileName('جواز.png')).toBe('جواز.png');
    expect(sanitiseFileName('x'.repeat(300))).toHaveLength(100);
    const header = contentDisposition('جواز "سفر".png');
    expect(header).toMatch(/^inline; filename="[A-Za-z0-9 ._()-]+"; filename\*=UTF-8''[^\s"]+$/);
  });
});
