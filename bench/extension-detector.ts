/*
 * The extension's checkout detector on a large page (issue 24, section 3): detectCheckout() beside a
 * `document.querySelectorAll('*')` walk of the same page (the list plus a loop reading each element's nodeType),
 * as a ratio. No target is asserted; compare figures from the same machine.
 *
 * Pages, each built here with about 5,000 elements: a product page (mega-menu header, gallery, reviews, related
 * products, footer: what most pages the content script meets look like) and a checkout with a long order summary
 * (the detector's full path: card fields, total, buttons).
 * Where:
 *   - Chromium (Debian's /usr/bin/chromium through playwright-core, headless): the detector bundled with Bun.build
 *     (minified, as the content script ships it) and injected; this is the figure that matters;
 *   - happy-dom in this Bun process, for comparison only (its DOM is JavaScript, so its ratios are not a browser's).
 * Each sample times --batch calls back to back (Chromium's performance.now() is coarsened to 0.1 ms) and divides;
 * detector and walk samples alternate, after a warm-up.
 *
 * Run: bun bench/extension-detector.ts [--samples=31] [--batch=10] [--no-chromium]
 */
import { gzipSync } from 'bun';
import { Window } from 'happy-dom';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { detectCheckout } from '../web/extension/src/detect/detect';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const SAMPLES = Math.max(3, Number(arg('samples') ?? 31));
const BATCH = Math.max(1, Number(arg('batch') ?? 10));
const CHROMIUM = !process.argv.includes('--no-chromium');
const TARGET = 5_000;
const root = resolve(import.meta.dir, '..');

const WORDS = 'trail alpine merino canvas brass harbor ridge summit cedar lantern harbor field river stone linen'.split(' ');
const word = (i: number) => WORDS[i % WORDS.length]!;
const price = (i: number) => `$${(19 + ((i * 37) % 400)).toFixed(0)}.${String((i * 13) % 100).padStart(2, '0')}`;

function header(): string {
  let menu = '';
  for (let c = 0; c < 8; c++) {
    menu += `<li class="menu__item"><a href="/c/${c}">${word(c)}</a><div class="mega"><div class="mega__cols">`;
    for (let col = 0; col < 4; col++) {
      menu += `<ul class="mega__col"><li class="mega__head"><span>${word(c + col)} ${word(col)}</span></li>`;
      for (let l = 0; l < 8; l++) menu += `<li><a href="/c/${c}/${col}/${l}"><span>${word(c + l)} ${word(col + l)}</span></a></li>`;
      menu += '</ul>';
    }
    menu += '</div></div></li>';
  }
  return `<header class="site-header"><div class="bar"><a class="logo" href="/"><svg viewBox="0 0 10 10"><path d="M0 0h10v10z"/></svg><span>Harbor</span></a>
<form role="search" action="/search"><input type="search" name="q" placeholder="Search"><button>Search</button></form>
<a href="/cart" class="cart-link">Cart (0)</a></div><nav><ul class="menu">${menu}</ul></nav></header>`;
}

function footer(): string {
  let cols = '';
  for (let c = 0; c < 6; c++) {
    cols += `<div class="footer__col"><h4>${word(c)}</h4><ul>`;
    for (let l = 0; l < 12; l++) cols += `<li><a href="/p/${c}-${l}">${word(c * l)} ${word(l)}</a></li>`;
    cols += '</ul></div>';
  }
  return `<footer class="site-footer">${cols}<form action="/newsletter"><input type="email" name="email"><button>Subscribe</button></form><p>© 2025 Harbor</p></footer>`;
}

const elementCount = (html: string) => (html.match(/<[a-zA-Z]/g) ?? []).length;

/** Repeats `block(i)` until the page has about TARGET elements. */
function fill(top: string, bottom: string, block: (i: number) => string): string {
  let middle = '';
  for (let i = 0; elementCount(top + middle + bottom) < TARGET; i++) middle += block(i);
  return top + middle + bottom;
}

