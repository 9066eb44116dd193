/**
 * Money amounts as shops print them, read into exact integer minor units (never floats).
 *
 * Currencies come back as lowercase ISO 4217 codes ('usd'), the server's spelling; null when the text names none.
 * Decimal separator rules, in order:
 *  - '.' and ',' both present: the last one is the decimal point, the other groups thousands ("1.234,56", "1,234.56");
 *  - spaces (also no-break and narrow no-break) and apostrophes only ever group thousands;
 *  - one separator used several times groups thousands ("1.234.567");
 *  - one separator used once and followed by exactly three digits ("1.234", "1,234") groups thousands: read as a
 *    decimal point it would give a fraction of a cent, which no price has. The exception is a '.' before three digits
 *    in a three-decimal currency (KWD, BHD, OMR, JOD...): "KWD 12.500" is twelve and a half dinars;
 *  - otherwise the lone separator is the decimal point ("12,5" = 12.50).
 * More decimals than the currency has are refused unless they are zeros ("¥1,200.00" = 1200 yen).
 * Arabic-Indic and Persian digits, Arabic separators (٬ thousands, ٫ decimal) and full-width digits are read as ASCII;
 * bidi marks are ignored. A bare "$" is read as US dollars and "¥" as yen.
 */

export interface Amount {
  /** Minor units of the currency: cents, fils (3 decimals) or yen (0 decimals). */
  cents: number;
  currency: string | null;
}

export interface AmountMatch extends Amount {
  /** The amount as the page wrote it (bidi marks removed). */
  text: string;
  index: number;
}

export interface Total extends Amount {
  text: string;
}

export interface TotalCandidate extends AmountMatch {
  /** Strength of the label: 3 "Order total"/"Amount due", 2 "Total", 1 a pay button's amount. */
  rank: number;
  /** Index of the run holding the label and of the run where the amount starts. */
  labelRun: number;
  amountRun: number;
  label: string;
}

