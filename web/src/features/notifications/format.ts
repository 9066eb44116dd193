import type { Lang } from '../../i18n';

const locale = (lang: Lang) => (lang === 'ar' ? 'ar-u-nu-latn' : 'en-US');
const relative = { en: new Intl.RelativeTimeFormat(locale('en'), { numeric: 'auto' }), ar: new Intl.RelativeTimeFormat(locale('ar'), { numeric: 'auto' }) };
const full = {
  en: new Intl.DateTimeFormat(locale('en'), { dateStyle: 'medium', timeStyle: 'short' }),
  ar: new Intl.DateTimeFormat(locale('ar'), { day: 'numeric', month: 'long', year: 'numeric', hour: 'numeric', minute: '2-digit' }),
};

/** When a notice came: "2 minutes ago", "yesterday", then the date (Latin digits in Arabic, as the amounts). */
export function noticeTime(iso: string, lang: Lang, now: number = Date.now()): string {
  const at = new Date(iso).getTime();
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((at - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative[lang].format(0, 'second');
  if (abs < 3600) return relative[lang].format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative[lang].format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return relative[lang].format(Math.round(seconds / 86_400), 'day');
  return full[lang].format(at);
}

/** The exact time, for a tooltip. */
export const noticeFullTime = (iso: string, lang: Lang) => {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : full[lang].format(at);
};
