import type { Lang } from '../../i18n';

const dateFormats: Record<Lang, Intl.DateTimeFormat> = {
  en: new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }),
  // Month spelled out and Latin digits, as the dashboard shows dates: a numeric d/m/y reorders badly in Arabic text.
  ar: new Intl.DateTimeFormat('ar-u-nu-latn', { day: 'numeric', month: 'long', year: 'numeric' }),
};

/** A connected browser's dates (connected, last used, expires) in the reader's language; the input as is if unreadable. */
export function formatTokenDate(iso: string, lang: Lang): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateFormats[lang].format(d);
}
