/**
 * Card fields of a page: which input or select takes the number, the expiry (one MM/YY field or a month and a year),
 * the security code and the cardholder's name. Read-only over the DOM, open shadow roots included.
 * Cues, strongest first: the autocomplete token, then name/id/data attributes, then the label (label[for], a wrapping
 * label, aria-label, aria-labelledby, title), then the placeholder.
 */

export type CardControl = HTMLInputElement | HTMLSelectElement;

export interface CardFields {
  number: CardControl | null;
  /** One field for month and year ("MM / YY"). */
  expiry: CardControl | null;
  expMonth: CardControl | null;
  expYear: CardControl | null;
  cvc: CardControl | null;
  name: CardControl | null;
}

export type CardFieldKind = keyof CardFields;

const AUTOCOMPLETE: Record<string, CardFieldKind> = {
  'cc-number': 'number',
  'cc-exp': 'expiry',
  'cc-exp-month': 'expMonth',
  'cc-exp-year': 'expYear',
  'cc-csc': 'cvc',
  'cc-name': 'name',
  'cc-given-name': 'name',
};

// Word lists, in the order they are tried; English, Arabic, and a few other languages shops use often.
/** A field for some other card or number: gift cards, coupons, phones, accounts. */
const NOT_PAYMENT_CARD = /gift|voucher|coupon|promo|discount|loyalty|member|reward|phone|mobile|account.?(num|no)|iban|routing|tax|vat|zip|postal|bsb|pin\b|هدية|قسيمة|خصم|كوبون|جوال|هاتف|ギフト|クーポン/i;
const BIRTH = /birth|dob|\bbday|ميلاد|生年月日|geburt/i;
const CARD_NUMBER = /card.?num|cc.?num|ccnum|cardno|card.?no\b|credit.?card(?!.?(?:holder|name|type|cvc|cvv|exp|code))|debit.?card.?num|\bpan\b|number.?on.?card|رقم.?البطاقة|رقم.?بطاقة|رقم.?الكرت|カード番号|kartennummer|num[ée]ro.?de.?(?:la.?)?carte|n[úu]mero.?de.?(?:la.?)?tarjeta/i;
const CVC = /cvc|cvv|csc|cvn|cid\b|security.?code|card.?code|card.?verification|secure.?code|رمز.?الأمان|رمز.?الامان|رمز.?التحقق|الرمز.?السري|セキュリティ.?コード|prüfnummer|cryptogramme|c[óo]digo.?de.?seguridad/i;
const CARD_NAME = /card.?holder|holder.?name|name.?on.?(?:the.?)?card|cc.?name|card.?name|nameoncard|الاسم.?على.?البطاقة|اسم.?حامل.?البطاقة|حامل.?البطاقة|カード名義|名義人|karteninhaber|titulaire|titular/i;
const EXP_MONTH = /exp\w*.?month|month|\bmm\b|\bmes\b|monat|mois|الشهر|شهر|月/i;
const EXP_YEAR = /exp\w*.?year|year|\byy(?:yy)?\b|\baa(?:aa)?\b|\bjj(?:jj)?\b|\ba[ñn]o\b|jahr|ann[ée]e|السنة|سنة|年/i;
const EXPIRY = /exp(?:iry|iration|ires)?(?:.?date)?\b|exp[\W_]?(?:month|year|mo|yr|mm|yy)|\bexp\b|cc.?exp|mm.?\/.?yy|valid.?(?:thru|through|until)|gültig|ablauf|date.?d.?expiration|caducidad|vencimiento|تاريخ.?الانتهاء|تاريخ.?انتهاء|الصلاحية|有効期限/i;
/** Placeholders that look like a card number ("1234 1234 1234 1234", "•••• ••••"). */
const NUMBER_PLACEHOLDER = /^(?:[\d•*x]{4}[ -]?){3,4}$/i;
const EXPIRY_PLACEHOLDER = /^(?:mm|\d\d)\s*\/\s*(?:yy|yyyy|\d\d|\d{4})$|^(?:شهر|ش)\s*\/\s*(?:سنة|س)$/i;

