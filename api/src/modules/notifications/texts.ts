import { parseDecimal } from '@bpay/db/money';
import type { NoticeKind, UserLanguage } from '@bpay/db';
import type { NoticeFacts, ReturnedPart } from './kinds';
import { bankReturnReason } from '../../lib/server-words';

/*
 * Every notice in words, in English and Arabic, from its facts (issue 25): a title, a body, and where in the
 * dashboard it leads. Written when read (the list, a mail), so a notice follows the reader's current language.
 *
 * In Arabic, figures and Latin names sit inside Unicode isolates so they keep their own direction inside a
 * right-to-left sentence: amounts, card endings and addresses in LRI…PDI (always left-to-right), names a user typed
 * (a bcard, a merchant, a device) in FSI…PDI (their own first strong direction). Browsers honour them in the list;
 * the mail's HTML turns them into <span dir="ltr"> and <bdi> (mail.ts). English text carries none.
 */

export type Lang = UserLanguage;
export interface NoticeText {
  title: string;
  body: string;
}

export const LRI = '\u2066';
export const FSI = '\u2068';
export const PDI = '\u2069';
/** Isolates a user could type into a name would unbalance ours: removed from every value put in a text. */
const stripIsolates = (s: string) => s.replace(/[\u2066-\u2069\u202a-\u202e]/g, '');

const ltr = (lang: Lang, s: string) => (lang === 'ar' ? `${LRI}${stripIsolates(s)}${PDI}` : s);
const name = (lang: Lang, s: string) => (lang === 'ar' ? `${FSI}${stripIsolates(s)}${PDI}` : stripIsolates(s));

/** "40.00" -> "$40.00"; "1234.5" -> "$1,234.50". A value that is not a decimal amount is shown as it is. */
export function dollars(amount: string): string {
  const c = parseDecimal(amount);
  if (c === null) return amount;
  const abs = Math.abs(c);
  const whole = Math.floor(abs / 100).toLocaleString('en-US');
  return `${c < 0 ? '-' : ''}$${whole}.${String(abs % 100).padStart(2, '0')}`;
}
const money = (lang: Lang, amount: string) => ltr(lang, dollars(amount));
const isZero = (amount: string) => parseDecimal(amount) === 0;

/** "Visa •••• 4242: $10.00; Chase Checking •••• 6789: $5.00" (each part isolated in Arabic). */
export function partsList(lang: Lang, parts: readonly ReturnedPart[]): string {
  return parts
    .map((p) => (lang === 'ar' ? `${name(lang, p.name)} ${ltr(lang, `•••• ${p.last4}`)}: ${money(lang, p.amount)}` : `${stripIsolates(p.name)} •••• ${p.last4}: ${dollars(p.amount)}`))
    .join(lang === 'ar' ? '؛ ' : '; ');
}

/** Why a charge on a bcard (or a plan's card) was refused, in words. Unknown codes: a general sentence naming it. */
const DECLINE_WORDS: Record<string, Record<Lang, string>> = {
  insufficient_funds: { en: 'the amount is more than the card holds', ar: 'المبلغ أكبر مما تحمله البطاقة' },
  merchant_mismatch: { en: 'this bcard can be used only at the shop it was made for', ar: 'لا تُستخدم هذه البطاقة إلا في المتجر الذي أُنشئت له' },
  expired: { en: 'the bcard has expired', ar: 'انتهت صلاحية البطاقة' },
  expired_card: { en: 'the card has expired', ar: 'انتهت صلاحية البطاقة' },
  incorrect_cvc: { en: 'the security code (CVC) was wrong', ar: 'رمز الأمان (CVC) غير صحيح' },
  incorrect_expiry: { en: 'the expiry date was wrong', ar: 'تاريخ انتهاء الصلاحية غير صحيح' },
  incorrect_number: { en: 'the card number was wrong', ar: 'رقم البطاقة غير صحيح' },
  card_inactive: { en: 'the bcard is not active: it was canceled or closed', ar: 'البطاقة غير نشطة: أُلغيت أو أُغلقت' },
  already_used: { en: 'the bcard was already used (a bcard pays once)', ar: 'استُخدمت البطاقة من قبل (بطاقة bcard تدفع مرة واحدة)' },
  currency_mismatch: { en: 'the charge was not in US dollars', ar: 'لم تكن العملية بالدولار الأمريكي' },
  card_declined: { en: "the card's bank declined it", ar: 'رفضها البنك المصدر للبطاقة' },
  processing_error: { en: 'the card could not be charged just now', ar: 'تعذّر الخصم من البطاقة في ذلك الوقت' },
  // A plan renewal bpay itself never finished (a crash, a lost answer), every attempt until the grace ran out.
  interrupted: { en: 'the payment was interrupted before it completed (nothing was charged)', ar: 'انقطعت عملية الدفع قبل أن تكتمل (لم يُخصم شيء)' },
  test_mode_live_card: {
    en: "a merchant's test payment cannot take a real bcard (nothing was charged)",
    ar: 'لا تقبل دفعة تجريبية لدى تاجر بطاقة bcard حقيقية (لم يُخصم شيء)',
  },
};

