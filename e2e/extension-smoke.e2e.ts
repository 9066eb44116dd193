import { chromium, expect, test, type BrowserContext, type Page } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/*
 * Smoke test of the unpacked extension (dist/extension, written by `bun run build:extension`; scripts/e2e.sh builds
 * it for the e2e server's origin) in Debian's Chromium: the service worker starts, a checkout page from the
 * detector's corpus gets the banner with its total, and a page that is not a checkout gets nothing added.
 * The shop pages are served here, on another local origin than bpay's. The full flow (pair, split, fill, order) is
 * e2e/extension.e2e.ts's.
 */

const EXTENSION_DIR = resolve(process.env.E2E_EXTENSION_DIR ?? 'dist/extension');
const FIXTURES = resolve('web/extension/fixtures');

/** A fixture page served at the path of the URL it declares (the detector reads the URL too). */
function fixture(file: string): { path: string; html: string } {
  const html = readFileSync(join(FIXTURES, file), 'utf8');
  const url = /<meta\s+name="bpay-fixture-url"\s+content="([^"]*)"/i.exec(html)?.[1];
  if (!url) throw new Error(`${file} declares no URL`);
  return { path: new URL(url).pathname, html };
}

// One browser with the extension for the whole file.
test.describe.configure({ mode: 'serial' });

const checkout = fixture('checkout/plain-form.html');
const blog = fixture('other/blog-checkout-ux.html');

let server: Server;
let shop: string;
let context: BrowserContext;
let profile: string;

test.beforeAll(async () => {
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) throw new Error(`No built extension at ${EXTENSION_DIR}: run bun run build:extension`);
  server = createServer((req, res) => {
    const page = [checkout, blog].find((p) => p.path === req.url);
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page?.html ?? 'not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  shop = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  profile = mkdtempSync(join(tmpdir(), 'bpay-ext-profile-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      `--disable-extensions-except=${EXTENSION_DIR}`,
      `--load-extension=${EXTENSION_DIR}`,
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});

test.afterAll(async () => {
  await context?.close();
  await new Promise((done) => server?.close(done));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** The text inside the banner's closed shadow root, read through the DevTools protocol (page scripts cannot). */
async function bannerText(page: Page): Promise<string | null> {
  const cdp = await context.newCDPSession(page);
  interface DomNode {
    nodeName: string;
    nodeType: number;
    nodeValue?: string;
    children?: DomNode[];
    shadowRoots?: DomNode[];
  }
  const { root } = (await cdp.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: DomNode };
  const find = (n: DomNode): DomNode | null => {
    if (n.nodeName === 'BPAY-SPLIT-BANNER') return n;
    for (const c of [...(n.children ?? []), ...(n.shadowRoots ?? [])]) {
      const hit = find(c);
      if (hit) return hit;
    }
    return null;
  };
  const text = (n: DomNode): string =>
    n.nodeName === 'STYLE' ? '' : (n.nodeType === 3 ? (n.nodeValue ?? '') : '') + [...(n.shadowRoots ?? []), ...(n.children ?? [])].map(text).join(' ');
  const host = find(root);
  await cdp.detach();
  return host ? text(host).replace(/\s+/g, ' ').trim() : null;
}

test('the extension loads in Chromium: its service worker runs', async () => {
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  expect(worker.url()).toMatch(/^chrome-extension:\/\/[a-p]{32}\/background\.js$/);
});

test('a checkout page gets the banner with its total', async () => {
  const page = await context.newPage();
  await page.goto(shop + checkout.path);
  await expect.poll(() => bannerText(page), { timeout: 10_000 }).toContain('Split $1,234.50 with bpay');
  // The banner lives in a closed shadow root: the page sees only an empty host element.
  expect(await page.evaluate(() => document.querySelector('bpay-split-banner')?.shadowRoot ?? null)).toBeNull();
  await page.close();
});

test('a page that is not a checkout gets no element, no style', async () => {
  const page = await context.newPage();
  await page.goto(shop + blog.path);
  await page.waitForTimeout(2_000);
  const counts = await page.evaluate((html) => {
    const fresh = new DOMParser().parseFromString(html, 'text/html');
    return {
      now: document.querySelectorAll('*').length,
      served: fresh.querySelectorAll('*').length,
      sheets: document.styleSheets.length,
      servedSheets: fresh.querySelectorAll('style, link[rel=stylesheet]').length,
      adopted: document.adoptedStyleSheets.length,
    };
  }, blog.html);
  expect(counts.now).toBe(counts.served);
  expect(counts.sheets).toBeLessThanOrEqual(counts.servedSheets);
  expect(counts.adopted).toBe(0);
  expect(await bannerText(page)).toBeNull();
  await page.close();
});
