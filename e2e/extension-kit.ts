import { chromium, type BrowserContext, type Page, type Worker } from '@playwright/test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/*
 * The unpacked extension (dist/extension, built by scripts/e2e.sh for the e2e server's origin) in Debian's Chromium:
 * a persistent context with --load-extension, as a person's browser has it. Shared by the extension's browser tests.
 */

export const EXTENSION_DIR = resolve(process.env.E2E_EXTENSION_DIR ?? 'dist/extension');

export interface ExtensionBrowser {
  context: BrowserContext;
  worker: Worker;
  /** chrome-extension://<id> */
  base: string;
  close(): Promise<void>;
}

export async function launchWithExtension(opts: { baseURL?: string } = {}): Promise<ExtensionBrowser> {
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json'))) throw new Error(`No built extension at ${EXTENSION_DIR}: run bun run build:extension`);
  const profile = mkdtempSync(join(tmpdir(), 'bpay-ext-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    baseURL: opts.baseURL,
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
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  return {
    context,
    worker,
    // new URL(...).origin is "null" for a chrome-extension: URL.
    base: /^chrome-extension:\/\/[a-p]{32}/.exec(worker.url())![0],
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The text inside the banner's closed shadow root, read through the DevTools protocol (page scripts cannot). */
export async function bannerText(context: BrowserContext, page: Page): Promise<string | null> {
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

/**
 * The browser's id of the tab showing `urlPrefix` (what the popup is opened for), from the extension's own record of
 * the checkout its content script reported (it has no "tabs" permission, so chrome.tabs.query hides URLs from it).
 */
export async function tabIdOf(ext: ExtensionBrowser, urlPrefix: string): Promise<number> {
  let id: number | null = null;
  for (let i = 0; i < 50 && id === null; i++) {
    id = await ext.worker.evaluate(async (prefix) => {
      const all = (await chrome.storage.session.get(null)) as Record<string, { url?: string | null }>;
      const hit = Object.entries(all).find(([k, v]) => k.startsWith('tab:') && v?.url?.startsWith(prefix));
      return hit ? Number(hit[0].slice(4)) : null;
    }, urlPrefix);
    if (id === null) await new Promise((r) => setTimeout(r, 200));
  }
  if (id === null) throw new Error(`the extension saw no checkout at ${urlPrefix}`);
  return id;
}

/** The popup, as a page of its own about the given tab (the toolbar popup cannot be driven by Playwright). */
export async function openPopup(ext: ExtensionBrowser, tabId: number, viewport = { width: 400, height: 700 }): Promise<Page> {
  const popup = await ext.context.newPage();
  await popup.setViewportSize(viewport);
  await popup.goto(`${ext.base}/popup.html?tab=${tabId}`);
  return popup;
}
