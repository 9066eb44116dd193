import { describe, expect, test } from 'bun:test';
import { MULTI_LABEL_SUFFIXES, registrableDomain } from './registrable-domain';

describe('registrableDomain', () => {
  test.each([
    // One-label suffixes: the last two labels.
    ['https://shop.com/checkout', 'shop.com'],
    ['https://www.shop.com', 'shop.com'],
    ['https://pay.eu.checkout.shop.com/x?y=1#z', 'shop.com'],
    ['HTTPS://WWW.Shop.COM/Cart', 'shop.com'],
    ['shop.com', 'shop.com'],
    ['www.shop.com:8443/cart', 'shop.com'],
    ['https://shop.com./', 'shop.com'],
    ['https://user:pass@shop.io:444/', 'shop.io'],
    // Multi-label public suffixes: three labels.
    ['https://www.shop.example.co.uk/checkout', 'example.co.uk'],
    ['https://example.co.uk', 'example.co.uk'],
    ['https://store.example.com.au', 'example.com.au'],
    ['https://a.b.example.co.jp', 'example.co.jp'],
    ['https://loja.example.com.br', 'example.com.br'],
    ['https://shop.example.co.in', 'example.co.in'],
    ['https://www.noon.com.sa/checkout', 'noon.com.sa'],
    ['https://shop.example.com.eg', 'example.com.eg'],
    ['https://shop.example.co.za', 'example.co.za'],
    ['https://charity.example.org.uk', 'example.org.uk'],
    ['https://www.cam.ac.uk', 'cam.ac.uk'],
    // www is the registered label under a public suffix: kept.
    ['https://www.gov.uk', 'www.gov.uk'],
    ['https://www.shop.co.uk', 'shop.co.uk'],
    ['https://shop.example.net.au', 'example.net.au'],
    ['https://shop.example.com.tr', 'example.com.tr'],
    ['https://tienda.example.com.mx', 'example.com.mx'],
    ['https://shop.example.co.nz', 'example.co.nz'],
    // Local shops, IP addresses: whole.
    ['http://127.0.0.1:4100/checkout', '127.0.0.1'],
    ['http://localhost:4100/cart', 'localhost'],
    ['http://LOCALHOST', 'localhost'],
    ['http://www.localhost:3000', 'localhost'],
    ['http://192.168.1.20/shop', '192.168.1.20'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://[::1]:4100/', '::1'],
    ['http://[2001:db8::1]/', '2001:db8::1'],
    ['10.0.0.1:8080', '10.0.0.1'],
    // Internationalised names: their ASCII form.
    ['https://www.bücher.de/kasse', 'xn--bcher-kva.de'],
    ['https://متجر.example.sa/', 'example.sa'],
  ] as Array<[string, string | null]>)('%s -> %s', (input, expected) => {
    expect(registrableDomain(input)).toBe(expected);
  });

  test.each(['', '   ', 'not a url', 'about:blank', 'chrome://extensions', 'file:///tmp/shop.html', 'com', 'co.uk', 'https://co.uk/', 'https://a..b.com', 'http://'])(
    '%p has no registrable domain',
    (input) => {
      expect(registrableDomain(input)).toBeNull();
    },
  );

  test('a suffix missing from the list gives a broader domain, never a narrower one (the documented limitation)', () => {
    // kawasaki.jp's city names are public suffixes in the real list; here the lock is the broader kawasaki.jp.
    expect(registrableDomain('https://shop.city.kawasaki.jp')).toBe('kawasaki.jp');
    // A private suffix not in the list: two shops there share one domain.
    expect(registrableDomain('https://a.shops.example-host.com')).toBe(registrableDomain('https://b.shops.example-host.com'));
  });

  test("the hosting platforms' private suffixes: each shop there is its own site", () => {
    expect(registrableDomain('https://alice-shoes.myshopify.com/checkouts/1')).toBe('alice-shoes.myshopify.com');
    expect(registrableDomain('https://mallory.myshopify.com')).toBe('mallory.myshopify.com');
    expect(registrableDomain('https://shop.github.io/pay')).toBe('shop.github.io');
    expect(registrableDomain('https://my-store.vercel.app')).toBe('my-store.vercel.app');
    expect(registrableDomain('https://myshopify.com')).toBeNull();
  });

  test('the built-in suffixes are all two lower-case labels', () => {
    expect(MULTI_LABEL_SUFFIXES.size).toBeGreaterThan(100);
    for (const s of MULTI_LABEL_SUFFIXES) expect(s).toMatch(/^[a-z]+\.[a-z]+$/);
    for (const s of ['co.uk', 'com.au', 'co.jp', 'com.br', 'co.in', 'com.sa', 'com.eg', 'co.za', 'org.uk', 'ac.uk', 'gov.uk', 'net.au', 'com.tr', 'com.mx', 'co.nz']) {
      expect(MULTI_LABEL_SUFFIXES.has(s)).toBe(true);
    }
  });
});
