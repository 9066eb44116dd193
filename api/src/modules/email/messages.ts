import { declineText, escapeHtml, wordsLanguage, type WordsLanguage } from '../../lib/server-words';
import type { OutgoingEmail } from './outbox';

/*
 * The account messages, in plain text with an HTML twin, in the user's language (users.language: the one they signed
 * up in, changed by the language switch while signed in). Arabic mail is right-to-left; its figures (amounts, dates,
 * addresses, masked e-mails, ids) stay left-to-right: templates mark them with ltr(), which is a Unicode isolate
 * (LRI … PDI) in the plain text and a <bdi dir="ltr"> in the HTML; English mail drops the marks. Every value put into
 * HTML is escaped; links are the public URL's own and always read left-to-right.
 */

export type MailLanguage = WordsLanguage;

/** A stored language code as a mail language: anything but 'ar' is English (lib/server-words.ts's one rule). */
export const mailLanguage = wordsLanguage;

const LRI = '\u2066';
const PDI = '\u2069';

/** A figure that must read left-to-right inside Arabic text (an amount, a date, an IP, an e-mail, an id). */
export const ltr = (s: string | number) => `${LRI}${s}${PDI}`;

const stripMarks = (s: string) => s.replaceAll(LRI, '').replaceAll(PDI, '');

/** One paragraph's HTML: LRI … PDI become <bdi dir="ltr"> (balanced: a stray mark is dropped). */
function inlineHtml(p: string): string {
  let open = 0;
  let out = '';
  for (const ch of escapeHtml(p)) {
    if (ch === LRI) {
      open++;
      out += '<bdi dir="ltr">';
    } else if (ch === PDI) {
      if (open > 0) {
        open--;
        out += '</bdi>';
      }
    } else out += ch;
  }
  return out + '</bdi>'.repeat(open);
}

/**
 * Text paragraphs to an HTML document in `lang` (Arabic: `<html lang="ar" dir="rtl">`); a paragraph that is exactly a
 * URL becomes a left-to-right link. Reusable by any mail written as paragraphs (the notices' mails).
 */
export function toHtml(paragraphs: string[], lang: MailLanguage = 'en'): string {
  const body = paragraphs
    .map((p) =>
      /^https?:\/\/\S+$/.test(p)
        ? `<p dir="ltr"><a href="${escapeHtml(p)}">${escapeHtml(p)}</a></p>`
        : `<p>${inlineHtml(lang === 'en' ? stripMarks(p) : p).replace(/\n/g, '<br>')}</p>`,
    )
    .join('\n');
  const dir = lang === 'ar' ? 'rtl' : 'ltr';
  return `<!doctype html>\n<html lang="${lang}" dir="${dir}"><body style="font-family: sans-serif; line-height: 1.5">\n${body}\n</body></html>`;
}

/**
 * One outgoing mail from a subject and paragraphs in `lang`: the plain text keeps the isolates in Arabic (mail readers
 * honour them) and drops them in English; the HTML twin comes from toHtml.
 */
export function renderMail(
  lang: MailLanguage,
  kind: OutgoingEmail['kind'],
  userId: string | null,
  to: string,
  subject: string,
  paragraphs: string[],
): OutgoingEmail {
  const plain = (s: string) => (lang === 'en' ? stripMarks(s) : s);
  return { kind, userId, to, subject: plain(subject), text: `${paragraphs.map(plain).join('\n\n')}\n`, html: toHtml(paragraphs, lang) };
}

/** "Thu, 26 Nov 2026 08:11 UTC": one unambiguous zone for everyone (bpay stores no time zone per user). */
export function formatUtc(at: Date): string {
  return at.toUTCString().replace(/:\d\d GMT$/, ' UTC');
}

/** "2026-11-26" (UTC): a day in a mail, the same figures in both languages. */
export const formatDay = (at: Date) => at.toISOString().slice(0, 10);

const greeting = (lang: MailLanguage, firstName: string | null) =>
  lang === 'ar' ? (firstName ? `مرحبًا ${firstName}،` : 'مرحبًا،') : firstName ? `Hello ${firstName},` : 'Hello,';

