/*
 * robots.txt and sitemap.xml, made by the server because both must name the site by its absolute public URL
 * (BPAY_PUBLIC_URL), which the build does not know.
 */

/** Public pages a search engine may list, each with its other-language twin when there is one. */
export const PUBLIC_PAGES: readonly { path: string; alternates?: { en: string; ar: string } }[] = [
  { path: '/', alternates: { en: '/', ar: '/ar' } },
  { path: '/ar', alternates: { en: '/', ar: '/ar' } },
  { path: '/auth' },
  { path: '/terms-conditions' },
  { path: '/privacy-policy' },
  { path: '/legal-disclaimers' },
  { path: '/investors', alternates: { en: '/investors', ar: '/investors-ar' } },
  { path: '/investors-ar', alternates: { en: '/investors', ar: '/investors-ar' } },
  { path: '/extension', alternates: { en: '/extension', ar: '/extension-ar' } },
  { path: '/extension-ar', alternates: { en: '/extension', ar: '/extension-ar' } },
  { path: '/payment-demo' },
  { path: '/addon-checkout-demo' },
  { path: '/banner-checkout-demo' },
];

/** Signed-in, operator and payment screens: nothing there for a search engine, and the API is not a page. */
export const PRIVATE_PREFIXES: readonly string[] = [
  '/api/',
  '/admin-panel',
  '/admin-login',
  '/merchant-dashboard',
  '/merchant-portal',
  '/kyc-verification',
  '/checkout/',
];

/** An absolute URL on the site's origin (the app is always served from the origin's root). */
function absolute(publicUrl: URL, path: string): string {
  return new URL(path, publicUrl.origin).href;
}

export function robotsTxt(publicUrl: URL): string {
  return [
    'User-agent: *',
    'Allow: /',
    ...PRIVATE_PREFIXES.map((p) => `Disallow: ${p}`),
    '',
    `Sitemap: ${absolute(publicUrl, '/sitemap.xml')}`,
    '',
  ].join('\n');
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function sitemapXml(publicUrl: URL): string {
  const urls = PUBLIC_PAGES.map(({ path, alternates }) => {
    const links = alternates
      ? (['en', 'ar'] as const).map(
          (lang) => `\n    <xhtml:link rel="alternate" hreflang="${lang}" href="${xmlEscape(absolute(publicUrl, alternates[lang]))}"/>`,
        )
      : [];
    return `  <url>\n    <loc>${xmlEscape(absolute(publicUrl, path))}</loc>${links.join('')}\n  </url>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ...urls,
    '</urlset>',
    '',
  ].join('\n');
}
