import type { NoticeKind } from '@bpay/db';
import { escapeHtml } from '../../lib/server-words';
import { formatUtc } from '../email/messages';
import type { OutgoingEmail } from '../email/outbox';
import { FSI, LRI, PDI, type Lang, type NoticeText, NOTIFICATION_SETTINGS_LINK } from './texts';

/*
 * A notice by mail, in the reader's language: plain text plus an HTML twin. Arabic mail is a right-to-left document
 * (<html lang="ar" dir="rtl">) whose figures stay left-to-right: the isolates texts.ts puts around amounts, card
 * endings and addresses become <span dir="ltr">, those around names <bdi>. Every value is escaped before that.
 */

/** Escaped text with our isolates turned into elements (the isolates were balanced and never nested by texts.ts). */
export function isolatesToHtml(text: string): string {
  return escapeHtml(text)
    .replace(new RegExp(`${LRI}([^${PDI}]*)${PDI}`, 'g'), '<span dir="ltr">$1</span>')
    .replace(new RegExp(`${FSI}([^${PDI}]*)${PDI}`, 'g'), '<bdi>$1</bdi>');
}

function html(lang: Lang, paragraphs: string[]): string {
  const body = paragraphs
    .map((p) =>
      /^https?:\/\/\S+$/.test(p)
        ? `<p><a href="${escapeHtml(p)}" dir="ltr">${escapeHtml(p)}</a></p>`
        : `<p>${isolatesToHtml(p).replace(/\n/g, '<br>')}</p>`,
    )
    .join('\n');
  const dir = lang === 'ar' ? 'rtl' : 'ltr';
  return `<!doctype html>\n<html lang="${lang}" dir="${dir}"><body style="font-family: sans-serif; line-height: 1.5" dir="${dir}">\n${body}\n</body></html>`;
}

const WORDS = {
  en: {
    hello: (first: string | null) => (first ? `Hello ${first},` : 'Hello,'),
    when: 'When',
    open: 'Open it in bpay:',
    security: 'Security notices are always sent by e-mail, so that you hear at once of a change you did not make.',
    signIn: 'You get this e-mail because Login Notifications is on in Settings → Security.',
    chosen: 'You get this notice by e-mail as chosen in Settings → Notifications, where you can change it:',
    sign: '— bpay',
  },
  ar: {
    hello: (first: string | null) => (first ? `مرحبًا ${FSI}${first.replace(/[\u2066-\u2069]/g, '')}${PDI}،` : 'مرحبًا،'),
    when: 'الوقت',
    open: 'افتحه في bpay:',
    security: 'تُرسل تنبيهات الأمان بالبريد الإلكتروني دائمًا، لتعلم فورًا بأي تغيير لم تُجره.',
    signIn: 'تصلك هذه الرسالة لأن تنبيهات تسجيل الدخول مفعّلة في الإعدادات ← الأمان.',
    chosen: 'تصلك هذه التنبيهات بالبريد الإلكتروني كما اخترت في الإعدادات ← التنبيهات، ويمكنك تغيير ذلك من هناك:',
    sign: '— bpay',
  },
} as const;

export interface NoticeMailInput {
  userId: string;
  to: string;
  firstName: string | null;
  lang: Lang;
  kind: NoticeKind;
  security: boolean;
  text: NoticeText;
  /** Absolute URL of the notice's link, or null. */
  url: string | null;
  publicUrl: URL;
  at: Date;
}

export function noticeEmail(input: NoticeMailInput): OutgoingEmail {
  const w = WORDS[input.lang];
  const when = input.lang === 'ar' ? `${LRI}${formatUtc(input.at)}${PDI}` : formatUtc(input.at);
  const paragraphs = [w.hello(input.firstName), input.text.body, `${w.when}: ${when}`];
  if (input.url) paragraphs.push(w.open, input.url);
  if (input.kind === 'sign_in') paragraphs.push(w.signIn);
  else if (input.security) paragraphs.push(w.security);
  else paragraphs.push(w.chosen, new URL(NOTIFICATION_SETTINGS_LINK, input.publicUrl).toString());
  paragraphs.push(w.sign);
  return {
    kind: 'notice',
    userId: input.userId,
    to: input.to,
    subject: input.text.title,
    text: `${paragraphs.join('\n\n')}\n`,
    html: html(input.lang, paragraphs),
  };
}