export function declineWords(lang: Lang, code: string): string {
  const known = DECLINE_WORDS[code];
  if (known) return known[lang];
  return lang === 'ar' ? `رُفضت العملية (الرمز ${ltr(lang, code)})` : `the charge was refused (code ${code})`;
}

/** An ACH return code as a person reads it, from the one table of return reasons (lib/server-words.ts). */
export function returnWords(lang: Lang, code: string): string {
  const known = bankReturnReason(code, lang);
  const shown = ltr(lang, code);
  if (known) return `${known} (${shown})`;
  return lang === 'ar' ? `أعاده البنك (الرمز ${shown})` : `the bank sent it back (code ${code})`;
}

/** Stripe's refund failure_reason codes (https://docs.stripe.com/refunds#failed-refunds) in words. */
const REFUND_FAILURE_WORDS: Record<string, Record<Lang, string>> = {
  expired_or_canceled_card: { en: 'the card has expired or was canceled', ar: 'انتهت صلاحية البطاقة أو أُلغيت' },
  lost_or_stolen_card: { en: 'the card was reported lost or stolen', ar: 'أُبلغ عن فقدان البطاقة أو سرقتها' },
  declined: { en: "the card's bank declined it", ar: 'رفضه البنك المصدر للبطاقة' },
  insufficient_funds: { en: 'the account could not take it', ar: 'تعذّر على الحساب استلامه' },
  merchant_request: { en: 'it was canceled', ar: 'أُلغي' },
  charge_for_pending_refund_disputed: { en: 'the payment is disputed', ar: 'الدفعة محل اعتراض' },
};

export function refundFailureWords(lang: Lang, code: string): string {
  const known = REFUND_FAILURE_WORDS[code]?.[lang];
  if (known) return known;
  return lang === 'ar' ? `لم يذكر المعالج السبب (${ltr(lang, code)})` : `the processor gave no reason (${code})`;
}

/** A KYC review's reason: a known code in words; a reviewer's own words quoted; none, the general sentence. */
const KYC_WORDS: Record<string, Record<Lang, string>> = {
  document_unreadable: { en: 'the document could not be read', ar: 'تعذّرت قراءة المستند' },
  document_expired: { en: 'the document has expired', ar: 'انتهت صلاحية المستند' },
  name_mismatch: { en: 'the name on the document does not match your account', ar: 'الاسم في المستند لا يطابق حسابك' },
  date_of_birth_mismatch: { en: 'the date of birth does not match the document', ar: 'تاريخ الميلاد لا يطابق المستند' },
  selfie_mismatch: { en: 'the photo does not match the document', ar: 'الصورة لا تطابق المستند' },
};

