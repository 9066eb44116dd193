import { expect, test } from 'bun:test';
import { PUBLIC_PAGES, robotsTxt, sitemapXml } from './site-files';

test('robots.txt allows the public pages, keeps crawlers out of the private areas and names the sitemap absolutely', () => {
  const robots = robotsTxt(new URL('https://pay.example.com'));
  const lines = robots.split('\n');
  expect(lines[0]).toBe('User-agent: *');
  expect(lines).toContain('Allow: /');
  for (const p of ['/api/', '/admin-panel', '/admin-login', '/merchant-dashboard', '/merchant-portal', '/kyc-verification', '/checkout/']) {
    expect(lines).toContain(`Disallow: ${p}`);
  }
  expect(lines).toContain('Sitemap: https://pay.example.com/sitemap.xml');
  // No rule shuts out a public page.
  const disallowed = lines.filter((l) => l.startsWith('Disallow: ')).map((l) => l.slice('Disallow: '.length));
  for (const { path } of PUBLIC_PAGES) expect({ path, blocked: disallowed.some((d) => path.startsWith(d)) }).toEqual({ path, blocked: false });
});

test('the sitemap URL uses the public origin, whatever path or port BPAY_PUBLIC_URL carries', () => {
  expect(robotsTxt(new URL('http://localhost:3000/'))).toContain('Sitemap: http://localhost:3000/sitemap.xml');
  expect(robotsTxt(new URL('https://pay.example.com/some/path'))).toContain('Sitemap: https://pay.example.com/sitemap.xml');
});

test('sitemap.xml lists exactly the public pages, absolute, with the Arabic and English twins linked', () => {
  const xml = sitemapXml(new URL('https://pay.example.com'));
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"')).toBe(true);
  const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
  expect(locs).toEqual(
    [
      '/',
      '/ar',
      '/auth',
      '/terms-conditions',
      '/privacy-policy',
      '/legal-disclaimers',
      '/investors',
      '/investors-ar',
      '/extension',
      '/extension-ar',
      '/payment-demo',
      '/addon-checkout-demo',
      '/banner-checkout-demo',
    ].map((p) => `https://pay.example.com${p}`),
  );
  expect(xml).toContain('<xhtml:link rel="alternate" hreflang="ar" href="https://pay.example.com/investors-ar"/>');
  expect(xml.match(/hreflang="en" href="https:\/\/pay.example.com\/"/g)).toHaveLength(2);
  expect(xml.trimEnd().endsWith('</urlset>')).toBe(true);
});
