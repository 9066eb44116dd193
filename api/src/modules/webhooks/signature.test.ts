import { describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { computeSignature, parseSignatureHeader, signatureHeader, verifySignature } from './signature';

const SECRET = 'whsec_test_secret_0123456789abcdef';
const BODY = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1' } } });
const T = 1_768_478_400;

describe('signatureHeader', () => {
  test('is t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>', () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(signatureHeader(SECRET, BODY, T)).toBe(`t=${T},v1=${expected}`);
    expect(computeSignature(SECRET, T, BODY)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  test('parses back, ignoring unknown schemes and junk', () => {
    expect(parseSignatureHeader(`t=${T},v1=abc,v0=zzz,v1=def,junk`)).toEqual({ timestamp: T, signatures: ['abc', 'def'] });
    expect(parseSignatureHeader('v1=abc')).toEqual({ timestamp: null, signatures: ['abc'] });
    expect(parseSignatureHeader('t=12x,v1=abc').timestamp).toBeNull();
  });
});

describe('verifySignature', () => {
  const header = signatureHeader(SECRET, BODY, T);
  const other = signatureHeader('whsec_other', BODY, T);
  const cases: Array<{ name: string; body: string; header: string | null; secret?: string; now: number; ok: boolean }> = [
    { name: 'the exact body, on time', body: BODY, header, now: T, ok: true },
    { name: '4 min 59 s later', body: BODY, header, now: T + 299, ok: true },
    { name: 'exactly 5 minutes later', body: BODY, header, now: T + 300, ok: true },
    { name: 'a timestamp older than 5 minutes', body: BODY, header, now: T + 301, ok: false },
    { name: 'a timestamp from the future beyond the tolerance', body: BODY, header, now: T - 301, ok: false },
    { name: 'a tampered body', body: BODY.replace('pi_1', 'pi_2'), header, now: T, ok: false },
    { name: 'one byte added (whitespace)', body: `${BODY} `, header, now: T, ok: false },
    { name: 'a re-serialised body', body: JSON.stringify(JSON.parse(BODY), null, 1), header, now: T, ok: false },
    { name: 'the wrong secret', body: BODY, header, secret: 'whsec_wrong', now: T, ok: false },
    { name: 'a timestamp changed after signing', body: BODY, header: header.replace(`t=${T}`, `t=${T + 10}`), now: T, ok: false },
    { name: 'no header', body: BODY, header: null, now: T, ok: false },
    { name: 'an empty header', body: BODY, header: '', now: T, ok: false },
    { name: 'no v1 signature', body: BODY, header: `t=${T}`, now: T, ok: false },
    { name: 'no timestamp', body: BODY, header: header.replace(`t=${T},`, ''), now: T, ok: false },
    { name: 'a truncated signature', body: BODY, header: header.slice(0, -2), now: T, ok: false },
    { name: 'one good signature among several (a rolled secret)', body: BODY, header: `${other},${header.split(',')[1]}`, now: T, ok: true },
  ];
  test.each(cases)('$name -> $ok', ({ body, header: h, secret, now, ok }) => {
    expect(verifySignature(body, h, secret ?? SECRET, 300, now)).toBe(ok);
  });
});