function kycReason(lang: Lang, reason: string | null): string {
  const general = lang === 'ar' ? 'تعذّر التحقق من مستنداتك.' : 'Your documents could not be verified.';
  if (!reason?.trim()) return general;
  const known = KYC_WORDS[reason];
  if (known) return lang === 'ar' ? `تعذّر التحقق من هويتك: ${known.ar}.` : `Your identity could not be verified: ${known.en}.`;
  // A code we do not know yet: the general sentence (a raw code means nothing to a person).
  if (/^[a-z0-9_]+$/.test(reason)) return general;
  return lang === 'ar' ? `${general} ملاحظة المراجع: ${name(lang, reason)}` : `${general} The reviewer's note: ${stripIsolates(reason)}`;
}

/** "1 source", "2 sources"; Arabic's own numbers (مصدر واحد، مصدرين، 3 مصادر، 11 مصدرًا). */
function sources(lang: Lang, n: number): string {
  if (lang === 'en') return `${n} ${n === 1 ? 'source' : 'sources'}`;
  if (n === 1) return 'مصدر واحد';
  if (n === 2) return 'مصدرين';
  if (n >= 3 && n <= 10) return `${n} مصادر`;
  return `${n} مصدرًا`;
}

type Writer<K extends NoticeKind> = (lang: Lang, f: NoticeFacts[K]) => NoticeText;
const pick = <T>(lang: Lang, en: T, ar: T) => (lang === 'ar' ? ar : en);

function returnedSentence(lang: Lang, returned: string, parts: readonly ReturnedPart[]): string {
  if (isZero(returned) || parts.length === 0) {
    return pick(lang, 'Nothing was left on it to return.', 'لم يبقَ عليها شيء لإعادته.');
  }
  return pick(
    lang,
    `${money(lang, returned)} went back to your sources: ${partsList(lang, parts)}.`,
    `أُعيد ${money(lang, returned)} إلى مصادرك: ${partsList(lang, parts)}.`,
  );
}

