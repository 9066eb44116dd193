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