const ZERO_DECIMAL = new Set(['bif', 'clp', 'djf', 'gnf', 'isk', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf']);
const THREE_DECIMAL = new Set(['bhd', 'iqd', 'jod', 'kwd', 'lyd', 'omr', 'tnd']);

/** Digits after the decimal point in the currency's minor unit (2 when unknown). */
export function minorDigits(currency: string | null): number {
  if (currency && ZERO_DECIMAL.has(currency)) return 0;
  if (currency && THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/** Symbols and local abbreviations; ISO codes are matched separately (upper case, whole words). */
const SYMBOLS: Record<string, string> = {
  US$: 'usd', CA$: 'cad', C$: 'cad', AU$: 'aud', A$: 'aud', NZ$: 'nzd', HK$: 'hkd', S$: 'sgd', MX$: 'mxn', R$: 'brl',
  $: 'usd', '€': 'eur', '£': 'gbp', '¥': 'jpy', '￥': 'jpy', '円': 'jpy', 'CN¥': 'cny', '元': 'cny', '₹': 'inr',
  '₩': 'krw', '₺': 'try', '₽': 'rub', '₪': 'ils', '₫': 'vnd', '₱': 'php', '฿': 'thb', 'zł': 'pln',
  '﷼': 'sar', '\u20c1': 'sar', 'ر.س': 'sar', 'ريال': 'sar', 'د.إ': 'aed', 'درهم': 'aed', 'ج.م': 'egp', 'جنيه': 'egp',
  'د.ك': 'kwd', 'د.ب': 'bhd', 'ر.ق': 'qar', 'ر.ع': 'omr', 'د.أ': 'jod', 'د.م': 'mad',
};
const CODES = 'USD EUR GBP JPY CNY CAD AUD NZD CHF SEK NOK DKK PLN CZK HUF INR KRW SGD HKD MXN BRL ZAR TRY ILS THB SAR AED EGP KWD BHD QAR OMR JOD MAD'.split(' ');

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SYMBOL_SOURCE = Object.keys(SYMBOLS)
  .sort((a, b) => b.length - a.length)
  .map((s) => `${escape(s)}${/^[\u0600-\u06ff]/.test(s) ? '\\.?' : ''}`)
  .join('|');
const CUR = `(?:\\b(?:${CODES.join('|')})\\b|${SYMBOL_SOURCE})`;
// Spaces group only before exactly three digits, so "4242 4242" or "2 items" are never one number.
const NUM = `\\d+(?:(?:[.,'’]|[ ](?=\\d{3}(?!\\d)))\\d+)*`;
// A currency after the number is not taken when it starts the next amount ("$10.00 $20.00").
const AMOUNT = `(?:(${CUR})[ ]*)?(${NUM})(?:[ ]*(${CUR})(?![ ]*\\d))?`;
const SCAN = new RegExp(AMOUNT, 'g');
const WHOLE = new RegExp(`^${AMOUNT}$`);

/**
 * Same length as the input, so indexes found in the result point into the original: digits to ASCII, Arabic
 * separators to ',' and '.', every kind of space and bidi mark to ' '.
 */
export function normalizeDigits(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) out += text[i];
    else if (c >= 0x660 && c <= 0x669) out += String.fromCharCode(c - 0x660 + 48);
    else if (c >= 0x6f0 && c <= 0x6f9) out += String.fromCharCode(c - 0x6f0 + 48);
    else if (c >= 0xff10 && c <= 0xff19) out += String.fromCharCode(c - 0xff10 + 48);
    else if (c === 0x66c) out += ',';
    else if (c === 0x66b) out += '.';
    else if (c === 0xa0 || c === 0x202f || (c >= 0x2000 && c <= 0x200b) || c === 0x3000) out += ' ';
    else if (c === 0x200e || c === 0x200f || c === 0x61c || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) out += ' ';
    else out += text[i];
  }
  return out;
}

function currencyOf(token: string | undefined): string | null {
  if (!token) return null;
  const t = token.replace(/\.$/, '');
  return SYMBOLS[t] ?? SYMBOLS[token] ?? (CODES.includes(t) ? t.toLowerCase() : null);
}

/** Minor units of a number written with separators, or null when the grouping is not a real one. */
function toMinor(num: string, currency: string | null): number | null {
  const digits = minorDigits(currency);
  const seps = num.replace(/\d/g, '');
  let intPart = num;
  let frac = '';
  const last = Math.max(num.lastIndexOf('.'), num.lastIndexOf(','));
  if (last >= 0) {
    const mark = num[last]!;
    const after = num.length - last - 1;
    const once = seps.indexOf(mark) === seps.length - 1;
    const other = mark === '.' ? ',' : '.';
    const isDecimal =
      once && (seps.includes(other) || after !== 3 || (mark === '.' && digits === 3 && seps.length === 1));
    if (isDecimal) {
      intPart = num.slice(0, last);
      frac = num.slice(last + 1);
    }
  }
  const groups = intPart.split(/[.,'’ ]/);
  if (groups.length > 1 && new Set(intPart.replace(/\d/g, '')).size > 1) return null;
  if (groups.length > 1 && !groupedWell(groups)) return null;
  const whole = groups.join('');
  if (frac.length > digits) {
    if (/[^0]/.test(frac.slice(digits))) return null;
    frac = frac.slice(0, digits);
  }
  const text = (whole + frac.padEnd(digits, '0')).replace(/^0+(?=\d)/, '');
  if (text.length > 15) return null;
  return Number(text);
}

/** 1,234,567 or the Indian 12,34,567. */
function groupedWell(groups: string[]): boolean {
  const [first, ...rest] = groups;
  if (!first || first.length > 3) return false;
  if (rest.every((g) => g.length === 3)) return true;
  const lastGroup = rest[rest.length - 1];
  return lastGroup?.length === 3 && first.length <= 2 && rest.slice(0, -1).every((g) => g.length === 2);
}

function fromMatch(m: RegExpExecArray): Amount | null {
  const [, before, num, after] = m;
  if (before && after && currencyOf(before) !== currencyOf(after)) return null;
  const currency = currencyOf(before ?? after);
  const cents = toMinor(num!, currency);
  return cents === null ? null : { cents, currency };
}

/** The amount the whole text is ("$1,234.50", "1.234,56 €", "١٬٢٣٤٫٥٠ ر.س"), or null for anything else. */
export function parseAmount(text: string): Amount | null {
  if (text.length > 64) return null;
  const m = WHOLE.exec(normalizeDigits(text).trim());
  return m ? fromMatch(m) : null;
}

/** Every amount inside a longer text, skipping negatives ("−$5.00" is a discount) and percentages. */
export function findAmounts(text: string): AmountMatch[] {
  const norm = normalizeDigits(text);
  const out: AmountMatch[] = [];
  SCAN.lastIndex = 0;
  for (let m = SCAN.exec(norm); m; m = SCAN.exec(norm)) {
    const start = m.index;
    const end = start + m[0].length;
    const prev = norm[start - 1] ?? '';
    const next = norm[end] ?? '';
    if (/[-−–\d.,]/.test(prev) || /^[%٪\d]/.test(next)) continue;
    // Not the tail of a word or a code ("SKU12345").
    if (/[\p{L}]/u.test(prev) && /\d/.test(norm[start]!)) continue;
    const amount = fromMatch(m);
    if (amount) out.push({ ...amount, text: text.slice(start, end).replace(/[\u200e\u200f\u061c]/g, '').trim(), index: start });
  }
  return out;
}

// Total labels, matched at the start of a short run of text. Subtotals and "Total savings" never match.
const NOT_A_TOTAL = `(?!\\s*(?:savings?|saved|items?|discounts?|tax|vat|weight|qty|quantity|reviews?|shipping|points|الفرعي|الضريبة|الخصم))`;
const TOTAL_LABELS: ReadonlyArray<readonly [RegExp, number]> = [
  [new RegExp(`^(?:grand|order|final|cart)\\s+total${NOT_A_TOTAL}(?![a-z])`, 'i'), 3],
  [/^total\s+(?:due|to\s+pay|payable|amount|price|charged?)\b/i, 3],
  [/^(?:amount|balance)\s+(?:due|to\s+pay|payable)\b|^(?:you\s+pay|to\s+pay|pay\s+today)\b/i, 3],
  [/^(?:gesamtsumme|gesamtbetrag|montant\s+total|total\s+ttc|importe\s+total)/i, 3],
  [/^(?:الإجمالي|المجموع)\s+(?:الكلي|النهائي|المستحق)|^(?:المبلغ)\s+(?:الإجمالي|المستحق)|^إجمالي\s+الطلب/, 3],
  [/^(?:お支払い金額|お支払金額|ご請求額|ご請求金額|合計金額|総額)/, 3],
  [new RegExp(`^(?:estimated\\s+)?total${NOT_A_TOTAL}(?![a-z])`, 'i'), 2],
  [/^(?:summe|gesamt)\b/i, 2],
  [new RegExp(`^(?:الإجمالي|المجموع|الاجمالي)${NOT_A_TOTAL}`), 2],
  [/^合計/, 2],
  // Not \b: JavaScript's word boundary does not see Arabic or Japanese letters as word characters.
  [/^(?:pay|pay\s+now|place\s+order|complete\s+(?:order|purchase)|ادفع|ادفع\s+الآن|支払う)(?!\p{L})/iu, 1],
];

/** The rank of the total label a short text starts with (0 when none) and the rest of the text after it. */
export function totalLabel(text: string): { rank: number; rest: string } {
  const t = text.trim();
  if (t.length === 0 || t.length > 80) return { rank: 0, rest: '' };
  for (const [re, rank] of TOTAL_LABELS) {
    const m = re.exec(t);
    if (!m) continue;
    const rest = t.slice(m[0].length);
    // What follows must be an amount, a short qualifier ("(incl. VAT)", "USD") or nothing; never a sentence.
    const words = rest.replace(/\([^)]{0,40}\)/g, '').replace(/[:：·•|\-–—]/g, ' ');
    const amountless = findAmounts(words).reduce((s, a) => s.replace(a.text, ''), words);
    if (amountless.replace(/[^\p{L}]/gu, '').length > 14) return { rank: 0, rest: '' };
    return { rank, rest };
  }
  return { rank: 0, rest: '' };
}

/** Lines of a summary that are not the total: the amount after them is not the total's. */
const OTHER_LINE = /^(?:sub-?total|shipping|delivery|tax|vat|discount|fees?|handling|المجموع الفرعي|الشحن|التوصيل|الضريبة|الخصم|小計|送料|zwischensumme|versand|livraison|sous-total)/i;

/** An amount with a currency first; else one with decimals ("45.00"); bare integers ("2 items") never. */
function bestAmount(text: string): AmountMatch | null {
  const all = findAmounts(text);
  return all.find((a) => a.currency !== null) ?? all.find((a) => /[.,]\d{2}$/.test(normalizeDigits(a.text))) ?? null;
}

/** A cheap first test: the words any total label starts with (TOTAL_LABELS decides). */
const LABEL_START = /^\s*(?:grand|order|final|cart|total|estimated|amount|balance|you|to\s|pay|place|complete|gesamt|summe|montant|importe|الإجمالي|الاجمالي|المجموع|المبلغ|إجمالي|ادفع|お支払|ご請求|合計|総額|支払)/i;

/**
 * Total candidates in runs of text given in document order (text nodes, button captions): each label with the first
 * amount in the same run after it, or in the next few non-blank runs (up to 6 runs or 120 characters).
 * `usable(i)` may reject runs that are not page text (inside a script, a hidden element); it is asked only about
 * labels and the runs after them, so it may be costly.
 */
export function totalCandidates(runs: readonly string[], usable: (run: number) => boolean = () => true): TotalCandidate[] {
  const out: TotalCandidate[] = [];
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i]!;
    if (run.length > 100 || !LABEL_START.test(run)) continue;
    const { rank, rest } = totalLabel(run);
    if (rank === 0 || !usable(i)) continue;
    let found = bestAmount(rest);
    let at = i;
    // A pay button's caption counts only with its own amount ("Pay $45.00").
    if (!found && rank > 1) {
      let window = '';
      for (let j = i + 1, seen = 0; j < runs.length && seen < 6 && window.length < 120; j++) {
        const next = runs[j]!.trim();
        if (!next || !usable(j)) continue;
        seen++;
        if (OTHER_LINE.test(next) || (LABEL_START.test(next) && totalLabel(next).rank >= 2)) break;
        window += ` ${next}`;
        found = bestAmount(window);
        if (found) {
          at = j;
          break;
        }
      }
    }
    if (found) out.push({ ...found, rank, labelRun: i, amountRun: at, label: run.trim().slice(0, 40) });
  }
  return out;
}

/** The total of a page's text runs: the strongest label wins, and of equal ones the last (summaries end with it). */
export function pickTotal(runs: readonly string[]): Total | null {
  return bestCandidate(totalCandidates(runs));
}

export function bestCandidate(candidates: readonly TotalCandidate[]): Total | null {
  let best: TotalCandidate | null = null;
  for (const c of candidates) if (!best || c.rank >= best.rank) best = c;
  return best ? { cents: best.cents, currency: best.currency, text: best.text } : null;
}
