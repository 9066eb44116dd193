import { describe, expect, test } from 'bun:test';
import { Window } from 'happy-dom';
import { expiryText, fillCard, type FillTargets } from './src/content/fill';
import { findCardFields } from './src/detect/fields';
import type { FillCard } from './src/lib/protocol';

/*
 * Autofill (src/content/fill.ts) in happy-dom. The React-like input reproduces React's value tracking: React
 * overrides `value` on the element to remember what it wrote, and its onChange fires on an input event only when the
 * DOM's value differs from that remembered one. A fill through `el.value = x` goes through the override, so React
 * would see no change; only the prototype's native setter makes the change visible.
 */

const CARD: FillCard = { number: '4242424242424242', expMonth: 3, expYear: 2029, cvc: '123', name: 'Ada Lovelace' };

function page(html: string) {
  const win = new Window({ url: 'https://shop.example/checkout' });
  win.document.body.innerHTML = html;
  const doc = win.document as unknown as Document;
  return { win, doc, $: <E extends Element>(sel: string) => doc.querySelector(sel) as E };
}

const none: FillTargets = { number: null, expiry: null, expMonth: null, expYear: null, cvc: null, name: null };

/** React's tracker on one input: answers the values its onChange would have seen. */
function reactControlled(input: HTMLInputElement): string[] {
  const view = input.ownerDocument.defaultView;
  if (!view) throw new Error('no window');
  const native = Object.getOwnPropertyDescriptor(view.HTMLInputElement.prototype, 'value');
  const get = native?.get;
  const set = native?.set;
  if (!get || !set) throw new Error('no native value accessor');
  let tracked = get.call(input) as string;
  Object.defineProperty(input, 'value', {
    configurable: true,
    get() {
      return get.call(this);
    },
    set(v: string) {
      tracked = String(v);
      set.call(this, v);
    },
  });
  const seen: string[] = [];
  input.addEventListener('input', () => {
    const now = get.call(input) as string;
    if (now !== tracked) {
      tracked = now;
      seen.push(now);
    }
  });
  return seen;
}

