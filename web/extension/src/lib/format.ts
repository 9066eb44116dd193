import { minorDigits } from '../detect/amount';
import type { DetectedTotal } from './protocol';
import type { Lang } from './messages';

/**
 * A detected total in its own currency, in the extension's language ("$1,234.56", "١٬٢٣٤٫٥٠ ر.س."); US dollars when
 * the page named no currency (bpay's cards are in dollars). The minor units follow the currency (yen 0, dinar 3).
 */
export function formatTotal(total: Pick<DetectedTotal, 'cents' | 'currency'>, lang: Lang): string {
  const currency = (total.currency ?? 'usd').toUpperCase();
  const digits = minorDigits(total.currency);
  try {
    return new Intl.NumberFormat(lang === 'ar' ? 'ar' : 'en-US', { style: 'currency', currency }).format(total.cents / 10 ** digits);
  } catch {
    // An ISO code Intl does not know: the number and the code.
    return `${(total.cents / 10 ** digits).toFixed(digits)} ${currency}`;
  }
}
