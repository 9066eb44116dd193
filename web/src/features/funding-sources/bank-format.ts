/** Client-side checks of the Add Bank Account form (the server checks the same, and has the last word). */

export type BankField = 'routingNumber' | 'accountNumber' | 'name' | 'splitPercentage';
export type BankFieldError = 'routingLength' | 'routingChecksum' | 'accountLength' | 'nameRequired' | 'splitRange';

export interface BankForm {
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  name: string;
  splitPercentage: string;
}

export const onlyDigits = (s: string, max: number) => s.replace(/\D/g, '').slice(0, max);

/** The ABA checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) is a multiple of 10, with a known prefix. */
export function abaValid(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const d = [...routing].map(Number);
  const at = (i: number) => d[i] ?? 0;
  const sum = 3 * (at(0) + at(3) + at(6)) + 7 * (at(1) + at(4) + at(7)) + (at(2) + at(5) + at(8));
  const prefix = Number(routing.slice(0, 2));
  return sum % 10 === 0 && (prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72));
}

export function validateBankForm(f: BankForm): Partial<Record<BankField, BankFieldError>> {
  const out: Partial<Record<BankField, BankFieldError>> = {};
  if (!/^\d{9}$/.test(f.routingNumber)) out.routingNumber = 'routingLength';
  else if (!abaValid(f.routingNumber)) out.routingNumber = 'routingChecksum';
  if (!/^\d{4,17}$/.test(f.accountNumber)) out.accountNumber = 'accountLength';
  if (!f.name.trim()) out.name = 'nameRequired';
  const split = Number(f.splitPercentage);
  if (f.splitPercentage.trim() === '' || !Number.isFinite(split) || split < 0 || split > 100) out.splitPercentage = 'splitRange';
  return out;
}

/** "0.32", ".32", "32" (cents) -> the dollars string the API reads; null when it is not a micro-deposit. */
export function microdepositAmount(raw: string): string | null {
  const s = raw.trim().replace(/^\$/, '');
  if (/^0?\.\d{2}$/.test(s)) return s.startsWith('.') ? `0${s}` : s;
  if (/^\d{1,2}$/.test(s) && Number(s) >= 1) return `0.${s.padStart(2, '0')}`;
  return null;
}