const SIGNATURE = '— bpay';

/** Who a mail goes to and in which language. `lang` defaults to English for callers that do not know it. */
interface Recipient {
  userId: string;
  to: string;
  firstName: string | null;
  lang?: MailLanguage;
}

export function passwordResetEmail(input: Recipient & { link: string; expiresInMinutes: number }): OutgoingEmail {
  const lang = input.lang ?? 'en';
  const hi = greeting(lang, input.firstName);
  if (lang === 'ar') {
    return renderMail(lang, 'password_reset', input.userId, input.to, 'إعادة تعيين كلمة مرور bpay', [
      hi,
      'طلب أحدهم (نأمل أنه أنت) إعادة تعيين كلمة مرور حسابك في bpay. افتح هذا الرابط لاختيار كلمة مرور جديدة:',
      input.link,
      `يعمل الرابط مرة واحدة وتنتهي صلاحيته بعد ${ltr(input.expiresInMinutes)} دقيقة. تؤدي إعادة التعيين إلى تسجيل خروجك من كل الأجهزة.`,
      'إذا لم تطلب ذلك، فتجاهل هذه الرسالة: تبقى كلمة مرورك كما هي.',
      SIGNATURE,
    ]);
  }
  return renderMail(lang, 'password_reset', input.userId, input.to, 'Reset your bpay password', [
    hi,
    'Someone (we hope you) asked to reset the password of your bpay account. Open this link to choose a new one:',
    input.link,
    `The link works once and expires in ${input.expiresInMinutes} minutes. Resetting signs you out everywhere.`,
    'If you did not ask for this, ignore this e-mail: your password stays as it is.',
    SIGNATURE,
  ]);
}

/**
 * A one-time sign-in link: the right password came from an address new to the account while its daily cap of failed
 * sign-ins is full. Says where the request came from and what to do when it was not the owner (the password is known).
 */
export function signInLinkEmail(
  input: Recipient & { link: string; expiresInMinutes: number; device: string; ip: string; at: Date },
): OutgoingEmail {
  const lang = input.lang ?? 'en';
  const hi = greeting(lang, input.firstName);
  if (lang === 'ar') {
    return renderMail(lang, 'sign_in_link', input.userId, input.to, 'رابط تسجيل الدخول إلى bpay', [
      hi,
      'سجّل أحدهم الدخول إلى حسابك في bpay بكلمة المرور الصحيحة من جهاز جديد، بعد محاولات فاشلة كثيرة من أماكن أخرى اليوم. لإكمال تسجيل الدخول، افتح هذا الرابط على الجهاز نفسه والشبكة نفسها:',
      input.link,
      `الجهاز: ${ltr(input.device)}\nالعنوان: ${ltr(input.ip)}\nالوقت: ${ltr(formatUtc(input.at))}`,
      `يعمل الرابط مرة واحدة، من تلك الشبكة فقط، وتنتهي صلاحيته بعد ${ltr(input.expiresInMinutes)} دقيقة.`,
      'إذا لم يكن هذا أنت، فلا تفتح الرابط: كلمة مرورك معروفة لغيرك. أعد تعيينها الآن وفعّل المصادقة الثنائية في الإعدادات.',
      SIGNATURE,
    ]);
  }
  return renderMail(lang, 'sign_in_link', input.userId, input.to, 'Your bpay sign-in link', [
    hi,
    'Someone signed in to your bpay account with the right password from a new device, after many failed sign-ins ' +
      'from elsewhere today. To finish signing in, open this link on that same device and network:',
    input.link,
    `Device: ${input.device}\nAddress: ${input.ip}\nTime: ${formatUtc(input.at)}`,
    `The link works once, only from that network, and expires in ${input.expiresInMinutes} minutes.`,
    'If this was not you, do not open the link: someone knows your password. Reset it now and turn on two-factor ' +
      'authentication in Settings.',
    SIGNATURE,
  ]);
}

export interface SignInFacts {
  device: string;
  ip: string;
  at: Date;
}