const WRITERS: { [K in NoticeKind]: Writer<K> } = {
  bcard_issued: (lang, f) => ({
    title: pick(lang, `bcard ${name(lang, f.bcardName)} is ready`, `بطاقة ${name(lang, f.bcardName)} جاهزة`),
    body: pick(
      lang,
      `${money(lang, f.amount)} was collected from ${sources(lang, f.sourceCount)} onto your bcard ${name(lang, f.bcardName)}. It is ready to pay.`,
      `جُمع ${money(lang, f.amount)} من ${sources(lang, f.sourceCount)} على بطاقتك ${name(lang, f.bcardName)}. أصبحت جاهزة للدفع.`,
    ),
  }),
  bcard_spent: (lang, f) => ({
    title: pick(lang, `${money(lang, f.amount)} spent at ${name(lang, f.merchant)}`, `دُفع ${money(lang, f.amount)} لدى ${name(lang, f.merchant)}`),
    body:
      pick(
        lang,
        `Your bcard ${name(lang, f.bcardName)} paid ${money(lang, f.amount)} at ${name(lang, f.merchant)}.`,
        `دفعت بطاقتك ${name(lang, f.bcardName)} مبلغ ${money(lang, f.amount)} لدى ${name(lang, f.merchant)}.`,
      ) +
      (isZero(f.returned)
        ? ''
        : pick(
            lang,
            ` The ${money(lang, f.returned)} left on it goes back to your sources.`,
            ` ويعود المتبقي عليها، ${money(lang, f.returned)}، إلى مصادرك.`,
          )),
  }),
  bcard_declined: (lang, f) => ({
    title: pick(lang, `Charge declined at ${name(lang, f.merchant)}`, `رُفضت عملية لدى ${name(lang, f.merchant)}`),
    body: pick(
      lang,
      `A charge of ${money(lang, f.amount)} on your bcard ${name(lang, f.bcardName)} at ${name(lang, f.merchant)} was declined: ${declineWords(lang, f.reason)}.`,
      `رُفضت عملية بمبلغ ${money(lang, f.amount)} على بطاقتك ${name(lang, f.bcardName)} لدى ${name(lang, f.merchant)}: ${declineWords(lang, f.reason)}.`,
    ),
  }),
  bcard_expired: (lang, f) => ({
    title: pick(lang, `bcard ${name(lang, f.bcardName)} expired`, `انتهت صلاحية بطاقة ${name(lang, f.bcardName)}`),
    body: `${pick(lang, `Your bcard ${name(lang, f.bcardName)} expired.`, `انتهت صلاحية بطاقتك ${name(lang, f.bcardName)}.`)} ${returnedSentence(lang, f.returned, f.parts)}`,
  }),
  bcard_canceled: (lang, f) => ({
    title: pick(lang, `bcard ${name(lang, f.bcardName)} canceled`, `أُلغيت بطاقة ${name(lang, f.bcardName)}`),
    body: `${
      f.closedReason === 'too_many_incorrect_attempts'
        ? pick(
            lang,
            `bpay closed your bcard ${name(lang, f.bcardName)} after too many wrong security codes or expiry dates.`,
            `أغلقت bpay بطاقتك ${name(lang, f.bcardName)} بعد محاولات كثيرة برمز أمان أو تاريخ انتهاء خاطئ.`,
          )
        : pick(lang, `Your bcard ${name(lang, f.bcardName)} was canceled.`, `أُلغيت بطاقتك ${name(lang, f.bcardName)}.`)
    } ${returnedSentence(lang, f.returned, f.parts)}`,
  }),
  dispute_opened: (lang, f) => ({
    title: pick(lang, `Dispute of ${money(lang, f.amount)} on ${disputedCard(lang, f)}`, `اعتراض على ${money(lang, f.amount)} من ${disputedCard(lang, f)}`),
    body: pick(
      lang,
      `You disputed ${money(lang, f.amount)} charged to ${disputedCard(lang, f)} for your bcard ${name(lang, f.bcardName)}` +
        `${f.merchant ? ` (spent at ${name(lang, f.merchant)})` : ''}. Your card's issuer gave it back to the card, so you owe bpay ` +
        `${money(lang, f.owed)} until the dispute is resolved. New bcards are paused until then.`,
      `اعترضت على ${money(lang, f.amount)} خُصم من ${disputedCard(lang, f)} لبطاقتك ${name(lang, f.bcardName)}` +
        `${f.merchant ? ` (استُخدمت لدى ${name(lang, f.merchant)})` : ''}. أعاد البنك المصدر للبطاقة المبلغ إليها، لذا يترتب عليك لـ bpay ` +
        `مبلغ ${money(lang, f.owed)} حتى يُحسم الاعتراض. إنشاء بطاقات bcard جديدة متوقف حتى ذلك الحين.`,
    ),
  }),
  dispute_won: (lang, f) => ({
    title: pick(lang, `Dispute of ${money(lang, f.amount)} decided: the charge stands`, `حُسم الاعتراض على ${money(lang, f.amount)}: الخصم قائم`),
    body:
      pick(
        lang,
        `Your card's issuer decided the dispute of ${money(lang, f.amount)} on ${disputedCard(lang, f)} (bcard ${name(lang, f.bcardName)}) ` +
          'for bpay: the money went back to bpay, so it is no longer owed.',
        `حسم البنك المصدر لبطاقتك الاعتراض على ${money(lang, f.amount)} من ${disputedCard(lang, f)} (بطاقة ${name(lang, f.bcardName)}) ` +
          'لصالح bpay: عاد المبلغ إلى bpay ولم يعد مستحقًا عليك.',
      ) + owedSentence(lang, f.owed),
  }),
  dispute_lost: (lang, f) => ({
    title: pick(lang, `Dispute of ${money(lang, f.amount)} decided: your card keeps it`, `حُسم الاعتراض على ${money(lang, f.amount)}: يبقى المبلغ في بطاقتك`),
    body:
      pick(
        lang,
        `Your card's issuer decided the dispute of ${money(lang, f.amount)} on ${disputedCard(lang, f)} (bcard ${name(lang, f.bcardName)}) ` +
          'for you: the card keeps the money, and since the bcard was paid with it, it stays owed to bpay.',
        `حسم البنك المصدر لبطاقتك الاعتراض على ${money(lang, f.amount)} من ${disputedCard(lang, f)} (بطاقة ${name(lang, f.bcardName)}) ` +
          'لصالحك: يبقى المبلغ في البطاقة، وبما أن بطاقة bcard دُفعت به فإنه يبقى مستحقًا لـ bpay.',
      ) + owedSentence(lang, f.owed),
  }),
  merchant_refund: (lang, f) => ({
    title: pick(lang, `${name(lang, f.merchant)} refunded ${money(lang, f.amount)}`, `أعاد ${name(lang, f.merchant)} مبلغ ${money(lang, f.amount)}`),
    body:
      f.parts.length > 0
        ? pick(
            lang,
            `${name(lang, f.merchant)} refunded ${money(lang, f.amount)}. It went back to: ${partsList(lang, f.parts)}.`,
            `أعاد ${name(lang, f.merchant)} مبلغ ${money(lang, f.amount)}، وذهب إلى: ${partsList(lang, f.parts)}.`,
          )
        : pick(lang, `${name(lang, f.merchant)} refunded ${money(lang, f.amount)} to your sources.`, `أعاد ${name(lang, f.merchant)} مبلغ ${money(lang, f.amount)} إلى مصادرك.`),
  }),
  refund_failed: (lang, f) => ({
    title: pick(lang, `A refund of ${money(lang, f.amount)} did not reach your card`, `لم يصل استرداد ${money(lang, f.amount)} إلى بطاقتك`),
    body: pick(
      lang,
      `The refund of ${money(lang, f.amount)} to ${name(lang, f.sourceName)} •••• ${f.last4} failed at the card processor: ${refundFailureWords(lang, f.reason)}. ` +
        'The money is not lost: bpay owes it to you, and our support team will contact you to pay it back another way.',
      `فشل استرداد ${money(lang, f.amount)} إلى ${name(lang, f.sourceName)} ${ltr(lang, `•••• ${f.last4}`)} لدى معالج البطاقات: ${refundFailureWords(lang, f.reason)}. ` +
        'لم يضِع المبلغ: إنه مستحق لك على bpay، وسيتواصل معك فريق الدعم لإعادته إليك بطريقة أخرى.',
    ),
  }),
  bank_debit_settled: (lang, f) => ({
    title: pick(lang, `Bank debit of ${money(lang, f.amount)} settled`, `اكتمل خصم ${money(lang, f.amount)} من البنك`),
    body: pick(
      lang,
      `The debit of ${money(lang, f.amount)} from ${name(lang, f.accountName)} •••• ${f.last4} has settled: it can no longer be returned.`,
      `اكتمل خصم ${money(lang, f.amount)} من ${name(lang, f.accountName)} ${ltr(lang, `•••• ${f.last4}`)}، ولم يعد ممكنًا أن يُعاد.`,
    ),
  }),
  bank_debit_returned: (lang, f) => ({
    title: pick(lang, `Bank debit of ${money(lang, f.amount)} returned`, `أعاد البنك خصم ${money(lang, f.amount)}`),
    body:
      pick(
        lang,
        `Your bank returned the debit of ${money(lang, f.amount)} from ${name(lang, f.accountName)} •••• ${f.last4}: ${returnWords(lang, f.reason)}.`,
        `أعاد بنكك خصم ${money(lang, f.amount)} من ${name(lang, f.accountName)} ${ltr(lang, `•••• ${f.last4}`)}: ${returnWords(lang, f.reason)}.`,
      ) +
      (isZero(f.owed)
        ? pick(lang, ' You owe nothing.', ' لا يترتب عليك أي مبلغ.')
        : pick(
            lang,
            ` You now owe bpay ${money(lang, f.owed)}.`,
            ` أصبح مستحقًا عليك لـ bpay مبلغ ${money(lang, f.owed)}.`,
          )),
  }),
  receivable_repaid: (lang, f) => ({
    title: pick(lang, `${money(lang, f.amount)} repaid`, `سُدّد ${money(lang, f.amount)}`),
    body:
      pick(
        lang,
        `You repaid ${money(lang, f.amount)} of what you owe bpay from ${name(lang, f.sourceName)} •••• ${f.last4}.`,
        `سدّدت ${money(lang, f.amount)} مما عليك لـ bpay من ${name(lang, f.sourceName)} ${ltr(lang, `•••• ${f.last4}`)}.`,
      ) +
      (isZero(f.owed)
        ? pick(lang, ' You owe nothing now, and you can create bcards again.', ' لم يعد عليك شيء، ويمكنك إنشاء البطاقات من جديد.')
        : pick(lang, ` You still owe ${money(lang, f.owed)}.`, ` ما زال عليك ${money(lang, f.owed)}.`)),
  }),
  receivable_waived: (lang, f) => ({
    title: pick(lang, `bpay forgave ${money(lang, f.amount)} you owed`, `أعفتك bpay من ${money(lang, f.amount)} كانت عليك`),
    body:
      pick(lang, `bpay waived ${money(lang, f.amount)} of what you owe: ${name(lang, f.reason)}.`, `أعفتك bpay من ${money(lang, f.amount)} مما عليك: ${name(lang, f.reason)}.`) +
      (isZero(f.owed)
        ? pick(lang, ' You owe nothing now, and you can create bcards again.', ' لم يعد عليك شيء، ويمكنك إنشاء البطاقات من جديد.')
        : pick(lang, ` You still owe ${money(lang, f.owed)}.`, ` ما زال عليك ${money(lang, f.owed)}.`)),
  }),
  payable_settled: (lang, f) => ({
    title: pick(lang, `bpay paid you ${money(lang, f.amount)} it owed you`, `دفعت لك bpay ${money(lang, f.amount)} كانت مستحقة لك`),
    body:
      pick(
        lang,
        `bpay paid you ${money(lang, f.amount)} of what it owed you outside your card (such as a bank transfer): ${name(lang, f.reason)}.`,
        `دفعت لك bpay ${money(lang, f.amount)} مما كان مستحقًا لك بطريقة غير بطاقتك (مثل تحويل بنكي): ${name(lang, f.reason)}.`,
      ) +
      (isZero(f.owedToYou)
        ? pick(lang, ' bpay owes you nothing now.', ' لم يعد لك شيء مستحق على bpay.')
        : pick(lang, ` bpay still owes you ${money(lang, f.owedToYou)}.`, ` ما زال مستحقًا لك على bpay مبلغ ${money(lang, f.owedToYou)}.`)),
  }),
  plan_charged: (lang, f) => ({
    title: pick(lang, `${name(lang, f.plan)} plan: ${money(lang, f.amount)} charged`, `خطة ${name(lang, f.plan)}: خُصم ${money(lang, f.amount)}`),
    body:
      f.kind === 'upgrade'
        ? pick(
            lang,
            `You were charged ${money(lang, f.amount)} for your upgrade to the ${name(lang, f.plan)} plan.`,
            `خُصم منك ${money(lang, f.amount)} للترقية إلى خطة ${name(lang, f.plan)}.`,
          )
        : pick(
            lang,
            `Your ${name(lang, f.plan)} plan renewed: ${money(lang, f.amount)} was charged.`,
            `جُدّدت خطتك ${name(lang, f.plan)}: خُصم ${money(lang, f.amount)}.`,
          ),
  }),
  plan_renewal_failed: (lang, f) => ({
    title: pick(lang, `Your ${name(lang, f.plan)} plan did not renew`, `لم تُجدَّد خطتك ${name(lang, f.plan)}`),
    body: pick(
      lang,
      `We could not charge ${money(lang, f.amount)} for your ${name(lang, f.plan)} plan${f.reason ? `: ${declineWords(lang, f.reason)}` : ''}. Check your card on the plans page to keep the plan.`,
      `تعذّر خصم ${money(lang, f.amount)} لخطتك ${name(lang, f.plan)}${f.reason ? `: ${declineWords(lang, f.reason)}` : ''}. راجع بطاقتك في صفحة الخطط لتحتفظ بالخطة.`,
    ),
  }),
  plan_refunded: (lang, f) => ({
    title: pick(lang, `${money(lang, f.amount)} of your ${name(lang, f.plan)} plan refunded`, `استُرد ${money(lang, f.amount)} من خطتك ${name(lang, f.plan)}`),
    body: pick(
      lang,
      `Your plan was changed by bpay, and the unused part of your ${name(lang, f.plan)} plan, ${money(lang, f.amount)}, was refunded to ${name(lang, f.sourceName)} •••• ${f.last4}.`,
      `غيّرت bpay خطتك، واستُرد الجزء غير المستخدم من خطتك ${name(lang, f.plan)}، وهو ${money(lang, f.amount)}، إلى ${name(lang, f.sourceName)} ${ltr(lang, `•••• ${f.last4}`)}.`,
    ),
  }),
  kyc_approved: (lang) => ({
    title: pick(lang, 'Identity verified', 'تم التحقق من هويتك'),
    body: pick(
      lang,
      'Your identity verification was approved. The limits of your plan that need it are open to you now.',
      'قُبل التحقق من هويتك. أصبحت حدود خطتك التي تتطلبه متاحة لك الآن.',
    ),
  }),
  kyc_failed: (lang, f) => ({
    title: pick(lang, 'Identity verification failed', 'لم ينجح التحقق من الهوية'),
    body: `${kycReason(lang, f.reason)} ${pick(lang, 'You can submit a new verification.', 'يمكنك تقديم طلب تحقق جديد.')}`,
  }),
  sign_in: (lang, f) => ({
    title: pick(lang, 'New sign-in to your account', 'تسجيل دخول جديد إلى حسابك'),
    body: pick(
      lang,
      `Your account was signed in to from ${name(lang, f.device)} (address ${f.ip}). If this was not you, reset your password now and turn on two-factor authentication.`,
      `سُجّل الدخول إلى حسابك من ${name(lang, f.device)} (العنوان ${ltr(lang, f.ip)}). إن لم تكن أنت، فأعد تعيين كلمة المرور الآن وفعّل المصادقة الثنائية.`,
    ),
  }),
  password_changed: (lang) => ({
    title: pick(lang, 'Password changed', 'تم تغيير كلمة المرور'),
    body: pick(
      lang,
      'The password of your bpay account was changed, and every other browser was signed out. If you did not do this, reset your password now.',
      'تم تغيير كلمة مرور حسابك في bpay، وسُجّل الخروج من كل المتصفحات الأخرى. إن لم تفعل ذلك، فأعد تعيين كلمة المرور الآن.',
    ),
  }),
  password_reset: (lang) => ({
    title: pick(lang, 'Password reset', 'تمت إعادة تعيين كلمة المرور'),
    body: pick(
      lang,
      'Your bpay password was reset with a link sent by e-mail, and every browser was signed out. If you did not do this, reset it again now and turn on two-factor authentication.',
      'أُعيد تعيين كلمة مرور bpay برابط أُرسل بالبريد الإلكتروني، وسُجّل الخروج من كل المتصفحات. إن لم تفعل ذلك، فأعد تعيينها الآن وفعّل المصادقة الثنائية.',
    ),
  }),
  two_factor_enabled: (lang) => ({
    title: pick(lang, 'Two-factor authentication turned on', 'تم تفعيل المصادقة الثنائية'),
    body: pick(
      lang,
      'Sign-ins to your account now also ask for a code from your authenticator app.',
      'أصبح تسجيل الدخول إلى حسابك يطلب أيضًا رمزًا من تطبيق المصادقة.',
    ),
  }),
  two_factor_disabled: (lang) => ({
    title: pick(lang, 'Two-factor authentication turned off', 'تم إيقاف المصادقة الثنائية'),
    body: pick(
      lang,
      'Sign-ins to your account no longer ask for a code. If you did not do this, reset your password now and turn it back on.',
      'لم يعد تسجيل الدخول إلى حسابك يطلب رمزًا. إن لم تفعل ذلك، فأعد تعيين كلمة المرور الآن وأعد تفعيلها.',
    ),
  }),
  email_changed: (lang, f) => ({
    title: pick(lang, 'E-mail address changed', 'تم تغيير البريد الإلكتروني'),
    body: pick(
      lang,
      `Your account's e-mail address is now ${f.newEmailMasked}. Messages about your account go there.`,
      `أصبح بريد حسابك الإلكتروني ${ltr(lang, f.newEmailMasked)}، وإليه تُرسل الرسائل الخاصة بحسابك.`,
    ),
  }),
};

