import { afterAll, describe, expect, test } from 'bun:test';
import { gzipSync } from 'bun';
import type { Window } from 'happy-dom';
import { join } from 'node:path';
import { listFixtures, openPage } from '../../fixtures/load-fixture';
import { detectCheckout, THRESHOLD, type Detection } from './detect';

const fixtures = listFixtures();
const windows: Window[] = [];
afterAll(async () => {
  for (const w of windows) await w.happyDOM.close();
});

function open(html: string, url: string): Document {
  const window = openPage(html, url);
  windows.push(window);
  return window.document as unknown as Document;
}

const results = fixtures.map((f) => ({ fixture: f, detection: detectCheckout(open(f.html, f.url), f.url) }));
const byName = (name: string): Detection => {
  const r = results.find((x) => x.fixture.name === name);
  if (!r) throw new Error(`no fixture ${name}`);
  return r.detection;
};

describe('the fixture corpus', () => {
  test('has at least 15 checkout pages and 15 other pages', () => {
    expect(fixtures.filter((f) => f.kind === 'checkout').length).toBeGreaterThanOrEqual(15);
    expect(fixtures.filter((f) => f.kind === 'other').length).toBeGreaterThanOrEqual(15);
  });

  test('precision and recall are both at least 0.9', () => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    let tn = 0;
    const wrong: string[] = [];
    for (const { fixture, detection } of results) {
      const isCheckout = fixture.kind === 'checkout';
      if (detection.isCheckout && isCheckout) tp++;
      else if (detection.isCheckout) fp++;
      else if (isCheckout) fn++;
      else tn++;
      if (detection.isCheckout !== isCheckout) wrong.push(`${fixture.name} (score ${detection.score}: ${detection.signals.join('; ')})`);
    }
    const precision = tp / (tp + fp);
    const recall = tp / (tp + fn);
    const exact = results.filter(({ fixture: f, detection: d }) => f.expected && d.total?.cents === f.expected.cents && d.total.currency === f.expected.currency).length;
    console.log(
      [
        `checkout detector on ${fixtures.length} fixture pages (threshold ${THRESHOLD})`,
        '                  detected  not detected',
        `  checkout pages  ${String(tp).padStart(8)}  ${String(fn).padStart(12)}`,
        `  other pages     ${String(fp).padStart(8)}  ${String(tn).padStart(12)}`,
        `  precision ${precision.toFixed(3)}  recall ${recall.toFixed(3)}  exact totals ${exact}/${tp + fn}`,
        ...wrong.map((w) => `  wrong: ${w}`),
      ].join('\n'),
    );
    expect(precision).toBeGreaterThanOrEqual(0.9);
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });

  test('the detected total is exact (cents and currency) on every checkout page', () => {
    const totals = results
      .filter((r) => r.fixture.kind === 'checkout')
      .map(({ fixture, detection }) => [fixture.name, detection.total && { cents: detection.total.cents, currency: detection.total.currency }]);
    const expected = fixtures.filter((f) => f.kind === 'checkout').map((f) => [f.name, f.expected]);
    expect(totals).toEqual(expected);
  });

  test('shapes: a card frame, platforms, shadow DOM, card step second', () => {
    expect(byName('checkout/iframe-card.html')).toMatchObject({ isCheckout: true, hasCardFrame: true });
    expect(byName('checkout/iframe-card.html').cardFields.number).toBeNull();
    expect(byName('checkout/shopify-like.html')).toMatchObject({ platform: 'shopify', hasCardFrame: true });
    expect(byName('checkout/woocommerce-like.html').platform).toBe('woocommerce');
    expect(byName('checkout/magento-like.html').platform).toBe('magento');
    expect(byName('checkout/bigcommerce-like.html').platform).toBe('bigcommerce');
    expect(byName('checkout/bpay-widget.html').platform).toBe('bpay');
    const shadow = byName('checkout/shadow-dom.html').cardFields;
    expect([shadow.number?.id, shadow.expiry?.id, shadow.cvc?.id]).toEqual(['n', 'e', 'c']);
    const steps = byName('checkout/multi-step-shipping.html');
    expect(steps.isCheckout).toBe(true);
    expect(Object.values(steps.cardFields).every((f) => f === null)).toBe(true);
    // Card fields without anything to pay (a saved-cards settings page) are not a checkout.
    expect(byName('other/account-payment-methods.html')).toMatchObject({ isCheckout: false });
    expect(byName('other/account-payment-methods.html').cardFields.number).not.toBeNull();
  });
});

