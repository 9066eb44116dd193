/**
 * The registrable domain ("eTLD+1") of a URL or host name: the part a shop owns, which a bcard made for a site is
 * locked to. `https://www.shop.example.co.uk/checkout` -> `example.co.uk`, `https://pay.shop.com` -> `shop.com`.
 *
 * - The host is lower-cased and a trailing dot dropped. A leading `www.` never counts (`www.shop.com` -> `shop.com`,
 *   `www.localhost` -> `localhost`), except where it is the registered label itself: `www.gov.uk` stays whole, as
 *   `gov.uk` is a public suffix.
 * - An IP address (v4, or v6 in brackets or bare) and `localhost` are their own domain, whole: a local test shop at
 *   http://127.0.0.1:4100 is `127.0.0.1`, http://localhost:4100 is `localhost`.
 * - Internationalised names come back in their ASCII (punycode) form, as the URL parser gives them.
 *
 * Limitation: this is not the Public Suffix List. It knows the single-label TLDs (everything is eTLD+1 of a
 * one-label suffix by default) and a compact built-in list of common multi-label public suffixes (co.uk, com.au,
 * co.jp, com.br, ...). A host under a multi-label suffix missing from MULTI_LABEL_SUFFIXES (say `city.kawasaki.jp`,
 * or a private suffix not listed below) is cut one label too short: `shop.city.kawasaki.jp`
 * gives `kawasaki.jp`, and two shops on such a platform share one domain. A lock is then broader than it should be,
 * never narrower, so a bcard made for a site still works there. Add suffixes here when a real shop needs one.
 *
 * Returns null for what has no host (not a URL nor a host name, `about:blank`, a `chrome://` page) or a bare public
 * suffix (`co.uk`, `com`).
 */
export function registrableDomain(urlOrHost: string): string | null {
  let host = hostOf(urlOrHost.trim());
  if (host === null) return null;
  if (host === 'www.localhost') host = 'localhost';
  if (host === 'localhost' || isIpAddress(host)) return host;
  const labels = host.split('.');
  if (labels.some((l) => l === '')) return null;
  if (labels.length < 2) return null;
  const lastTwo = labels.slice(-2).join('.');
  const suffixLabels = MULTI_LABEL_SUFFIXES.has(lastTwo) ? 2 : 1;
  if (labels.length <= suffixLabels) return null;
  return labels.slice(-(suffixLabels + 1)).join('.');
}

/**
 * Common public suffixes of two labels, where shops register the label in front (example.co.uk). Country registries
 * that sell second-level names under a generic label; not exhaustive (see the limitation above).
 */