export function signInNoticeEmail(input: Recipient & SignInFacts): OutgoingEmail {
  const lang = input.lang ?? 'en';
  const hi = greeting(lang, input.firstName);
  if (lang === 'ar') {
    return renderMail(lang, 'sign_in_notice', input.userId, input.to, 'تسجيل دخول جديد إلى حسابك في bpay', [
      hi,
      'تم تسجيل الدخول إلى حسابك في bpay للتو من:',
      `الجهاز: ${ltr(input.device)}\nالعنوان: ${ltr(input.ip)}\nالوقت: ${ltr(formatUtc(input.at))}`,
      'إذا كان هذا أنت، فلا شيء عليك فعله. وإلا، فأعد تعيين كلمة مرورك الآن وفعّل المصادقة الثنائية في الإعدادات.',
      'تصلك هذه الرسالة لأن «إشعارات تسجيل الدخول» مفعّلة في الإعدادات ← الأمان.',
      SIGNATURE,
    ]);
  }
  return renderMail(lang, 'sign_in_notice', input.userId, input.to, 'New sign-in to your bpay account', [
    hi,
    'Your bpay account was just signed in to:',
    `Device: ${input.device}\nAddress: ${input.ip}\nTime: ${formatUtc(input.at)}`,
    'If this was you, there is nothing to do. If not, reset your password now and turn on two-factor authentication in Settings.',
    'You get this e-mail because Login Notifications is on in Settings → Security.',
    SIGNATURE,
  ]);
}

/**
 * To the OLD address once a change is confirmed. `revertLink` ("this was not me") puts the old address back, ends
 * every session and mails a password reset to it; it works once within `revertDays`.
 */
export function emailChangedEmail(
  input: Recipient & { newEmailMasked: string; at: Date; revertLink: string; revertDays: number },
): OutgoingEmail {
  const lang = input.lang ?? 'en';
  const hi = greeting(lang, input.firstName);
  if (lang === 'ar') {
    return renderMail(lang, 'email_changed', input.userId, input.to, 'تم تغيير عنوان البريد الإلكتروني لحسابك في bpay', [
      hi,
      `تم تغيير عنوان البريد الإلكتروني لحسابك في bpay إلى ${ltr(input.newEmailMasked)} في ${ltr(formatUtc(input.at))}. ` +
        'تصل الرسائل المتعلقة بحسابك الآن إلى العنوان الجديد.',
      'إذا لم تقم بهذا التغيير، فافتح هذا الرابط: يعيد عنوانك هذا إلى الحساب، ويسجّل الخروج من كل الجلسات، ويرسل إليه رابطًا لاختيار كلمة مرور جديدة:',
      input.revertLink,
      `يعمل الرابط مرة واحدة خلال ${ltr(input.revertDays)} أيام.`,
      SIGNATURE,
    ]);
  }
  return renderMail(lang, 'email_changed', input.userId, input.to, 'Your bpay e-mail address was changed', [
    hi,
    `The e-mail address of your bpay account was changed to ${input.newEmailMasked} on ${formatUtc(input.at)}. ` +
      'Messages about your account now go to the new address.',
    'If you did not make this change, open this link: it puts this address back on the account, signs everyone out and ' +
      'sends this address a link to choose a new password:',
    input.revertLink,
    `The link works once, for ${input.revertDays} days.`,
    SIGNATURE,
  ]);
}

/** To the NEW address: the link that makes it the account's address. It works once within `expiresInHours`. */
export function emailChangeConfirmEmail(input: Recipient & { newEmail: string; link: string; expiresInHours: number }): OutgoingEmail {
  const lang = input.lang ?? 'en';
  const hi = greeting(lang, input.firstName);
  if (lang === 'ar') {
    return renderMail(lang, 'email_change_confirm', input.userId, input.to, 'أكّد عنوان بريدك الإلكتروني الجديد في bpay', [
      hi,
      `لجعل ${ltr(input.newEmail)} عنوان البريد الإلكتروني لحسابك في bpay، افتح هذا الرابط:`,
      input.link,
      `يعمل الرابط مرة واحدة وتنتهي صلاحيته بعد ${ltr(input.expiresInHours)} ساعة. وحتى ذلك الحين تواصل تسجيل الدخول بعنوانك الحالي.`,
      'إذا لم تطلب ذلك، فتجاهل هذه الرسالة: لن يتغير شيء.',
      SIGNATURE,
    ]);
  }
  return renderMail(lang, 'email_change_confirm', input.userId, input.to, 'Confirm your new bpay e-mail address', [
    hi,
    `To make ${input.newEmail} the e-mail address of your bpay account, open this link:`,
    input.link,
    `The link works once and expires in ${input.expiresInHours} hours. Until then you keep signing in with your current address.`,
    'If you did not ask for this, ignore this e-mail: nothing changes.',
    SIGNATURE,
  ]);
}

