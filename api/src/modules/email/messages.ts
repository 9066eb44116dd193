import type { OutgoingEmail } from './outbox';

/*
 * The account messages, in plain text with a simple HTML twin. English: bpay stores no language per user (the web's
 * language switch lives in the browser). Every value put into HTML is escaped; links are the public URL's own.
 */

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Text paragraphs to HTML paragraphs; a paragraph that is exactly a URL becomes a link. */
function toHtml(paragraphs: string[]): string {
  const body = paragraphs
    .map((p) =>
      /^https?:\/\/\S+$/.test(p)
        ? `<p><a href="${escapeHtml(p)}">${escapeHtml(p)}</a></p>`
        : `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`,
    )
    .join('\n');
  return `<!doctype html>\n<html lang="en"><body style="font-family: sans-serif; line-height: 1.5">\n${body}\n</body></html>`;
}

function message(kind: OutgoingEmail['kind'], userId: string | null, to: string, subject: string, paragraphs: string[]): OutgoingEmail {
  return { kind, userId, to, subject, text: `${paragraphs.join('\n\n')}\n`, html: toHtml(paragraphs) };
}

/** "Thu, 26 Nov 2026 08:11 UTC": one unambiguous zone for everyone (bpay stores no time zone per user). */
export function formatUtc(at: Date): string {
  return at.toUTCString().replace(/:\d\d GMT$/, ' UTC');
}

const greeting = (firstName: string | null) => (firstName ? `Hello ${firstName},` : 'Hello,');

export function passwordResetEmail(input: {
  userId: string;
  to: string;
  firstName: string | null;
  link: string;
  expiresInMinutes: number;
}): OutgoingEmail {
  return message('password_reset', input.userId, input.to, 'Reset your bpay password', [
    greeting(input.firstName),
    'Someone (we hope you) asked to reset the password of your bpay account. Open this link to choose a new one:',
    input.link,
    `The link works once and expires in ${input.expiresInMinutes} minutes. Resetting signs you out everywhere.`,
    'If you did not ask for this, ignore this e-mail: your password stays as it is.',
    '— bpay',
  ]);
}

export interface SignInFacts {
  device: string;
  ip: string;
  at: Date;
}

export function signInNoticeEmail(input: { userId: string; to: string; firstName: string | null } & SignInFacts): OutgoingEmail {
  return message('sign_in_notice', input.userId, input.to, 'New sign-in to your bpay account', [
    greeting(input.firstName),
    'Your bpay account was just signed in to:',
    `Device: ${input.device}\nAddress: ${input.ip}\nTime: ${formatUtc(input.at)}`,
    'If this was you, there is nothing to do. If not, reset your password now and turn on two-factor authentication in Settings.',
    'You get this e-mail because Login Notifications is on in Settings → Security.',
    '— bpay',
  ]);
}

export function emailChangedEmail(input: { userId: string; to: string; firstName: string | null; newEmailMasked: string; at: Date }): OutgoingEmail {
  return message('email_changed', input.userId, input.to, 'Your bpay e-mail address was changed', [
    greeting(input.firstName),
    `The e-mail address of your bpay account was changed to ${input.newEmailMasked} on ${formatUtc(input.at)}. ` +
      'Messages about your account now go to the new address.',
    'If you did not make this change, contact bpay support at once: someone who knows your password may have your account.',
    '— bpay',
  ]);
}

/**
 * "Chrome on Windows", "Safari on iPhone", "Firefox on Linux": enough for a person to recognise their device. Order
 * matters: Edge and Opera say Chrome too, Chrome says Safari, and Android says Linux.
 */
export function describeDevice(userAgent: string | null): string {
  const ua = userAgent ?? '';
  if (!ua.trim()) return 'Unknown device';
  const browser = /Edg(e|A|iOS)?\//.test(ua)
    ? 'Edge'
    : /OPR\/|Opera/.test(ua)
      ? 'Opera'
      : /Firefox\/|FxiOS\//.test(ua)
        ? 'Firefox'
        : /Chrome\/|CriOS\/|Chromium\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua) && /Version\//.test(ua)
            ? 'Safari'
            : /^curl\//.test(ua)
              ? 'curl'
              : null;
  const os = /iPhone/.test(ua)
    ? 'iPhone'
    : /iPad/.test(ua)
      ? 'iPad'
      : /Android/.test(ua)
        ? 'Android'
        : /Windows/.test(ua)
          ? 'Windows'
          : /Mac OS X|Macintosh/.test(ua)
            ? 'macOS'
            : /CrOS/.test(ua)
              ? 'ChromeOS'
              : /Linux/.test(ua)
                ? 'Linux'
                : null;
  if (browser && os) return `${browser} on ${os}`;
  if (browser || os) return (browser ?? os)!;
  // Something else (a script, an app): its own words, shortened and stripped of anything that is not plain text.
  return ua.replace(/[^\x20-\x7e]/g, '').slice(0, 80) || 'Unknown device';
}
