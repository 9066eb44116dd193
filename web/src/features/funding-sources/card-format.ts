/*
 * The card form's input rules (spec §5), as pure functions so they are tested without a browser.
 * The server checks everything again; these give instant feedback and shape what is sent.
 */

/** Brands the form can tell from the number's prefix (spec §5). */
export type DetectedBrand = 'visa' | 'mastercard' | 'amex' | 'unknown';

/** 16 digits in four groups of four: "4242 4242 4242 4242". */
export const CARD_NUMBER_MAX_LENGTH = 19;
export const CARD_NUMBER_MAX_DIGITS = 16;
/** "MM/YY". */
export const EXPIRY_MAX_LENGTH = 5;
/** Shortest card numbers in use (some Visa cards have 13 digits). */
export const CARD_NUMBER_MIN_DIGITS = 13;

export function digitsOnly(input: string, max = Number.POSITIVE_INFINITY): string {
  return input.replace(/\D/g, '').slice(0, max);
}

/** The Luhn (mod 10) check every real card number passes. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** 34 or 37 American Express, 4 Visa, 5 Mastercard, anything else unknown. */
export function detectBrand(cardNumber: string): DetectedBrand {
  const d = digitsOnly(cardNumber);
  if (d.startsWith('34') || d.startsWith('37')) return 'amex';
  if (d.startsWith('4')) return 'visa';
  if (d.startsWith('5')) return 'mastercard';
  return 'unknown';
}

/** Digits only, grouped in fours, at most 19 characters with the spaces. */
export function formatCardNumber(input: string): string {
  const d = digitsOnly(input, CARD_NUMBER_MAX_DIGITS);
  return (d.match(/.{1,4}/g) ?? []).join(' ');
}

/** "1227" -> "12/27": digits only, a slash after the month once the year begins, at most 5 characters. */
export function formatExpiry(input: string): string {
  const d = digitsOnly(input, 4);
  return d.length > 2 ? `${d.slice(0, 2)}/${d.slice(2)}` : d;
}

/** "MM/YY" -> { month: "MM", year: "20YY" } as the API wants it; null when it is not a real month. */
export function parseExpiry(value: string): { month: string; year: string } | null {
  const m = /^(\d{2})\/(\d{2})$/.exec(value.trim());
  if (!m) return null;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return null;
  return { month: m[1] ?? '', year: `20${m[2] ?? ''}` };
}

/** A card is good through the last day of its expiry month. */
export function isExpired(expiry: { month: string; year: string }, now: Date): boolean {
  const year = Number(expiry.year);
  const month = Number(expiry.month);
  return year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1);
}

/** 4 digits for American Express, 3 for the others. */
export function cvvLength(brand: DetectedBrand): 3 | 4 {
  return brand === 'amex' ? 4 : 3;
}

export function formatCvv(input: string, brand: DetectedBrand): string {
  return digitsOnly(input, cvvLength(brand));
}

export interface CardForm {
  cardNumber: string;
  expiry: string;
  cvv: string;
  name: string;
  /** As typed; required, 0 to 100. */
  splitPercentage: string;
}

export type CardField = keyof CardForm;
export type CardFieldError =
  | 'cardNumberInvalid'
  | 'expiryInvalid'
  | 'expiryPast'
  | 'cvvInvalid'
  | 'nameRequired'
  | 'splitRequired'
  | 'splitRange';
export type CardFormErrors = Partial<Record<CardField, CardFieldError>>;

/** A percentage as typed: a number from 0 to 100, or null. */
export function parsePercentage(input: string): number | null {
  const s = input.trim();
  if (!/^\d+(?:\.\d+)?$/.test(s)) return null;
  const n = Number(s);
  return n >= 0 && n <= 100 ? n : null;
}

/** Every problem in the form, by field; an empty object means it can be sent. */
export function validateCardForm(form: CardForm, now: Date): CardFormErrors {
  const errors: CardFormErrors = {};
  const digits = digitsOnly(form.cardNumber);
  if (digits.length < CARD_NUMBER_MIN_DIGITS || digits.length > CARD_NUMBER_MAX_DIGITS || !luhnValid(digits)) {
    errors.cardNumber = 'cardNumberInvalid';
  }
  const expiry = parseExpiry(form.expiry);
  if (!expiry) errors.expiry = 'expiryInvalid';
  else if (isExpired(expiry, now)) errors.expiry = 'expiryPast';
  if (digitsOnly(form.cvv).length !== cvvLength(detectBrand(digits))) errors.cvv = 'cvvInvalid';
  if (!form.name.trim()) errors.name = 'nameRequired';
  if (!form.splitPercentage.trim()) errors.splitPercentage = 'splitRequired';
  else if (parsePercentage(form.splitPercentage) === null) errors.splitPercentage = 'splitRange';
  return errors;
}

/** The POST /api/funding-sources body for a valid form (call validateCardForm first). */
export function toCreateBody(form: CardForm) {
  const digits = digitsOnly(form.cardNumber);
  const expiry = parseExpiry(form.expiry) ?? { month: '', year: '' };
  return {
    cardNumber: digits,
    expiryMonth: expiry.month,
    expiryYear: expiry.year,
    cvv: digitsOnly(form.cvv),
    name: form.name.trim(),
    type: 'credit_card' as const,
    last4: digits.slice(-4),
    brand: detectBrand(digits),
    defaultSplitPercentage: parsePercentage(form.splitPercentage) ?? 0,
  };
}
