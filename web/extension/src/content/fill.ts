import type { FillCard } from '../lib/protocol';

/*
 * Fills the bcard into one frame's card fields the way a person typing would leave them: each value is written with
 * the element prototype's native setter (frameworks such as React override `value` on the element to track what
 * they wrote; the native setter bypasses that, so the framework sees a change), then input, change and blur are
 * dispatched so React, Vue and plain validators all update. The number is only ever written into the card fields.
 */

export type FillField = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** One frame's card fields (the detector's findCardFields answer); each may be missing. */
export interface FillTargets {
  number: FillField | null;
  /** One field holding month and year (MM/YY, MM / YY, MMYY, MM/YYYY, or an <input type=month>). */
  expiry: FillField | null;
  expMonth: FillField | null;
  expYear: FillField | null;
  cvc: FillField | null;
  name: FillField | null;
}

/** Writes a value through the prototype's setter (never the element's own, possibly overridden, property). */
function writeNative(el: FillField, value: string): void {
  const view = el.ownerDocument.defaultView;
  const proto =
    view && el instanceof view.HTMLSelectElement
      ? view.HTMLSelectElement.prototype
      : view && el instanceof view.HTMLTextAreaElement
        ? view.HTMLTextAreaElement.prototype
        : view
          ? view.HTMLInputElement.prototype
          : Object.getPrototypeOf(el);
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
  if (setter) setter.call(el, value);
  else el.value = value;
}

function dispatchAll(el: FillField): void {
  const view = el.ownerDocument.defaultView;
  const EventCtor = view?.Event ?? Event;
  const FocusCtor = view?.FocusEvent ?? FocusEvent;
  el.dispatchEvent(new EventCtor('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new EventCtor('change', { bubbles: true }));
  el.dispatchEvent(new FocusCtor('blur', { bubbles: false }));
  el.dispatchEvent(new FocusCtor('focusout', { bubbles: true }));
}

function usable(el: FillField | null): el is FillField {
  return el !== null && !el.disabled && !('readOnly' in el && el.readOnly) && rendered(el);
}

/**
 * Whether a person can see the field: a card number is never written into a field hidden from them (display:none,
 * visibility:hidden, transparent, or in a frame with no room to show it), which only a page skimming autofill would
 * place there. Where the browser cannot tell (no checkVisibility, as in tests' DOMs), the field counts as shown.
 */
function rendered(el: FillField): boolean {
  const view = el.ownerDocument.defaultView;
  if (view && (view.innerWidth < 20 || view.innerHeight < 10)) return false;
  const check = (el as { checkVisibility?: (o: Record<string, boolean>) => boolean }).checkVisibility;
  return typeof check === 'function' ? check.call(el, { visibilityProperty: true, opacityProperty: true, contentVisibilityAuto: true }) : true;
}

/** Sets a text field; true when it now holds the value. */
export function setText(el: FillField, value: string): boolean {
  if (isSelect(el)) return setSelect(el, [value]);
  writeNative(el, value);
  dispatchAll(el);
  return true;
}

function isSelect(el: FillField): el is HTMLSelectElement {
  return el.tagName === 'SELECT';
}

const norm = (s: string) => s.trim().toLowerCase();
const leadingNumber = (s: string) => {
  const m = /^\s*(\d{1,4})(?!\d)/.exec(s);
  return m ? Number(m[1]) : null;
};

/**
 * Selects the first option whose value or text is one of `candidates` (case and spaces ignored), else, when
 * `number` is given, whose value or text starts with that number ("01 - January", "2027"). True when one matched.
 */
export function setSelect(el: HTMLSelectElement, candidates: readonly string[], number?: number): boolean {
  const wanted = new Set(candidates.map(norm));
  const options = [...el.options];
  let match = options.find((o) => wanted.has(norm(o.value)) || wanted.has(norm(o.text)));
  if (!match && number !== undefined) match = options.find((o) => leadingNumber(o.value) === number || leadingNumber(o.text) === number);
  if (!match) return false;
  writeNative(el, match.value);
  dispatchAll(el);
  return true;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

export function setMonth(el: FillField, month: number): boolean {
  const mm = String(month).padStart(2, '0');
  if (isSelect(el)) {
    const name = MONTHS[month - 1] ?? '';
    return setSelect(el, [mm, String(month), name], month);
  }
  return setText(el, mm);
}

export function setYear(el: FillField, year: number): boolean {
  const yyyy = String(year);
  const yy = yyyy.slice(-2);
  if (isSelect(el)) return setSelect(el, [yyyy, yy]) || setSelect(el, [], year) || setSelect(el, [], year % 100);
  // A two-digit field ("YY", maxlength 2) gets two digits; otherwise four.
  const max = 'maxLength' in el ? el.maxLength : -1;
  const twoDigits = max === 2 || /^\s*(yy|aa|jj)\s*$/i.test(el.getAttribute('placeholder') ?? '');
  return setText(el, twoDigits ? yy : yyyy);
}

/**
 * A combined expiry in the format the field asks for: its placeholder first ("MM / YY", "MM/YYYY", "MMYY"), then
 * its maxlength (4 = MMYY, 5 = MM/YY, 6 = MMYYYY, 7 = MM/YYYY, 9 = MM / YYYY), else MM/YY. <input type=month>
 * takes YYYY-MM.
 */
export function expiryText(el: FillField, month: number, year: number): string {
  const mm = String(month).padStart(2, '0');
  const yyyy = String(year);
  const yy = yyyy.slice(-2);
  if (el.getAttribute('type') === 'month') return `${yyyy}-${mm}`;
  const placeholder = (el.getAttribute('placeholder') ?? '').toUpperCase();
  // Month and year placeholders in English, French/Spanish (AA) and German (JJ).
  const shape = /MM(\s*[/\-.]?\s*)(YYYY|YY|AAAA|AA|JJJJ|JJ)/.exec(placeholder);
  if (shape) {
    const sep = (shape[1] ?? '').replace(/\s+/g, ' ');
    return `${mm}${sep}${(shape[2] ?? '').length === 4 ? yyyy : yy}`;
  }
  const max = el.getAttribute('maxlength');
  switch (max === null ? -1 : Number(max)) {
    case 4:
      return `${mm}${yy}`;
    case 6:
      return `${mm}${yyyy}`;
    case 7:
      return `${mm}/${yyyy}`;
    case 9:
      return `${mm} / ${yyyy}`;
    default:
      return `${mm}/${yy}`;
  }
}

/** Fills what the frame has; answers how many fields got a value. */
export function fillCard(targets: FillTargets, card: FillCard): number {
  let filled = 0;
  const count = (ok: boolean) => {
    if (ok) filled += 1;
  };
  if (usable(targets.number)) count(setText(targets.number, card.number));
  if (usable(targets.expiry)) {
    const el = targets.expiry;
    count(isSelect(el) ? setSelect(el, [expiryText(el, card.expMonth, card.expYear)]) : setText(el, expiryText(el, card.expMonth, card.expYear)));
  }
  if (usable(targets.expMonth)) count(setMonth(targets.expMonth, card.expMonth));
  if (usable(targets.expYear)) count(setYear(targets.expYear, card.expYear));
  if (usable(targets.cvc)) count(setText(targets.cvc, card.cvc));
  if (usable(targets.name)) count(setText(targets.name, card.name));
  return filled;
}