export const MULTI_LABEL_SUFFIXES: ReadonlySet<string> = new Set([
  // United Kingdom
  'co.uk', 'org.uk', 'me.uk', 'ltd.uk', 'plc.uk', 'net.uk', 'ac.uk', 'gov.uk', 'nhs.uk', 'police.uk', 'sch.uk',
  // Australia, New Zealand
  'com.au', 'net.au', 'org.au', 'edu.au', 'gov.au', 'asn.au', 'id.au',
  'co.nz', 'net.nz', 'org.nz', 'ac.nz', 'govt.nz', 'geek.nz', 'school.nz',
  // Asia
  'co.jp', 'ne.jp', 'or.jp', 'ac.jp', 'go.jp', 'ad.jp', 'ed.jp', 'gr.jp', 'lg.jp',
  'co.kr', 'or.kr', 'ne.kr', 'ac.kr', 'go.kr',
  'com.cn', 'net.cn', 'org.cn', 'gov.cn', 'edu.cn',
  'com.hk', 'net.hk', 'org.hk', 'edu.hk', 'gov.hk',
  'com.tw', 'net.tw', 'org.tw', 'edu.tw', 'gov.tw',
  'com.sg', 'net.sg', 'org.sg', 'edu.sg', 'gov.sg',
  'com.my', 'net.my', 'org.my', 'edu.my', 'gov.my',
  'co.id', 'or.id', 'ac.id', 'go.id', 'web.id',
  'co.th', 'in.th', 'or.th', 'ac.th', 'go.th',
  'com.ph', 'net.ph', 'org.ph', 'gov.ph',
  'com.vn', 'net.vn', 'org.vn', 'gov.vn',
  'co.in', 'net.in', 'org.in', 'firm.in', 'gen.in', 'ind.in', 'ac.in', 'gov.in', 'edu.in',
  'com.pk', 'net.pk', 'org.pk', 'gov.pk',
  'com.bd', 'net.bd', 'org.bd',
  'com.np', 'com.lk',
  // Middle East and North Africa
  'com.sa', 'net.sa', 'org.sa', 'edu.sa', 'gov.sa', 'med.sa',
  'com.eg', 'net.eg', 'org.eg', 'edu.eg', 'gov.eg',
  'co.ae', 'net.ae', 'org.ae', 'gov.ae', 'ac.ae',
  'com.qa', 'net.qa', 'org.qa', 'gov.qa',
  'com.kw', 'net.kw', 'org.kw', 'gov.kw',
  'com.bh', 'net.bh', 'org.bh',
  'com.om', 'net.om', 'org.om', 'co.om',
  'com.jo', 'net.jo', 'org.jo', 'gov.jo',
  'com.lb', 'net.lb', 'org.lb',
  'co.il', 'org.il', 'net.il', 'ac.il', 'gov.il',
  'com.tr', 'net.tr', 'org.tr', 'gen.tr', 'biz.tr', 'web.tr', 'edu.tr', 'gov.tr',
  'co.ma', 'net.ma', 'org.ma', 'gov.ma', 'ac.ma',
  'com.tn', 'com.dz', 'com.ly', 'com.iq',
  // Africa
  'co.za', 'org.za', 'net.za', 'web.za', 'gov.za', 'ac.za',
  'com.ng', 'org.ng', 'net.ng', 'gov.ng', 'edu.ng',
  'co.ke', 'or.ke', 'ne.ke', 'ac.ke', 'go.ke',
  'com.gh', 'co.tz', 'co.ug', 'co.zw', 'com.et',
  // The Americas
  'com.br', 'net.br', 'org.br', 'gov.br', 'edu.br', 'art.br', 'blog.br', 'eco.br', 'ind.br', 'tv.br',
  'com.mx', 'net.mx', 'org.mx', 'gob.mx', 'edu.mx',
  'com.ar', 'net.ar', 'org.ar', 'gob.ar', 'edu.ar',
  'com.co', 'net.co', 'org.co', 'gov.co', 'edu.co',
  'com.pe', 'net.pe', 'org.pe', 'gob.pe',
  'cl.cl', 'gob.cl',
  'com.ve', 'co.ve', 'com.ec', 'com.uy', 'com.py', 'com.bo', 'com.gt', 'com.do', 'com.pr', 'com.pa', 'co.cr',
  // Europe
  'co.at', 'or.at', 'ac.at', 'gv.at',
  'com.pl', 'net.pl', 'org.pl', 'gov.pl',
  'com.ua', 'net.ua', 'org.ua', 'gov.ua', 'in.ua',
  'com.ru', 'net.ru', 'org.ru',
  'com.gr', 'net.gr', 'org.gr', 'gov.gr',
  'com.pt', 'org.pt', 'gov.pt',
  'com.es', 'nom.es', 'org.es', 'gob.es',
  'co.hu', 'org.hu',
  'com.ro', 'org.ro',
  'com.cy', 'com.mt', 'co.rs', 'co.me',
  // Generic second-level registries
  'co.com', 'eu.com', 'uk.com', 'us.com', 'gb.net', 'uk.net',
  // Private suffixes of the platforms shops are hosted on: each subdomain is its own shop (the Public Suffix List's
  // private section), so a bcard made for alice-shoes.myshopify.com is not good at mallory.myshopify.com.
  'myshopify.com',
  'shopifypreview.com',
  'square.site',
  'wixsite.com',
  'squarespace.com',
  'bigcartel.com',
  'mybigcommerce.com',
  'company.site',
  'ecwid.com',
  'github.io',
  'gitlab.io',
  'netlify.app',
  'vercel.app',
  'pages.dev',
  'workers.dev',
  'web.app',
  'firebaseapp.com',
  'herokuapp.com',
  'appspot.com',
  'azurewebsites.net',
  'cloudfront.net',
  'onrender.com',
  'fly.dev',
  'blogspot.com',
  'wordpress.com',
  'weebly.com',
  'webflow.io',
  'carrd.co',
  'gumroad.com',
  'tilda.ws',
]);

/** The host of a URL (any scheme with an authority) or of a bare host name with an optional port and path. */
function hostOf(input: string): string | null {
  if (input === '') return null;
  let url: URL;
  try {
    // A bare host ("shop.example.com", "127.0.0.1:4100/cart") is read as an http URL.
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `http://${input}`);
  } catch {
    return null;
  }
  let host = url.hostname.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return host === '' ? null : host;
}

function isIpAddress(host: string): boolean {
  if (host.includes(':')) return true; // IPv6: the URL parser accepts only valid ones
  // The URL parser turns every IPv4 spelling (0x7f.1, 2130706433) into dotted decimal.
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}