describe('fillCard', () => {
  test('React-controlled inputs see every value (native setter), with input, change and blur', () => {
    const { doc, $ } = page(`
      <form id="f">
        <input id="n" autocomplete="cc-number"><input id="e" autocomplete="cc-exp" placeholder="MM / YY">
        <input id="c" autocomplete="cc-csc"><input id="h" autocomplete="cc-name">
      </form>`);
    const inputs = ['#n', '#e', '#c', '#h'].map((s) => $<HTMLInputElement>(s));
    const seen = inputs.map(reactControlled);
    const events: string[] = [];
    for (const type of ['input', 'change', 'focusout']) doc.getElementById('f')?.addEventListener(type, (e) => events.push(`${type}:${(e.target as Element).id}`));
    const blurs: string[] = [];
    for (const el of inputs) el.addEventListener('blur', () => blurs.push(el.id));

    const [n, e, c, h] = inputs as [HTMLInputElement, HTMLInputElement, HTMLInputElement, HTMLInputElement];
    const filled = fillCard({ ...none, number: n, expiry: e, cvc: c, name: h }, CARD);

    expect(filled).toBe(4);
    expect(seen).toEqual([['4242424242424242'], ['03 / 29'], ['123'], ['Ada Lovelace']]);
    for (const id of ['n', 'e', 'c', 'h']) {
      expect(events).toContain(`input:${id}`);
      expect(events).toContain(`change:${id}`);
      expect(events).toContain(`focusout:${id}`);
    }
    expect(blurs).toEqual(['n', 'e', 'c', 'h']);
  });

  test('a plain assignment would not be seen by the React-like tracker (the test can fail)', () => {
    const { $ } = page('<input id="n">');
    const input = $<HTMLInputElement>('#n');
    const seen = reactControlled(input);
    input.value = '4242';
    input.dispatchEvent(new (input.ownerDocument.defaultView as unknown as typeof globalThis).Event('input', { bubbles: true }));
    expect(seen).toEqual([]);
  });

  test('month and year selects in their many shapes', () => {
    const months = (fmt: (m: number) => [string, string]) =>
      Array.from({ length: 12 }, (_, i) => fmt(i + 1))
        .map(([v, t]) => `<option value="${v}">${t}</option>`)
        .join('');
    const { $ } = page(`
      <select id="m1"><option value="">Month</option>${months((m) => [String(m), String(m)])}</select>
      <select id="m2"><option value="">MM</option>${months((m) => [String(m).padStart(2, '0'), String(m).padStart(2, '0')])}</select>
      <select id="m3"><option value="">--</option>${months((m) => [`m${m}`, `${String(m).padStart(2, '0')} - Month ${m}`])}</select>
      <select id="y1"><option value="">Year</option><option value="2028">2028</option><option value="2029">2029</option></select>
      <select id="y2"><option value="">YY</option><option value="28">28</option><option value="29">29</option></select>`);
    const sel = (id: string) => $<HTMLSelectElement>(`#${id}`);
    expect(fillCard({ ...none, expMonth: sel('m1'), expYear: sel('y1') }, CARD)).toBe(2);
    expect(fillCard({ ...none, expMonth: sel('m2'), expYear: sel('y2') }, CARD)).toBe(2);
    expect(fillCard({ ...none, expMonth: sel('m3') }, CARD)).toBe(1);
    expect([sel('m1').value, sel('m2').value, sel('m3').value, sel('y1').value, sel('y2').value]).toEqual(['3', '03', 'm3', '2029', '29']);
  });

  test('a select with no matching option is left alone and not counted', () => {
    const { $ } = page('<select id="y"><option value="">Year</option><option value="2024">2024</option></select>');
    const y = $<HTMLSelectElement>('#y');
    expect(fillCard({ ...none, expYear: y }, CARD)).toBe(0);
    expect(y.value).toBe('');
  });

  test('separate month and year inputs: two-digit month, year as the field asks', () => {
    const { $ } = page('<input id="m"><input id="y2" maxlength="2"><input id="y4" placeholder="YYYY">');
    const m = $<HTMLInputElement>('#m');
    const y2 = $<HTMLInputElement>('#y2');
    const y4 = $<HTMLInputElement>('#y4');
    fillCard({ ...none, expMonth: m, expYear: y2 }, CARD);
    fillCard({ ...none, expYear: y4 }, CARD);
    expect([m.value, y2.value, y4.value]).toEqual(['03', '29', '2029']);
  });

  test('disabled and read-only fields are skipped', () => {
    const { $ } = page('<input id="n" disabled><input id="c" readonly>');
    expect(fillCard({ ...none, number: $<HTMLInputElement>('#n'), cvc: $<HTMLInputElement>('#c') }, CARD)).toBe(0);
  });

  test('the number goes into the field only: never into the page markup', () => {
    const { doc, $ } = page('<input id="n" autocomplete="cc-number">');
    fillCard({ ...none, number: $<HTMLInputElement>('#n') }, CARD);
    expect($<HTMLInputElement>('#n').value).toBe(CARD.number);
    expect(doc.documentElement.outerHTML).not.toContain(CARD.number);
  });

  test('with the detector: a checkout form found by findCardFields is filled whole', () => {
    const { doc, $ } = page(`
      <form>
        <label for="cn">Card number</label><input id="cn" name="cardnumber" autocomplete="cc-number">
        <label for="ex">Expiry</label><input id="ex" name="exp-date" autocomplete="cc-exp" placeholder="MM/YY" maxlength="5">
        <label for="cv">CVC</label><input id="cv" name="cvc" autocomplete="cc-csc">
        <label for="nm">Name on card</label><input id="nm" name="ccname" autocomplete="cc-name">
      </form>`);
    expect(fillCard(findCardFields(doc), CARD)).toBe(4);
    expect(['#cn', '#ex', '#cv', '#nm'].map((s) => $<HTMLInputElement>(s).value)).toEqual([CARD.number, '03/29', '123', 'Ada Lovelace']);
  });
});

describe('expiryText (one field for month and year)', () => {
  const cases: { attrs: string; want: string }[] = [
    { attrs: 'placeholder="MM / YY"', want: '03 / 29' },
    { attrs: 'placeholder="MM/YY"', want: '03/29' },
    { attrs: 'placeholder="mm/yyyy"', want: '03/2029' },
    { attrs: 'placeholder="MMYY"', want: '0329' },
    { attrs: 'placeholder="MM-AA"', want: '03-29' },
    { attrs: 'maxlength="4"', want: '0329' },
    { attrs: 'maxlength="5"', want: '03/29' },
    { attrs: 'maxlength="7"', want: '03/2029' },
    { attrs: 'maxlength="9"', want: '03 / 2029' },
    { attrs: 'type="month"', want: '2029-03' },
    { attrs: '', want: '03/29' },
  ];
  for (const { attrs, want } of cases) {
    test(`<input ${attrs}> -> ${want}`, () => {
      const { $ } = page(`<input id="e" ${attrs}>`);
      expect(expiryText($<HTMLInputElement>('#e'), 3, 2029)).toBe(want);
    });
  }
});