/** A plan's card charge, with its period (UTC days) and receipt id. `amount` is a decimal string ("9.99"). */
export function planReceiptEmail(
  input: Recipient & {
    plan: string;
    amount: string;
    sourceName: string;
    last4: string;
    periodStart: Date;
    periodEnd: Date;
    receiptId: string;
    /** An upgrade in the middle of a period (issue 26): the old plan's unused part credited, the new plan's rest charged. */
    proration?: { oldPlan: string; credit: string; rest: string } | null;
  },
): OutgoingEmail {
  const lang = input.lang ?? 'en';
  const hi = greeting(lang, input.firstName);
  const [from, to] = [formatDay(input.periodStart), formatDay(input.periodEnd)];
  const p = input.proration;
  if (lang === 'ar') {
    return renderMail(lang, 'plan_receipt', input.userId, input.to, `إيصال bpay: خطة ${ltr(input.plan)}، ${ltr(`$${input.amount}`)}`, [
      hi,
      `شكرًا لك: خصمنا ${ltr(`$${input.amount}`)} من ${ltr(`${input.sourceName} •••• ${input.last4}`)} مقابل خطة ${ltr(input.plan)}، ` +
        `من ${ltr(from)} إلى ${ltr(to)} (بالتوقيت العالمي المنسق).`,
      ...(p
        ? [
            `الوقت غير المستخدم من خطة ${ltr(p.oldPlan)} (${ltr(from)}–${ltr(to)}): ${ltr(`−$${p.credit}`)}`,
            `الوقت المتبقي على خطة ${ltr(input.plan)} (${ltr(from)}–${ltr(to)}): ${ltr(`$${p.rest}`)}`,
            `المجموع: ${ltr(`$${input.amount}`)}`,
          ]
        : []),
      `الإيصال: ${ltr(input.receiptId)}`,
      `تتجدد خطتك في ${ltr(to)} بالسعر نفسه ما لم تغيّرها من صفحة الخطط.`,
      SIGNATURE,
    ]);
  }
  return renderMail(lang, 'plan_receipt', input.userId, input.to, `Your bpay receipt: ${input.plan} plan, $${input.amount}`, [
    hi,
    `Thank you: we charged $${input.amount} to ${input.sourceName} (•••• ${input.last4}) for the ${input.plan} plan, ${from} to ${to} (UTC).`,
    ...(p
      ? [
          `Unused time on ${p.oldPlan} (${from}–${to}): −$${p.credit}`,
          `Remaining time on ${input.plan} (${from}–${to}): $${p.rest}`,
          `Total: $${input.amount}`,
        ]
      : []),
    `Receipt: ${input.receiptId}`,
    `Your plan renews on ${to} at the same price unless you change it on the Plans page.`,
    SIGNATURE,
  ]);
}

/**
 * Why a renewal could not be paid: the decline's words in Arabic (from its code), the processor's or bpay's own
 * sentence in English (as the plan's charge records it).
 */
function renewalReason(lang: MailLanguage, reason: string, code: string | null): string {
  if (lang === 'en') return reason;
  return declineText(code, 'ar') ?? 'تعذّر الدفع بالبطاقة.';
}

