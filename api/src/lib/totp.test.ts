import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  TOTP_STEP_SECONDS,
  base32Decode,
  base32Encode,
  hotp,
  newTotpSecret,
  otpauthUri,
  totp,
  totpStep,
  verifyTotp,
} from './totp';

// RFC 6238 appendix B: the SHA-1 seed is the ASCII string "12345678901234567890".
const RFC_SECRET = base32Encode(Buffer.from('12345678901234567890', 'ascii'));

describe('RFC 6238 SHA-1 test vectors', () => {
  test('the seed encodes to the well-known base32 string', () => {
    expect(RFC_SECRET).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode(RFC_SECRET).toString('ascii')).toBe('12345678901234567890');
  });

  // The RFC lists 8-digit values; a 6-digit code is the same value modulo 10^6.
  test.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ] as const)('T=%p s -> %p (last 6 digits)', (seconds, eight) => {
    expect(totp(RFC_SECRET, seconds * 1000)).toBe(eight.slice(2));
  });

  test('the named vectors', () => {
    expect(totp(RFC_SECRET, 59_000)).toBe('287082');
    expect(totp(RFC_SECRET, 1111111109_000)).toBe('081804');
    expect(totp(RFC_SECRET, 1234567890_000)).toBe('005924');
  });

  test('RFC 4226 HOTP vectors (counter 0..9)', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, i) => hotp(RFC_SECRET, i))).toEqual(expected);
  });

  test('codes keep leading zeros', () => {
    const code = totp(RFC_SECRET, 1234567890_000);
    expect(code).toHaveLength(6);
    expect(code.startsWith('00')).toBe(true);
  });
});

describe('verifyTotp', () => {
  const now = 1_700_000_000_000;
  const step = totpStep(now);
  const codeAt = (d: number) => hotp(RFC_SECRET, step + d);

  test('steps are 30 seconds', () => {
    expect(TOTP_STEP_SECONDS).toBe(30);
    expect(totpStep(29_999)).toBe(0);
    expect(totpStep(30_000)).toBe(1);
  });

  test('accepts the current step and returns it', () => {
    expect(verifyTotp(RFC_SECRET, codeAt(0), now)).toBe(step);
  });

  test('accepts one step either side (clock drift) and returns the matched step', () => {
    expect(verifyTotp(RFC_SECRET, codeAt(-1), now)).toBe(step - 1);
    expect(verifyTotp(RFC_SECRET, codeAt(1), now)).toBe(step + 1);
  });

  test('refuses two steps either side', () => {
    // Guard against a coincidental collision between neighbouring codes making the test meaningless.
    const near = new Set([codeAt(-1), codeAt(0), codeAt(1)]);
    if (!near.has(codeAt(-2))) expect(verifyTotp(RFC_SECRET, codeAt(-2), now)).toBeNull();
    if (!near.has(codeAt(2))) expect(verifyTotp(RFC_SECRET, codeAt(2), now)).toBeNull();
    expect(near.has(codeAt(-2)) && near.has(codeAt(2))).toBe(false);
  });

  test('refuses malformed codes without computing anything', () => {
    for (const bad of ['', '12345', '1234567', 'abcdef', ' 287082', '287082 ', '28708a', '２８７０８２']) {
      expect(verifyTotp(RFC_SECRET, bad, 59_000)).toBeNull();
    }
  });

  test('refuses a code made with another secret', () => {
    const other = newTotpSecret();
    const code = totp(other, now);
    if (code !== codeAt(-1) && code !== codeAt(0) && code !== codeAt(1)) {
      expect(verifyTotp(RFC_SECRET, code, now)).toBeNull();
    }
    expect(verifyTotp(other, code, now)).toBe(step);
  });

  test('a code generated at any moment verifies within its step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 60_000, max: 4_000_000_000_000 }), (ms) => {
        expect(verifyTotp(RFC_SECRET, totp(RFC_SECRET, ms), ms)).toBe(totpStep(ms));
      }),
      { numRuns: 200 },
    );
  });
});

describe('base32', () => {
  test('round trip of any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const encoded = base32Encode(bytes);
        expect(encoded).toMatch(/^[A-Z2-7]*$/);
        expect(encoded.length).toBe(Math.ceil((bytes.length * 8) / 5));
        expect([...base32Decode(encoded)]).toEqual([...bytes]);
      }),
      { numRuns: 500 },
    );
  });

  test('decoding tolerates lower case, spaces, dashes and padding', () => {
    expect(base32Decode('gezd gnbv-gy3t qojq====').toString('ascii')).toBe('1234567890');
  });

  test('decoding refuses characters outside the alphabet', () => {
    expect(() => base32Decode('GEZD1')).toThrow();
    expect(() => base32Decode('GEZD8')).toThrow();
  });

  test('new secrets are 160 bits, base32, and different each time', () => {
    const a = newTotpSecret();
    const b = newTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Decode(a)).toHaveLength(20);
    expect(a).not.toBe(b);
  });
});

test('otpauth URI names the issuer, the account and the parameters apps expect', () => {
  const uri = otpauthUri(RFC_SECRET, 'ada@example.com');
  const url = new URL(uri);
  expect(url.protocol).toBe('otpauth:');
  expect(uri.startsWith('otpauth://totp/bpay%3Aada%40example.com?')).toBe(true);
  expect(url.searchParams.get('secret')).toBe(RFC_SECRET);
  expect(url.searchParams.get('issuer')).toBe('bpay');
  expect(url.searchParams.get('algorithm')).toBe('SHA1');
  expect(url.searchParams.get('digits')).toBe('6');
  expect(url.searchParams.get('period')).toBe('30');
});