describe('detectCheckout leaves the page alone', () => {
  test('no change to the DOM and no listener added, on every fixture page', () => {
    const changed: string[] = [];
    for (const f of fixtures) {
      const window = openPage(f.html, f.url);
      windows.push(window);
      const doc = window.document as unknown as Document;
      const before = doc.documentElement.outerHTML;
      const shadowBefore = shadowHtml(doc);
      const added = countListeners(window, () => detectCheckout(doc, f.url));
      if (added > 0) changed.push(`${f.name}: ${added} listener(s)`);
      if (doc.documentElement.outerHTML !== before || shadowHtml(doc) !== shadowBefore) changed.push(`${f.name}: DOM changed`);
    }
    expect(changed).toEqual([]);
  });

  test('the listener counter does count (so the test above can fail)', () => {
    const window = openPage('<!DOCTYPE html><body><button>x</button></body>', 'https://shop.example/');
    windows.push(window);
    const doc = window.document as unknown as Document;
    expect(countListeners(window, () => doc.querySelector('button')!.addEventListener('click', () => {}))).toBe(1);
    expect(countListeners(window, () => window.addEventListener('scroll', () => {}))).toBe(1);
  });
});

describe('decisions on small pages', () => {
  const at = (url: string, body: string, title = 'Shop') =>
    detectCheckout(open(`<!DOCTYPE html><html><head><title>${title}</title></head><body>${body}</body></html>`, url), url);

  test('a hidden total is not taken, a visible one is', () => {
    const d = at('https://shop.example/checkout', `
      <div style="display:none"><span>Total</span> <span>$0.00</span></div>
      <div hidden><span>Order total</span> <span>$1.00</span></div>
      <div><span>Total</span> <span>$45.00</span></div>
      <input autocomplete="cc-number"><button>Pay now</button>`);
    expect(d.total).toMatchObject({ cents: 4500, currency: 'usd' });
    expect(d.isCheckout).toBe(true);
  });

  test('a total in a script or a select is not page text', () => {
    const d = at('https://shop.example/checkout', `
      <script>var label = "Total"; var x = "$9.99";</script>
      <select><option>Total</option><option>$5.00</option></select>`);
    expect(d.total).toBeNull();
  });

  test('a pay button carrying the amount gives the total when no label does', () => {
    const d = at('https://shop.example/pay', '<input autocomplete="cc-number"><input type="submit" value="Pay €12,50">');
    expect(d.total).toMatchObject({ cents: 1250, currency: 'eur' });
    expect(d.isCheckout).toBe(true);
  });

  test('a card frame alone on a page that asks for nothing is not a checkout', () => {
    const d = at('https://news.example/article', '<iframe src="https://js.payments.example/card-frame"></iframe><p>Hello</p>');
    expect(d).toMatchObject({ hasCardFrame: true, isCheckout: false });
  });

  test('video, PayPal button and payment-request-button frames are not card frames', () => {
    for (const frame of [
      '<iframe src="https://www.youtube.example/embed/x" title="Payment form teardown"></iframe>',
      '<iframe title="PayPal" src="https://www.paypal.example/smart/buttons"></iframe>',
      '<iframe title="Secure payment request button frame" src="https://js.payments.example/payment-request-button"></iframe>',
    ]) {
      expect(at('https://shop.example/products/x', frame).hasCardFrame).toBe(false);
    }
  });
});

test('the detector bundle stays well under the content script budget (12 KB gzip of 20 KB)', async () => {
  const built = await Bun.build({ entrypoints: [join(import.meta.dir, 'detect.ts')], target: 'browser', minify: true });
  expect(built.success).toBe(true);
  const code = await built.outputs[0]!.text();
  expect(gzipSync(code).length).toBeLessThan(12 * 1024);
});

/** Calls to addEventListener on any node or on the window while `run` runs. */
function countListeners(window: Window, run: () => void): number {
  const owner = (o: object): { addEventListener: (...a: unknown[]) => void } => {
    let p: object | null = o;
    while (p && !Object.prototype.hasOwnProperty.call(p, 'addEventListener')) p = Object.getPrototypeOf(p);
    if (!p) throw new Error('no addEventListener');
    return p as { addEventListener: (...a: unknown[]) => void };
  };
  const protos = [...new Set([owner(window.document), owner(window)])];
  const originals = protos.map((p) => p.addEventListener);
  let calls = 0;
  protos.forEach((p, i) => {
    p.addEventListener = function (this: unknown, ...args: unknown[]) {
      calls++;
      return originals[i]!.apply(this, args);
    };
  });
  try {
    run();
  } finally {
    protos.forEach((p, i) => (p.addEventListener = originals[i]!));
  }
  return calls;
}

/** The markup inside every open shadow root, which outerHTML leaves out. */
function shadowHtml(doc: Document): string {
  const out: string[] = [];
  const visit = (root: Document | ShadowRoot) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) {
        out.push(el.shadowRoot.innerHTML);
        visit(el.shadowRoot);
      }
    }
  };
  visit(doc);
  return out.join('\n');
}
