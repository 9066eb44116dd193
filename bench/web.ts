/*
 * How fast and clean the web pages are, as Lighthouse sees them (issue 13):
 *   bun run bench:web [--runs=3] [--no-build] [--port=3190] [--pages=/,/ar,/auth,/terms-conditions,dashboard]
 *   [--save=DIR]
 * Builds the production web app into web/dist-bench, starts the real server (api/src/server.ts) on a fresh temporary
 * database, registers one user through the API, and runs Lighthouse (the npm package, Debian's Chromium, its mobile
 * defaults: simulated slow 4G and a 4x slower CPU) on /, /ar, /auth, /terms-conditions, the signed-in dashboard (the
 * session cookie sent with Lighthouse's extraHeaders) and a static reference page: a plain HTML file with text like
 * the landing page's, served by the same server, measured in the same run for comparison.
 * Runs go round-robin (run 1 of every page, then run 2, …) so a busy moment of the machine does not land on one page
 * only. Prints the medians per page: the four category scores, LCP, TBT and CLS, and the spread (min–max) of the
 * performance score; then every audit that cost a page points in its median run.
 * A benchmark, not a test: nothing is asserted and `npm test` does not run it. Compare figures from the same machine.
 */
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Flags } from 'lighthouse';
import { spawnSync } from 'node:child_process';
import { startWebServer } from './web-server';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const RUNS = Number(arg('runs') ?? 3);
const PORT = Number(arg('port') ?? 3190);
const BUILD = !process.argv.includes('--no-build');
const root = resolve(import.meta.dir, '..');
const dist = join(root, 'web/dist-bench');
const base = `http://localhost:${PORT}`;
const CHROME = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

