import type { Lang, Translate } from '../../i18n';

/*
 * The plans API speaks dollars as numbers for prices (the spec's tier shape) and decimal strings for charges. Both
 * are shown with two decimals; dates in the page's language, in UTC (billing periods are UTC calendar months).
 */

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

/** 9.99 -> "$9.99" (rounded to the cent first, so 9.989999 never shows as 9.98). */
export function formatPrice(dollars: number): string {
  return usd.format(Math.round(dollars * 100) / 100);
}

/** "Free" at 0, else "$9.99/month". */
export function monthlyPrice(t: Translate, dollars: number): string {
  return dollars === 0 ? t('plans.price.free') : t('plans.price.month', { price: formatPrice(dollars) });
}

export function formatDate(iso: string, lang: Lang): string {
  return new Intl.DateTimeFormat(lang === 'ar' ? 'ar' : 'en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));
}
