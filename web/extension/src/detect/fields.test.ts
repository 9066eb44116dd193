import { afterAll, describe, expect, test } from 'bun:test';
import { Window } from 'happy-dom';
import { classifyControl, findCardFields, type CardControl, type CardFields } from './fields';

const windows: Window[] = [];
afterAll(async () => {
  for (const w of windows) await w.happyDOM.close();
});

function page(body: string): Document {
  const window = new Window({ url: 'https://shop.example/checkout' });
  windows.push(window);
  window.document.write(`<!DOCTYPE html><html><head><title>t</title></head><body>${body}</body></html>`);
  return window.document as unknown as Document;
}

/** The id (or name) of each field found, to compare in one expect. */
function ids(fields: CardFields): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(fields) as Array<[string, CardControl | null]>) out[k] = v ? v.id || v.getAttribute('name') : null;
  return out;
}

const none = { number: null, expiry: null, expMonth: null, expYear: null, cvc: null, name: null };

describe('findCardFields', () => {
  test('autocomplete tokens, with section and shipping prefixes', () => {
    const doc = page(`
      <input id="n" autocomplete="section-pay cc-number"><input id="e" autocomplete="cc-exp">
      <input id="c" autocomplete="cc-csc"><input id="h" autocomplete="billing cc-name">`);
    expect(ids(findCardFields(doc))).toEqual({ ...none, number: 'n', expiry: 'e', cvc: 'c', name: 'h' });
  });

  test('label[for], wrapping labels, aria-label, aria-labelledby, placeholders', () => {
    const doc = page(`
      <label for="a">Card number</label><input id="a">
      <label>Expiry date <input id="b" placeholder="MM / YY"></label>
      <input id="c" aria-label="Security code">
      <span id="lbl">Name on card</span><input id="d" aria-labelledby="lbl">`);
    expect(ids(findCardFields(doc))).toEqual({ ...none, number: 'a', expiry: 'b', cvc: 'c', name: 'd' });
  });

  test('unlabelled React-style inputs by placeholder', () => {
    const doc = page(`<div><input id="x1" placeholder="1234 1234 1234 1234"><input id="x2" placeholder="MM / YY"><input id="x3" placeholder="CVC"></div>`);
    expect(ids(findCardFields(doc))).toEqual({ ...none, number: 'x1', expiry: 'x2', cvc: 'x3' });
  });

  test('name and id attributes (Magento, Braintree, Stripe styles)', () => {
    const doc = page(`
      <input name="payment[cc_number]"><input name="payment[cc_cid]">
      <select name="payment[cc_exp_month]"><option value="">Month</option>${options(1, 12)}</select>
      <select name="payment[cc_exp_year]"><option value="">Year</option>${options(2025, 2034)}</select>`);
    expect(ids(findCardFields(doc))).toEqual({
      ...none,
      number: 'payment[cc_number]',
      cvc: 'payment[cc_cid]',
      expMonth: 'payment[cc_exp_month]',
      expYear: 'payment[cc_exp_year]',
    });
  });

  test('month and year selects under one "Expiration date" label, told apart by their options', () => {
    const doc = page(`
      <input id="num" name="cardnumber">
      <label for="m">Expiration date</label>
      <select id="m">${options(1, 12)}</select><select id="y">${options(25, 35)}</select>`);
    expect(ids(findCardFields(doc))).toMatchObject({ number: 'num', expMonth: 'm', expYear: 'y', expiry: null });
  });

  test('bare "month"/"year" selects count only beside a card number', () => {
    const withCard = page(`<input name="ccnum"><select name="month">${options(1, 12)}</select><select name="year">${options(2025, 2030)}</select>`);
    expect(ids(findCardFields(withCard))).toMatchObject({ number: 'ccnum', expMonth: 'month', expYear: 'year' });
    const alone = page(`<select name="month">${options(1, 12)}</select><select name="year">${options(2025, 2030)}</select>`);
    expect(ids(findCardFields(alone))).toEqual(none);
  });

  test('Arabic labels and placeholders', () => {
    const doc = page(`
      <label for="p">رقم البطاقة</label><input id="p">
      <label for="e">تاريخ الانتهاء</label><input id="e" placeholder="شهر / سنة">
      <label for="s">رمز الأمان</label><input id="s">
      <label for="h">الاسم على البطاقة</label><input id="h">`);
    expect(ids(findCardFields(doc))).toEqual({ ...none, number: 'p', expiry: 'e', cvc: 's', name: 'h' });
    const byPlaceholder = page(`<input id="a" placeholder="رقم البطاقة"><input id="b" aria-label="رمز التحقق"><input id="c" placeholder="اسم حامل البطاقة">`);
    expect(ids(findCardFields(byPlaceholder))).toMatchObject({ number: 'a', cvc: 'b', name: 'c' });
  });

  test('open shadow roots, nested ones included; findCardFields also takes a shadow root', () => {
    const doc = page('<checkout-form></checkout-form><p>outside</p>');
    const outer = doc.querySelector('checkout-form')!.attachShadow({ mode: 'open' });
    outer.innerHTML = '<label for="n">Card number</label><input id="n"><card-extra></card-extra>';
    const inner = outer.querySelector('card-extra')!.attachShadow({ mode: 'open' });
    inner.innerHTML = '<label for="c">CVC</label><input id="c"><input id="e" autocomplete="cc-exp">';
    expect(ids(findCardFields(doc))).toEqual({ ...none, number: 'n', cvc: 'c', expiry: 'e' });
    expect(ids(findCardFields(inner))).toEqual({ ...none, cvc: 'c', expiry: 'e' });
  });

  test('labels are looked up in the field\'s own root: equal ids in two shadow roots do not mix', () => {
    const doc = page('<x-a></x-a><x-b></x-b>');
    doc.querySelector('x-a')!.attachShadow({ mode: 'open' }).innerHTML = '<label for="f">Card number</label><input id="f">';
    doc.querySelector('x-b')!.attachShadow({ mode: 'open' }).innerHTML = '<label for="f">Coupon</label><input id="f" name="second">';
    const fields = findCardFields(doc);
    expect(fields.number?.getAttribute('name')).toBeNull();
    expect(fields.cvc).toBeNull();
  });

  test('not card fields: gift cards, coupons, birth month, phone, hidden and password inputs', () => {
    const doc = page(`
      <label for="g">Gift card number</label><input id="g" placeholder="1234 5678 9012 3456">
      <label for="k">Discount code</label><input id="k">
      <label for="b">Birth month</label><select id="b">${options(1, 12)}</select>
      <label for="t">Phone number</label><input id="t" type="tel">
      <input type="hidden" name="card_number" value="x">
      <label for="pw">Card PIN</label><input id="pw" type="password">`);
    expect(ids(findCardFields(doc))).toEqual(none);
  });

  test('the first field of each kind wins', () => {
    const doc = page('<input id="one" autocomplete="cc-number"><input id="two" autocomplete="cc-number">');
    expect(findCardFields(doc).number?.id).toBe('one');
  });

  test('classifyControl reads a combined expiry apart from month and year fields', () => {
    const doc = page(`
      <input id="a" name="exp" placeholder="MM/YY">
      <input id="b" name="exp_month" placeholder="MM">
      <input id="c" name="exp_year" placeholder="YYYY">
      <input id="d" name="expiry" placeholder="MM/AA">`);
    const kind = (id: string) => classifyControl(doc.getElementById(id) as HTMLInputElement);
    expect([kind('a'), kind('b'), kind('c'), kind('d')]).toEqual(['expiry', 'expMonth', 'expYear', 'expiry']);
  });
});

function options(from: number, to: number): string {
  let s = '';
  for (let v = from; v <= to; v++) s += `<option value="${String(v).padStart(2, '0')}">${v}</option>`;
  return s;
}