/** A page without any script, with about the landing's visible text: what the network and the CPU allow at best. */
const REFERENCE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bpay: split one purchase across your cards (static reference)</title>
<meta name="description" content="A static page with text like bpay's landing page, to compare load times with.">
<style>
body { margin: 0; font-family: system-ui, sans-serif; color: #0f172a; line-height: 1.6; }
header, main, footer { max-width: 64rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 2.25rem; line-height: 1.2; } a { color: #1d4ed8; }
section { padding: 2rem 0; border-top: 1px solid #e2e8f0; }
</style>
</head>
<body>
<header><a href="/">bpay</a></header>
<main>
<h1>Split any purchase across all your cards</h1>
<p>Link your cards, decide how much each one pays, and check out anywhere with a single-use virtual card: the bcard.
bpay never holds your money or lends it. Each card is charged exactly its share.</p>
<p><a href="/auth">Start Free</a> · Free plan with no monthly fee. Upgrade or cancel anytime.</p>
<section><h2>Three steps to a smarter checkout</h2>
<p>Set it up once in a few minutes, then split any purchase in seconds.</p>
<h3>Connect your cards</h3><p>Link the credit and debit cards you already own. A $1.00 authorization hold confirms
each card and is released within 1–3 business days.</p>
<h3>Set your split</h3><p>Choose how much each card pays, by percentage or by fixed amount. bpay checks that the
shares add up to 100% before anything is charged.</p>
<h3>Shop everywhere</h3><p>Pay with one single-use bcard wherever cards are accepted.</p></section>
<section><h2>Plans</h2><p>Free, Pro and Premium: the fee and the number of cards you can link differ.</p></section>
</main>
<footer><p>© 2025 bpay</p></footer>
</body>
</html>
`;

interface Page {
  name: string;
  path: string;
  signedIn?: boolean;
}
const ALL_PAGES: Page[] = [
  { name: '/', path: '/' },
  { name: '/ar', path: '/ar' },
  { name: '/auth', path: '/auth' },
  { name: '/terms-conditions', path: '/terms-conditions' },
  { name: 'dashboard', path: '/', signedIn: true },
  { name: 'static reference', path: '/reference.html' },
];
// --pages=/,dashboard measures only those (by name), and always the static reference.
const ONLY = arg('pages')?.split(',');
// --save=DIR keeps every run's full Lighthouse report (JSON) there, to look into.
const SAVE = arg('save');
if (SAVE) mkdirSync(SAVE, { recursive: true });
const PAGES = ONLY ? ALL_PAGES.filter((p) => ONLY.includes(p.name) || p.name === 'static reference') : ALL_PAGES;

interface RunResult {
  scores: Record<(typeof CATEGORIES)[number], number>;
  lcp: number;
  tbt: number;
  cls: number;
  /** Audits that cost points: "category: audit id (score)". */
  findings: string[];
  /** Where the main thread went and the performance diagnostics Lighthouse flags (score below 0.5). */
  diagnostics: string[];
}

function build(): void {
  console.log(`building the web app into ${dist} …`);
  // Through the package script, exactly as production builds.
  const res = spawnSync('bun', ['run', 'build:web'], { cwd: root, stdio: 'inherit', env: { ...process.env, BPAY_WEB_DIST: dist } });
  if (res.status !== 0) throw new Error('the web build failed');
}

const startServer = (dataDir: string) => startWebServer({ port: PORT, dist, dataDir });

/** Registers a fresh user through the API and returns its session cookie (`name=value`). */
async function sessionCookie(): Promise<string> {
  const res = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({
      email: `bench-${Date.now()}@example.com`,
      password: 'correct horse battery',
      firstName: 'Ada',
      lastName: 'Lovelace',
    }),
  });
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
  const cookie = /^([^=;]+=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error('registration set no session cookie');
  return cookie;
}

async function measure(page: Page, cookie: string): Promise<RunResult> {
  // A fresh browser for every run: nothing cached or stored carries over from the page before.
  const chrome = await chromeLauncher.launch({
    chromePath: CHROME,
    chromeFlags: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const flags: Flags = {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: [...CATEGORIES],
      ...(page.signedIn ? { extraHeaders: { Cookie: cookie } } : {}),
    };
    const result = await lighthouse(`${base}${page.path}`, flags);
    const lhr = result?.lhr;
    if (!lhr) throw new Error(`Lighthouse returned nothing for ${page.name}`);
    if (SAVE) writeFileSync(join(SAVE, `${page.name.replace(/[^a-z0-9]+/gi, '_') || 'root'}-${Date.now()}.json`), JSON.stringify(lhr));
    if (lhr.runtimeError) throw new Error(`${page.name}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    const score = (c: string) => Math.round((lhr.categories[c]?.score ?? 0) * 100);
    const findings: string[] = [];
    for (const c of CATEGORIES.filter((c) => c !== 'performance')) {
      for (const ref of lhr.categories[c]?.auditRefs ?? []) {
        const audit = lhr.audits[ref.id];
        if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) findings.push(`${c}: ${ref.id}`);
      }
    }
    const diagnostics: string[] = [];
    for (const id of ['bootup-time', 'mainthread-work-breakdown']) {
      const a = lhr.audits[id];
      if (a?.displayValue) diagnostics.push(`${id} ${a.displayValue}`);
    }
    // The element LCP measured, by its label (text or alt), to see what the page waits for.
    type Items = { items?: Array<{ node?: { nodeLabel?: string }; items?: Array<{ node?: { nodeLabel?: string } }> }> };
    const lcpItem = (lhr.audits['largest-contentful-paint-element']?.details as Items | undefined)?.items?.[0];
    const lcpLabel = lcpItem?.node?.nodeLabel ?? lcpItem?.items?.[0]?.node?.nodeLabel;
    if (lcpLabel) diagnostics.push(`LCP element "${lcpLabel.slice(0, 50)}"`);
    for (const ref of lhr.categories.performance?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      if (ref.weight === 0 && audit && audit.score !== null && audit.score < 0.5) {
        diagnostics.push(`${ref.id}${audit.displayValue ? ` (${audit.displayValue})` : ''}`);
      }
    }
    return {
      diagnostics,
      scores: Object.fromEntries(CATEGORIES.map((c) => [c, score(c)])) as RunResult['scores'],
      lcp: lhr.audits['largest-contentful-paint']?.numericValue ?? NaN,
      tbt: lhr.audits['total-blocking-time']?.numericValue ?? NaN,
      cls: lhr.audits['cumulative-layout-shift']?.numericValue ?? NaN,
      findings,
    };
  } finally {
    chrome.kill();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

if (BUILD) build();
writeFileSync(join(dist, 'reference.html'), REFERENCE_HTML);
const dataDir = mkdtempSync(join(tmpdir(), 'bpay-bench-web-'));
const server = await startServer(dataDir);
try {
  const cookie = await sessionCookie();
  const results = new Map<Page, RunResult[]>(PAGES.map((p) => [p, []]));
  for (let run = 1; run <= RUNS; run++) {
    for (const page of PAGES) {
      process.stdout.write(`run ${run}/${RUNS}: ${page.name} … `);
      const r = await measure(page, cookie);
      results.get(page)!.push(r);
      console.log(`performance ${r.scores.performance}, LCP ${(r.lcp / 1000).toFixed(1)} s`);
    }
  }

  const cell = (s: string | number, w: number) => String(s).padStart(w);
  const header = ['page'.padEnd(24), cell('perf', 5), cell('a11y', 5), cell('bp', 4), cell('seo', 4), cell('LCP', 7), cell('TBT', 7), cell('CLS', 6), cell('perf min–max', 13)];
  console.log(`\nLighthouse ${RUNS} runs per page, medians (mobile defaults, ${CHROME}, ${new Date().toISOString().slice(0, 10)})`);
  console.log(header.join(' '));
  const notes: string[] = [];
  const diagnostics: string[] = [];
  for (const page of PAGES) {
    const runs = results.get(page)!;
    const med = (pick: (r: RunResult) => number) => median(runs.map(pick));
    const perf = runs.map((r) => r.scores.performance);
    console.log(
      [
        page.name.padEnd(24),
        cell(med((r) => r.scores.performance), 5),
        cell(med((r) => r.scores.accessibility), 5),
        cell(med((r) => r.scores['best-practices']), 4),
        cell(med((r) => r.scores.seo), 4),
        cell(`${(med((r) => r.lcp) / 1000).toFixed(2)} s`, 7),
        cell(`${Math.round(med((r) => r.tbt))} ms`, 7),
        cell(med((r) => r.cls).toFixed(3), 6),
        cell(`${Math.min(...perf)}–${Math.max(...perf)}`, 13),
      ].join(' '),
    );
    // The findings of the run whose performance is the median one.
    const middle = runs.find((r) => r.scores.performance === median(perf)) ?? runs[0]!;
    if (middle.findings.length) notes.push(`${page.name}: ${middle.findings.join(', ')}`);
    diagnostics.push(`${page.name}: ${middle.diagnostics.join('; ') || 'none'}`);
  }
  console.log(`\nPerformance diagnostics of each page's median run:\n${diagnostics.join('\n')}`);
  if (notes.length) console.log(`\nAudits that cost points (accessibility, best practices, SEO):\n${notes.join('\n')}`);
} finally {
  server.kill();
  await new Promise((r) => server.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
