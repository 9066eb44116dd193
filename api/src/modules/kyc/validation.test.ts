import { describe, expect, test } from 'bun:test';
import { AppError } from '../../errors';
import { ageOn, checkDateOfBirth, checkUploadedFile, contentDisposition, detectContentType, sanitiseFileName, storedFileName } from './validation';

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
    const header = contentDisposition('جواز "سفر".png', 'image/png');
    expect(header).toMatch(/^attachment; filename="[A-Za-z0-9 ._()-]+\.png"; filename\*=UTF-8''[^\s"]+\.png$/);
  });

  test("a stored name keeps the user's base name and takes the detected type's extension", () => {
    expect(storedFileName('passport.png', 'image/png')).toBe('passport.png');
    expect(storedFileName('Passport.PNG', 'image/png')).toBe('Passport.png');
    expect(storedFileName('selfie.JPEG', 'image/jpeg')).toBe('selfie.jpg');
    expect(storedFileName('passport', 'application/pdf')).toBe('passport.pdf');
    expect(storedFileName('scan 12.05.2024', 'application/pdf')).toBe('scan 12.05.2024.pdf');
    expect(storedFileName('scan.pdf. . ', 'application/pdf')).toBe('scan.pdf');
    // Names kept before this rule are repaired where they are shown and served.
    expect(storedFileName('x.html', 'image/png')).toBe('x.html.png');
    expect(storedFileName('scan.png', 'application/pdf')).toBe('scan.png.pdf');
    expect(storedFileName('', 'image/jpeg')).toBe('document.jpg');
    expect(storedFileName('../../.png', 'image/png')).toBe('png.png');
    const long = storedFileName(`${'x'.repeat(300)}.png`, 'image/png');
    expect(long).toHaveLength(100);
    expect(long.endsWith('x.png')).toBe(true);
    for (const n of ['a.png', 'x.html', 'جواز.png', 'a"b;c\r\n.pdf', '']) {
      expect(storedFileName(storedFileName(n, 'image/png'), 'image/png')).toBe(storedFileName(n, 'image/png'));
    }
  });

  const PNG = bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
  const PDF = text('%PDF-1.7\n%%EOF\n');
  const refused = (name: string, type: string, content: Uint8Array) => {
    try {
      checkUploadedFile(name, type, content);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return { status: e.status, code: e.code, param: e.param, message: e.message };
    }
    throw new Error(`${name} was accepted`);
  };

  test('the name and the declared type must agree with the content; refusals are 415 naming the file', () => {
    expect(refused('scan.png', 'image/png', PDF)).toEqual({
      status: 415,
      code: 'unsupported_media_type',
      param: 'documents',
      message: 'scan.png is named as a .png file but its content is a PDF document.',
    });
    expect(refused('x.html', 'image/png', PNG).message).toBe('x.html is named as a .html file but its content is a PNG image.');
    expect(refused('x.html.', '', PNG).message).toBe('x.html. is named as a .html file but its content is a PNG image.');
    expect(refused('scan.pdf', 'image/png', PDF).message).toBe('scan.pdf was sent as image/png but its content is a PDF document.');
    expect(refused('passport.png', 'text/html', PNG).message).toBe('passport.png was sent as text/html but its content is a PNG image.');
    expect(refused('passport', 'te"xt/<b>', PNG).message).toBe('passport was sent as another type but its content is a PNG image.');
    expect(refused('photo.png', 'image/png', text('<svg/>'))).toMatchObject({ status: 415, message: 'photo.png is not a JPG, PNG or PDF file.' });
  });

  test('a name without an extension, a neutral or aliased declared type, and a date in the name are accepted', () => {
    expect(checkUploadedFile('passport', '', PNG)).toEqual({ name: 'passport.png', contentType: 'image/png' });
    expect(checkUploadedFile('scan', 'application/octet-stream', PDF)).toEqual({ name: 'scan.pdf', contentType: 'application/pdf' });
    expect(checkUploadedFile('selfie.jpeg', 'image/jpg', bytes(0xff, 0xd8, 0xff, 0xe0))).toEqual({ name: 'selfie.jpg', contentType: 'image/jpeg' });
    expect(checkUploadedFile('scan 12.05.2024', 'application/pdf; charset=binary', PDF).name).toBe('scan 12.05.2024.pdf');
    expect(checkUploadedFile('PASSPORT.PNG', 'IMAGE/PNG', PNG).name).toBe('PASSPORT.png');
  });
});
