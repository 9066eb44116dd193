/** Card-number helpers shared by validation and the simulated processor. Never log what passes through here. */

export function digitsOnly(s: string): string {
  return s.replace(/[\s-]/g, '');
}

/** The Luhn (mod 10) check every real card number passes. */
export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  let double = false;
  for (let i = number.length - 1; i >= 0; i--) {
    let d = number.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The check digit that makes `partial` + digit Luhn-valid. */
export function luhnCheckDigit(partial: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(`${partial}${d}`)) return String(d);
  throw new Error('unreachable: some digit always completes a Luhn number');
}

export type Brand = 'visa' | 'mastercard' | 'amex' | 'unknown';

/** Spec §5: 34 or 37 amex, 4 visa, 5 mastercard, else unknown (Discover and every other network included). */
export function brandOf(number: string): Brand {
  if (/^3[47]/.test(number)) return 'amex';
  if (/^4/.test(number)) return 'visa';
  if (/^5/.test(number)) return 'mastercard';
  return 'unknown';
}

/** "•••• •••• •••• 4242" */
export function maskedNumber(last4: string): string {
  return `•••• •••• •••• ${last4}`;
}

/**
 * The ABA routing number checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) is a multiple of 10. The first two
 * digits name a Federal Reserve district (00-12), a thrift (21-32), or an electronic one (61-72, 80 traveler's
 * cheques are not debitable and are refused).
 */
export function abaRoutingValid(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const d = [...routing].map((c) => c.charCodeAt(0) - 48) as number[];
  const at = (i: number) => d[i] ?? 0;
  const sum = 3 * (at(0) + at(3) + at(6)) + 7 * (at(1) + at(4) + at(7)) + (at(2) + at(5) + at(8));
  if (sum % 10 !== 0) return false;
  const prefix = Number(routing.slice(0, 2));
  return prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72);
}