/** The disputed card: "Visa •••• 4242" (isolated in Arabic). */
const disputedCard = (lang: Lang, f: { cardName: string; last4: string }) =>
  lang === 'ar' ? `${name(lang, f.cardName)} ${ltr(lang, `•••• ${f.last4}`)}` : `${stripIsolates(f.cardName)} •••• ${f.last4}`;

/** " You owe nothing; ..." or " You owe bpay $X; ..." after a dispute is decided. */
const owedSentence = (lang: Lang, owed: string) =>
  isZero(owed)
    ? pick(lang, ' You owe nothing, and you can create bcards again.', ' لا يترتب عليك أي مبلغ، ويمكنك إنشاء بطاقات bcard من جديد.')
    : pick(
        lang,
        ` You owe bpay ${money(lang, owed)}; repay it to create bcards again.`,
        ` يترتب عليك لـ bpay مبلغ ${money(lang, owed)}؛ سدّده لتتمكن من إنشاء بطاقات bcard من جديد.`,
      );

/** A notice's title and body in `lang`. */
export function noticeText<K extends NoticeKind>(lang: Lang, kind: K, facts: NoticeFacts[K]): NoticeText {
  return (WRITERS[kind] as Writer<K>)(lang, facts);
}

/*
 * Where each notice leads: a path the web app opens. The dashboard reads `tab` (overview, bcards, transactions,
 * settings, ...), `transaction` (opens that transaction's detail) and `section` (security, notifications: scrolled to
 * in Settings) from its query string; plan notices open /plans, identity ones /kyc-verification.
 */