function productPage(): string {
  const top = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Trail Runner 2 | Harbor</title>
<script type="application/ld+json">{"@type":"Product","offers":{"price":"129.00"}}</script></head><body>${header()}
<main class="product"><div class="gallery">${Array.from({ length: 8 }, (_, i) => `<img src="/img/${i}.jpg" alt="view ${i}">`).join('')}</div>
<div class="info"><h1>Trail Runner 2</h1><p class="price"><span>$129.00</span> <s>$149.00</s></p>
<form action="/cart/add" method="post"><select name="size"><option>8</option><option>9</option><option>10</option></select>
<input type="number" name="quantity" value="1"><button type="submit">Add to cart</button><button type="button">Buy it now</button></form>
<div class="desc">${Array.from({ length: 12 }, (_, i) => `<p>${word(i)} ${word(i + 1)} upper with a ${word(i + 2)} sole, ${word(i + 3)} laces and a ${word(i + 4)} heel.</p>`).join('')}</div></div></main>
<section class="reviews"><h2>Reviews</h2>`;
  const bottom = `</section>${footer()}</body></html>`;
  return fill(top, bottom, (i) =>
    i % 3 === 2
      ? `<div class="related"><a href="/p/${i}"><img src="/r/${i}.jpg" alt=""><span class="name">${word(i)} ${word(i * 7)}</span></a><span class="price">${price(i)}</span><button class="quick-add">Add to cart</button></div>`
      : `<article class="review"><header><span class="stars" aria-label="${1 + (i % 5)} stars">${'<i class="star"></i>'.repeat(5)}</span><h3>${word(i)} and ${word(i + 3)}</h3></header><p>Ran ${i * 3} miles in these, ${word(i + 5)} all the way.</p><footer><span>${word(i + 2)} from ${word(i + 6)}</span> <time>2025-0${1 + (i % 9)}-1${i % 10}</time> <button>Helpful</button></footer></article>`,
  );
}

function checkoutPage(): string {
  const top = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Checkout | Harbor</title></head><body>${header()}
<main class="checkout"><form method="post"><h1>Checkout</h1>
<label for="a1">Address</label><input id="a1" name="address1" autocomplete="shipping address-line1">
<label for="zip">ZIP</label><input id="zip" name="zip" autocomplete="shipping postal-code">
<label for="cn">Card number</label><input id="cn" name="cardnumber" autocomplete="cc-number">
<label for="ce">Expiry</label><input id="ce" name="exp" placeholder="MM / YY">
<label for="cv">CVC</label><input id="cv" name="cvc">
<button type="submit">Place order</button></form>
<aside class="summary"><h2>Order summary</h2><ul class="lines">`;
  const bottom = `</ul><dl><dt>Subtotal</dt><dd>$1,180.00</dd><dt>Shipping</dt><dd>$54.50</dd><dt>Order total</dt><dd>$1,234.50</dd></dl></aside></main>${footer()}</body></html>`;
  return fill(top, bottom, (i) => `<li class="line"><img src="/t/${i}.jpg" alt=""><div><span class="name">${word(i)} ${word(i * 3)}</span><span class="variant">${word(i + 1)} / ${1 + (i % 12)}</span></div><span class="qty">× ${1 + (i % 3)}</span><span class="price">${price(i)}</span></li>`);
}

interface Timing {
  walk: number[];
  detect: number[];
}