const SKIP_TYPES = new Set(['hidden', 'submit', 'button', 'reset', 'checkbox', 'radio', 'image', 'file', 'password', 'email', 'search', 'range', 'color', 'date']);

/** Every open shadow root under root, nested ones included, in document order. */
export function openShadowRoots(root: Document | ShadowRoot): ShadowRoot[] {
  const out: ShadowRoot[] = [];
  const all = root.querySelectorAll('*');
  for (let i = 0; i < all.length; i++) {
    const sr = all[i]!.shadowRoot;
    if (sr) out.push(sr, ...openShadowRoots(sr));
  }
  return out;
}

/** Inputs and selects of root and of the given shadow roots. */
export function formControls(root: Document | ShadowRoot, shadowRoots: readonly ShadowRoot[]): CardControl[] {
  const out: CardControl[] = [];
  for (const r of [root, ...shadowRoots]) out.push(...r.querySelectorAll<CardControl>('input, select'));
  return out;
}

function text(el: Element | null | undefined, max = 80): string {
  return el ? (el.textContent ?? '').slice(0, max) : '';
}

/** label[for] texts of a root, read once: `input.labels` walks the whole tree on every call in Chromium. */
export type LabelIndex = Map<Node, Map<string, string>>;

export function labelIndex(roots: ReadonlyArray<Document | ShadowRoot>): LabelIndex {
  const labels: Element[] = [];
  for (const root of roots) labels.push(...root.querySelectorAll('label[for]'));
  return indexLabels(labels);
}

/** The same from label[for] elements already found. */
export function indexLabels(labels: readonly Element[]): LabelIndex {
  const index: LabelIndex = new Map();
  for (const label of labels.slice(0, 1000)) {
    const root = label.getRootNode();
    let byId = index.get(root);
    if (!byId) index.set(root, (byId = new Map()));
    const id = label.getAttribute('for');
    if (id && !byId.has(id)) byId.set(id, text(label));
  }
  return index;
}

/** The visible description of a control: its labels, aria-label(ledby) and title. */
export function labelText(el: CardControl, labels?: LabelIndex): string {
  const parts: string[] = [];
  if (el.id) {
    if (labels) parts.push(labels.get(el.getRootNode())?.get(el.id) ?? '');
    else parts.push(text((el.getRootNode() as Document | ShadowRoot).querySelector(`label[for="${el.id.replace(/["\\]/g, '')}"]`)));
  }
  const wrapping = el.closest('label');
  if (wrapping) parts.push(text(wrapping));
  const ariaLabel = el.getAttribute('aria-label');
  if (ariaLabel) parts.push(ariaLabel);
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const root = el.getRootNode() as Document | ShadowRoot;
    for (const id of by.split(/\s+/).slice(0, 3)) if (id) parts.push(text(root.getElementById(id)));
  }
  const title = el.getAttribute('title');
  if (title) parts.push(title);
  return parts.join(' ').slice(0, 200);
}

function attributes(el: CardControl): string {
  let s = `${el.getAttribute('name') ?? ''} ${el.id}`;
  for (const a of ['data-elements-stable-field-name', 'data-testid', 'data-test', 'data-field', 'data-card-field']) {
    const v = el.getAttribute(a);
    if (v) s += ` ${v}`;
  }
  return s.slice(0, 200);
}

