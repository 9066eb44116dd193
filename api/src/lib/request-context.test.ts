import { describe, expect, test } from 'bun:test';
import { clientAddress, setPeerAddress } from './request-context';

describe('clientAddress', () => {
  const request = (xff?: string) => {
    const r = new Request('http://localhost/', { headers: xff ? { 'x-forwarded-for': xff } : {} });
    setPeerAddress(r, '10.0.0.2');
    return r;
  };

  test('without a trusted proxy: the TCP peer, whatever X-Forwarded-For says', () => {
    expect(clientAddress(request('198.51.100.1'), false)).toBe('10.0.0.2');
  });

  test('behind a trusted proxy: the hop the proxy appended, not what the client put first', () => {
    // The client sent "X-Forwarded-For: 1.2.3.4" to dodge its rate limit; the proxy appended the real address.
    expect(clientAddress(request('1.2.3.4, 198.51.100.7'), true)).toBe('198.51.100.7');
    expect(clientAddress(request('198.51.100.7'), true)).toBe('198.51.100.7');
    expect(clientAddress(request(), true)).toBe('10.0.0.2');
  });
});