const transactionLink = (id: string) => `/?tab=transactions&transaction=${encodeURIComponent(id)}`;
export const SECURITY_LINK = '/?tab=settings&section=security';
/** What is owed and the Repay button: the Funding Sources tab. */
export const OWED_LINK = '/?tab=funding-sources';
export const NOTIFICATION_SETTINGS_LINK = '/?tab=settings&section=notifications';

const LINKS: { [K in NoticeKind]: (f: NoticeFacts[K]) => string } = {
  bcard_issued: (f) => transactionLink(f.transactionId),
  bcard_spent: (f) => transactionLink(f.transactionId),
  bcard_declined: () => '/?tab=bcards',
  bcard_expired: (f) => transactionLink(f.transactionId),
  bcard_canceled: (f) => transactionLink(f.transactionId),
  merchant_refund: (f) => transactionLink(f.transactionId),
  dispute_opened: (f) => transactionLink(f.transactionId),
  dispute_won: (f) => transactionLink(f.transactionId),
  dispute_lost: (f) => transactionLink(f.transactionId),
  refund_failed: (f) => transactionLink(f.transactionId),
  bank_debit_settled: (f) => transactionLink(f.transactionId),
  bank_debit_returned: (f) => transactionLink(f.transactionId),
  receivable_repaid: () => OWED_LINK,
  receivable_waived: () => OWED_LINK,
  payable_settled: () => OWED_LINK,
  plan_charged: () => '/plans',
  plan_renewal_failed: () => '/plans',
  plan_refunded: () => '/plans',
  kyc_approved: () => '/kyc-verification',
  kyc_failed: () => '/kyc-verification',
  sign_in: () => SECURITY_LINK,
  password_changed: () => SECURITY_LINK,
  password_reset: () => SECURITY_LINK,
  two_factor_enabled: () => SECURITY_LINK,
  two_factor_disabled: () => SECURITY_LINK,
  email_changed: () => SECURITY_LINK,
};

export function noticeLink<K extends NoticeKind>(kind: K, facts: NoticeFacts[K]): string {
  return (LINKS[kind] as (f: NoticeFacts[K]) => string)(facts);
}
