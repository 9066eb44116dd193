/**
 * After the browser tests: the database file, its WAL and the server log must not contain any card number the
 * tests typed (plain, spaced or dashed), bank account number, nor the distinctive CVVs they used. Exits 1 naming what it found.
 * Usage: bun scripts/scan-card-data.ts data/e2e
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { E2E_BANK_ACCOUNT_NUMBERS, E2E_CARD_NUMBERS, E2E_CVVS } from '../e2e/cards';

const dir = process.argv[2] ?? 'data/e2e';
const files = ['bpay.db', 'bpay.db-wal', 'server.log'].map((f) => join(dir, f)).filter((f) => existsSync(f));
if (!files.some((f) => f.endsWith('bpay.db'))) {
  console.error(`scan-card-data: no database in ${dir}`);
  process.exit(1);
}

const forms = (n: string) => [n, n.replace(/(\d{4})(?=\d)/g, '$1 '), n.replace(/(\d{4})(?=\d)/g, '$1-')];
const problems: string[] = [];
for (const file of files) {
  // latin1 keeps every byte as one character, so a binary file can be searched as text.
  const text = readFileSync(file).toString('latin1');
  for (const n of E2E_CARD_NUMBERS) for (const f of forms(n)) if (text.includes(f)) problems.push(`${file}: card number ${f}`);
  for (const n of E2E_BANK_ACCOUNT_NUMBERS) if (text.includes(n)) problems.push(`${file}: bank account number ${n}`);
  for (const cvv of E2E_CVVS) {
    if (new RegExp(`(?<![0-9A-Za-z])${cvv}(?![0-9A-Za-z])`).test(text)) problems.push(`${file}: CVV ${cvv}`);
  }
}
if (problems.length) {
  console.error(`Card data found at rest:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`scan-card-data: ${files.length} files clean (${E2E_CARD_NUMBERS.length} card numbers, ${E2E_BANK_ACCOUNT_NUMBERS.length} bank account numbers, ${E2E_CVVS.length} CVVs)`);