/** The first failed renewal: the plan is kept, past due, and tried daily until `until`. */
export function planRenewalFailedEmail(
  input: Recipient & { plan: string; price: string; reason: string; reasonCode: string | null; until: Date },
): OutgoingEmail {
  const lang = input.lang ?? 'en';
  const hi = greeting(lang, input.firstName);
  const why = renewalReason(lang, input.reason, input.reasonCode);
  if (lang === 'ar') {
    return renderMail(lang, 'plan_notice', input.userId, input.to, `تعذّر تجديد خطة ${ltr(input.plan)} في bpay`, [
      hi,
      `فشل تجديد خطة ${ltr(input.plan)} (${ltr(`$${input.price}`)}): ${why}`,
      `سنحاول مجددًا كل يوم حتى ${ltr(formatDay(input.until))}؛ بعد ذلك ينتقل حسابك إلى الخطة المجانية.`,
      'للاحتفاظ بخطتك، تأكد من وجود رصيد كافٍ في البطاقة التي تدفع بها، أو ادفع ببطاقة أخرى من صفحة الخطط.',
      SIGNATURE,
    ]);
  }
  return renderMail(lang, 'plan_notice', input.userId, input.to, `We could not renew your bpay ${input.plan} plan`, [
    hi,
    `Renewing your ${input.plan} plan ($${input.price}) failed: ${why}`,
    `We will try again every day until ${formatDay(input.until)}; after that your account moves to the Free plan.`,
    'To keep your plan, make sure the card you pay with has funds, or pay with another card on the Plans page.',
    SIGNATURE,
  ]);
}

/** The grace period ran out: the account is on Free now. */
export function planMovedToFreeEmail(
  input: Recipient & { plan: string; since: Date; reason: string; reasonCode: string | null },
): OutgoingEmail {
  const lang = input.lang ?? 'en';
  const hi = greeting(lang, input.firstName);
  const why = renewalReason(lang, input.reason, input.reasonCode);
  if (lang === 'ar') {
    return renderMail(lang, 'plan_notice', input.userId, input.to, 'أصبحت خطتك في bpay هي الخطة المجانية', [
      hi,
      `تعذّر تجديد خطة ${ltr(input.plan)} منذ ${ltr(formatDay(input.since))} (${why})، لذا انتقل حسابك إلى الخطة المجانية.`,
      'تبقى مصادر التمويل وبطاقات bcard كما هي؛ ولا يمكنك إضافة مصادر تتجاوز حد الخطة المجانية حتى تصبح دونه.',
      'يمكنك اختيار خطة مجددًا في أي وقت من صفحة الخطط.',
      SIGNATURE,
    ]);
  }
  return renderMail(lang, 'plan_notice', input.userId, input.to, 'Your bpay plan is now Free', [
    hi,
    `We could not renew your ${input.plan} plan since ${formatDay(input.since)} (${why}), so your account is now on the Free plan.`,
    'Your funding sources and bcards are kept; you cannot add sources above the Free limit until you are under it.',
    'You can choose a plan again at any time on the Plans page.',
    SIGNATURE,
  ]);
}

/** A cancellation (or a move to a free plan) took effect at the end of the paid period, at no charge. */
export function planEndedEmail(input: Recipient & { oldPlan: string; newPlan: string; endedOn: Date }): OutgoingEmail {
  const lang = input.lang ?? 'en';
  const hi = greeting(lang, input.firstName);
  if (lang === 'ar') {
    return renderMail(lang, 'plan_notice', input.userId, input.to, `أصبحت خطتك في bpay هي ${ltr(input.newPlan)}`, [
      hi,
      `انتهت خطة ${ltr(input.oldPlan)} في ${ltr(formatDay(input.endedOn))} كما طلبت؛ وأصبح حسابك الآن على خطة ${ltr(input.newPlan)} دون رسوم.`,
      'تبقى مصادر التمويل وبطاقات bcard كما هي؛ ولا يمكنك إضافة مصادر تتجاوز الحد الجديد حتى تصبح دونه.',
      SIGNATURE,
    ]);
  }
  return renderMail(lang, 'plan_notice', input.userId, input.to, `Your bpay plan is now ${input.newPlan}`, [
    hi,
    `Your ${input.oldPlan} plan ended on ${formatDay(input.endedOn)} as you asked; your account is now on the ${input.newPlan} plan, at no charge.`,
    'Your funding sources and bcards are kept; you cannot add sources above the new limit until you are under it.',
    SIGNATURE,
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
