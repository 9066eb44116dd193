/*
 * The first switch to each dashboard tab, in Chromium (issue 31 §4): from the pointer going down on a tab to its
 * content on screen, beside re-opening the Overview tab in the same run (a tab whose code and data are already there:
 * the floor of a switch on this machine). Target: every first switch within 150 ms of the click.
 *
 * What it does: builds the web app (or serves --dist=DIR, e.g. an older tree's build for a before/after), starts the
 * real server on a fresh database, makes one consumer through the API with a card, two bcards (one spent at a
 * merchant, so Analytics and Transactions have rows), then per run opens a new browser context, signs in by cookie,
 * loads the dashboard, waits until the page is idle and `--idle` ms more (the prefetch's time), and switches to each
 * tab once in turn, then back to Overview. A switch is timed inside the page: performance.now() at the pointerdown
 * that opens the tab, to the first animation frame where the open panel holds the tab's content and no loading sign.
 *
 * Run: bun run bench:tabs [--runs=5] [--idle=1500] [--dist=DIR] [--port=3191]. A benchmark: nothing is asserted.
 */
import { chromium, type Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { startWebServer } from './web-server';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const RUNS = Number(arg('runs') ?? 5);
const IDLE_MS = Number(arg('idle') ?? 1500);
const PORT = Number(arg('port') ?? 3191);
const root = resolve(import.meta.dir, '..');
const dist = arg('dist') ? resolve(arg('dist')!) : join(root, 'web/dist-bench-tabs');
const base = `http://localhost:${PORT}`;
const load = loadavg().map((x) => x.toFixed(2)).join(' ');

/** Each tab's content: what is on screen when it has opened (inside its open panel). */
const READY: Record<string, string> = {
  'funding-sources': 'text=•••• 4242',
  bcards: '[data-testid="bcard-tile"]',
  transactions: '[data-testid="transaction-row"]',
  analytics: '[data-testid="analytics-range"]',
  settings: '[data-testid="notification-settings-card"]',
  overview: '[data-testid="money-figures"]',
};
const ORDER = ['funding-sources', 'bcards', 'transactions', 'analytics', 'settings', 'overview'];

if (!arg('dist')) {
  const built = spawnSync('bun', ['web/build.ts'], { cwd: root, stdio: 'inherit', env: { ...process.env, BPAY_WEB_DIST: dist } });
  if (built.status !== 0) throw new Error('the web build failed');
}
const dataDir = mkdtempSync(join(tmpdir(), 'bpay-bench-tabs-'));
const server = await startWebServer({ port: PORT, dist, dataDir, env: { BPAY_RATE_LIMITS: 'off' } });
try {
  const api = async (path: string, cookie: string | null, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', origin: base, 'idempotency-key': crypto.randomUUID(), ...(cookie ? { cookie } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return { body: (await res.json()) as Record<string, any>, cookie: /^([^=;]+=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? null };
  };
  const reg = await api('/api/auth/register', null, { email: `tabs-${Date.now()}@example.com`, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' });
  const cookie = reg.cookie!;
  const card = await api('/api/funding-sources', cookie, { cardNumber: '4242424242424242', expiryMonth: '12', expiryYear: '2030', cvv: '123', name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 100 });
  await api('/api/virtual-cards', cookie, { name: 'Kept', balance: '20.00', fundingSources: [{ fundingSourceId: card.body.id, percentage: 100 }] });
  await api('/api/process-payment', cookie, { amount: '12.00', merchant: 'Corner Books', splits: [{ fundingSourceId: card.body.id, percentage: 100 }] });

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true });
  const times: Record<string, number[]> = Object.fromEntries(ORDER.map((t) => [t, []]));
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const [name, value] = cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: base }]);
    const page = await context.newPage();
    await page.goto(`${base}/`, { waitUntil: 'networkidle' });
    await page.waitForSelector(READY.overview!);
    await page.waitForTimeout(IDLE_MS);
    for (const tab of ORDER) times[tab]!.push(await switchTo(page, tab));
    await context.close();
    process.stdout.write('.');
  }
  await browser.close();

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const floor = median(times.overview!);
  console.log(`\n\nbench:tabs ${new Date().toISOString()} · ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'} · load ${load} at start · ${RUNS} runs · ${IDLE_MS} ms idle after load · ${arg('dist') ? `dist ${arg('dist')}` : 'this tree'}\n`);
  console.log('| first switch to | median | min–max | ÷ re-opening Overview | target ≤ 150 ms |');
  console.log('|---|---:|---|---:|---|');
  for (const tab of ORDER) {
    const m = median(times[tab]!);
    const label = tab === 'overview' ? 'Overview again (reference)' : tab;
    console.log(`| ${label} | ${m.toFixed(0)} ms | ${Math.min(...times[tab]!).toFixed(0)}–${Math.max(...times[tab]!).toFixed(0)} | ${(m / Math.max(floor, 1)).toFixed(1)}× | ${tab === 'overview' ? '—' : m <= 150 ? 'met' : 'missed'} |`);
  }
} finally {
  server.kill();
  rmSync(dataDir, { recursive: true, force: true });
  if (!arg('dist')) rmSync(dist, { recursive: true, force: true });
}

/** Opens `tab` with a click and answers the ms from its pointerdown to the frame where its content is on screen. */
async function switchTo(page: Page, tab: string): Promise<number> {
  const trigger = page.getByTestId(`tab-${tab}`);
  await trigger.evaluate((el) => {
    el.addEventListener('pointerdown', () => ((window as unknown as { __t0: number }).__t0 = performance.now()), { once: true, capture: true });
  });
  await trigger.click();
  const ms = await page.waitForFunction(
    (selector) => {
      const panel = document.querySelector('[role="tabpanel"][data-state="active"]');
      if (!panel) return false;
      const found = selector.startsWith('text=') ? panel.textContent?.includes(selector.slice(5)) : panel.querySelector(selector);
      if (!found || panel.querySelector('.animate-spin') || /Loading/.test(panel.textContent ?? '')) return false;
      return performance.now() - (window as unknown as { __t0: number }).__t0;
    },
    READY[tab]!,
    { polling: 'raf', timeout: 15_000 },
  );
  return Number(await ms.jsonValue());
}