/** Runs in the page (or here against happy-dom): alternating batches of walk and detector calls. */
function measure(doc: Document, url: string, detect: (d: Document, u: string) => unknown, samples: number, batch: number): Timing {
  const walk = () => {
    const all = doc.querySelectorAll('*');
    let n = 0;
    for (let i = 0; i < all.length; i++) n += all[i]!.nodeType;
    return n;
  };
  for (let i = 0; i < 5; i++) {
    walk();
    detect(doc, url);
  }
  const out: Timing = { walk: [], detect: [] };
  for (let s = 0; s < samples; s++) {
    let t0 = performance.now();
    for (let b = 0; b < batch; b++) walk();
    out.walk.push((performance.now() - t0) / batch);
    t0 = performance.now();
    for (let b = 0; b < batch; b++) detect(doc, url);
    out.detect.push((performance.now() - t0) / batch);
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const ms = (x: number) => `${x.toFixed(3)} ms`;
const rows: string[][] = [];
function report(where: string, page: string, elements: number, t: Timing) {
  const w = median(t.walk);
  const d = median(t.detect);
  const wMin = Math.min(...t.walk);
  const dMin = Math.min(...t.detect);
  rows.push([where, page, String(elements), "querySelectorAll('*') walk", ms(w), ms(wMin), ms(Math.max(...t.walk)), '1.0', '1.0']);
  rows.push(['', '', '', 'detectCheckout', ms(d), ms(dMin), ms(Math.max(...t.detect)), (d / w).toFixed(1), (dMin / wMin).toFixed(1)]);
}

console.log(`load average at start (uptime): ${spawnSync('uptime', { encoding: 'utf8' }).stdout.trim()}`);
console.log(`samples ${SAMPLES} × batch ${BATCH} per case\n`);

const PAGES = [
  { name: 'product page', html: productPage(), url: 'https://shop.example/products/trail-runner-2', checkout: false },
  { name: 'checkout page', html: checkoutPage(), url: 'https://shop.example/checkout', checkout: true },
];

// happy-dom, in this process.
for (const page of PAGES) {
  const window = new Window({ url: page.url });
  window.document.write(page.html);
  const doc = window.document as unknown as Document;
  const result = detectCheckout(doc, page.url);
  if (result.isCheckout !== page.checkout) throw new Error(`${page.name}: isCheckout ${result.isCheckout}`);
  report('happy-dom', page.name, doc.querySelectorAll('*').length, measure(doc, page.url, detectCheckout, SAMPLES, BATCH));
  await window.happyDOM.close();
}

// Chromium, with the detector bundled as the content script will bundle it.
let bundleLine = '';
if (CHROMIUM) {
  const dir = mkdtempSync(join(tmpdir(), 'bpay-detector-bench-'));
  try {
    const entry = join(dir, 'entry.ts');
    writeFileSync(entry, `import { detectCheckout } from ${JSON.stringify(join(root, 'web/extension/src/detect/detect.ts'))};\n(globalThis as any).__bpayDetect = detectCheckout;\n`);
    const built = await Bun.build({ entrypoints: [entry], target: 'browser', format: 'iife', minify: true });
    if (!built.success) throw new Error(built.logs.join('\n'));
    const code = await built.outputs[0]!.text();
    bundleLine = `detector bundle: ${code.length} bytes minified, ${gzipSync(code).length} bytes gzip`;
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const tab = await browser.newPage();
      for (const page of PAGES) {
        await tab.setContent(page.html);
        // Evaluated, not added as a <script>: a content script is not in the page's DOM (and the bundle's own text
        // holds the words the detector looks for in inline scripts).
        await tab.evaluate(code);
        const { timing, elements, isCheckout } = await tab.evaluate(
          ({ measureSource, url, samples, batch }) => {
            type Detect = (d: Document, u: string) => { isCheckout: boolean };
            const detect = (globalThis as unknown as { __bpayDetect: Detect }).__bpayDetect;
            const run = new Function(`return (${measureSource})`)() as typeof measure;
            return {
              timing: run(document, url, detect, samples, batch),
              elements: document.querySelectorAll('*').length,
              isCheckout: detect(document, url).isCheckout,
            };
          },
          { measureSource: measure.toString(), url: page.url, samples: SAMPLES, batch: BATCH },
        );
        if (isCheckout !== page.checkout) throw new Error(`Chromium ${page.name}: isCheckout ${isCheckout}`);
        report('Chromium', page.name, elements, timing);
      }
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const head = ['where', 'page', 'elements', 'what', 'median', 'min', 'max', 'ratio of medians', 'ratio of mins'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]) => r.map((c, i) => (i >= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
console.log(line(head));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(line(r));
if (bundleLine) console.log(`\n${bundleLine}`);
