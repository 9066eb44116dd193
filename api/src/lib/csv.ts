/*
 * CSV downloads (transactions, analytics, plan payments): RFC 4180 with CRLF line ends, and cells a spreadsheet would
 * run as a formula (=, +, -, @, tab, CR first) neutralised with a leading apostrophe (OWASP "CSV injection").
 */

/** A cell that a spreadsheet would not run as a formula, quoted as RFC 4180 asks. */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Rows (the header first) as one CSV document, every line ended by CRLF. */
export function csvDocument(rows: readonly (readonly string[])[]): string {
  return `${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