/** Month or year, for a select (from its options) or a field whose cues say so. */
function monthOrYear(el: CardControl, cue: string): 'expMonth' | 'expYear' | null {
  if (el.tagName === 'SELECT') {
    const select = el as HTMLSelectElement;
    const values: string[] = [];
    for (let i = 0; i < select.options.length && i < 30; i++) values.push(select.options[i]!.value);
    const numeric = values.filter((v) => /^\d+$/.test(v)).map(Number);
    if (numeric.length >= 5 && numeric.every((v) => v >= 1 && v <= 12) && numeric.length <= 13) return 'expMonth';
    if (numeric.length >= 5 && numeric.every((v) => (v >= 20 && v <= 99) || (v >= 2000 && v <= 2099))) return 'expYear';
  }
  if (EXP_YEAR.test(cue) && !EXP_MONTH.test(cue.replace(EXP_YEAR, ''))) return 'expYear';
  if (EXP_MONTH.test(cue) && !EXP_YEAR.test(cue.replace(EXP_MONTH, ''))) return 'expMonth';
  return null;
}

/** What card field one control is, or null. */
export function classifyControl(el: CardControl, labels?: LabelIndex): CardFieldKind | null {
  if (el.tagName === 'INPUT' && SKIP_TYPES.has((el as HTMLInputElement).type)) return null;
  for (const token of (el.getAttribute('autocomplete') ?? '').toLowerCase().split(/\s+/)) {
    const kind = AUTOCOMPLETE[token];
    if (kind) return kind;
  }
  const attrs = attributes(el);
  const label = labelText(el, labels);
  const placeholder = (el.getAttribute('placeholder') ?? '').trim().slice(0, 60);
  const cues = [attrs, label, placeholder];
  // "Gift card number" with a card-like placeholder is still a gift card.
  if (cues.some((cue) => NOT_PAYMENT_CARD.test(cue))) return null;
  for (const cue of cues) {
    if (!cue.trim()) continue;
    if (CVC.test(cue)) return 'cvc';
    if (CARD_NAME.test(cue)) return 'name';
    if (CARD_NUMBER.test(cue) || (cue === placeholder && NUMBER_PLACEHOLDER.test(cue))) return 'number';
    if (BIRTH.test(cue)) return null;
    if (EXPIRY.test(cue) || (cue === placeholder && EXPIRY_PLACEHOLDER.test(cue))) {
      // "Expiry date" labels a month select as often as a combined field: the field's own cues decide.
      return monthOrYear(el, `${attrs} ${placeholder}`) ?? (el.tagName === 'SELECT' ? monthOrYear(el, label) : null) ?? 'expiry';
    }
  }
  return null;
}

/** Month and year selects named only "month"/"year": taken when a card number was found. */
function bareMonthYear(el: CardControl, labels: LabelIndex): 'expMonth' | 'expYear' | null {
  if (el.tagName !== 'SELECT' && !(el.getAttribute('name') ?? '').match(/month|year/i)) return null;
  const cue = `${attributes(el)} ${labelText(el, labels)} ${el.getAttribute('placeholder') ?? ''}`;
  if (BIRTH.test(cue) || NOT_PAYMENT_CARD.test(cue)) return null;
  return monthOrYear(el, cue);
}

/** The card fields of a document or shadow root; the first control of each kind wins. */
export function findCardFields(root: Document | ShadowRoot, shadowRoots: readonly ShadowRoot[] = openShadowRoots(root)): CardFields {
  return cardFieldsOf(formControls(root, shadowRoots), labelIndex([root, ...shadowRoots]));
}

export function cardFieldsOf(controls: readonly CardControl[], labels: LabelIndex): CardFields {
  const fields: CardFields = { number: null, expiry: null, expMonth: null, expYear: null, cvc: null, name: null };
  const unknown: CardControl[] = [];
  for (const el of controls.slice(0, 400)) {
    const kind = classifyControl(el, labels);
    if (kind && !fields[kind]) fields[kind] = el;
    else if (!kind) unknown.push(el);
  }
  if (fields.number && !fields.expiry) {
    for (const el of unknown) {
      const kind = bareMonthYear(el, labels);
      if (kind && !fields[kind]) fields[kind] = el;
    }
  }
  return fields;
}
