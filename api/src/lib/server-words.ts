/*
 * The words bpay itself writes about money (issue 25): transaction descriptions, decline reasons, bank return reasons
 * and failure reasons, in the reader's language. They are written when read, from facts kept in the database (a
 * merchant's name, a count, a decline or ACH return code), never stored as English: stored English could not be
 * translated later. A merchant's own description is the merchant's words and is shown as written.
 *
 * Names inside Arabic sentences are wrapped in first-strong isolates (FSI … PDI) so a Latin name keeps its own order;
 * amounts in isolates that read left to right (LRI … PDI).
 */

export type WordsLanguage = 'en' | 'ar';

/**
 * A stored language code (users.language, checked in code) as the language bpay writes in: anything but 'ar' is
 * English. The one rule for server-made text, mail and notices.
 */
export const wordsLanguage = (value: string | null | undefined): WordsLanguage => (value === 'ar' ? 'ar' : 'en');

/** Text made safe inside HTML (mail's HTML twins). */
export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const FSI = '\u2068';
const LRI = '\u2066';
const PDI = '\u2069';
const name = (lang: WordsLanguage, s: string) => (lang === 'ar' ? `${FSI}${s}${PDI}` : s);
const figure = (lang: WordsLanguage, s: string) => (lang === 'ar' ? `${LRI}${s}${PDI}` : s);

/** What the description of a collection is made from when nobody (no merchant, no user) wrote one. */
export interface DescriptionFacts {
  /** The merchant that charged the bcard, or null while it is unused. */
  merchant: string | null;
  /** How many funding sources paid into it. */
  sourceCount: number;
  /** A purchase through a bpay merchant's checkout (the collection is locked to that merchant). */
  checkout: boolean;
  /** A spend through a card network: where the shop is, as the network said. */
  network: { city: string | null; category: string | null } | null;
}

function sources(lang: WordsLanguage, n: number): string {
  if (lang === 'en') return `bcard funded from ${n} ${n === 1 ? 'source' : 'sources'}`;
  if (n === 1) return 'بطاقة bcard مموّلة من مصدر واحد';
  if (n === 2) return 'بطاقة bcard مموّلة من مصدرين';
  if (n >= 3 && n <= 10) return `بطاقة bcard مموّلة من ${n} مصادر`;
  return `بطاقة bcard مموّلة من ${n} مصدرًا`;
}

/**
 * "bcard funded from 2 sources", "Purchase at Acme", "Checkout at Acme", "Card purchase at Acme (Berlin · clothing
 * stores)", in `lang`. The network's category is its own code (clothing_stores), shown with spaces.
 */
export function describeCollection(f: DescriptionFacts, lang: WordsLanguage): string {
  if (f.merchant === null) return sources(lang, f.sourceCount);
  const m = name(lang, f.merchant);
  if (f.network) {
    const place = [f.network.city, f.network.category?.replace(/_/g, ' ')].filter(Boolean).join(' · ');
    if (lang === 'ar') return place ? `شراء بالبطاقة لدى ${m} (${name(lang, place)})` : `شراء بالبطاقة لدى ${m}`;
    return place ? `Card purchase at ${f.merchant} (${place})` : `Card purchase at ${f.merchant}`;
  }
  if (f.checkout) return lang === 'ar' ? `دفع لدى ${m}` : `Checkout at ${f.merchant}`;
  return lang === 'ar' ? `شراء لدى ${m}` : `Purchase at ${f.merchant}`;
}

const DECLINES: Record<string, { en: string; ar: string }> = {
  card_declined: { en: 'The card was declined.', ar: 'رُفضت البطاقة.' },
  generic_decline: { en: 'The card was declined.', ar: 'رُفضت البطاقة.' },
  insufficient_funds: { en: 'The card has insufficient funds.', ar: 'رصيد البطاقة غير كافٍ.' },
  expired_card: { en: 'The card has expired.', ar: 'انتهت صلاحية البطاقة.' },
  incorrect_cvc: { en: "The card's security code is incorrect.", ar: 'رمز أمان البطاقة غير صحيح.' },
  incorrect_number: { en: 'The card number is incorrect.', ar: 'رقم البطاقة غير صحيح.' },
  authentication_required: { en: 'The card issuer asked for authentication.', ar: 'طلب مُصدر البطاقة التحقق من الهوية.' },
  authentication_failed: { en: 'Authentication with the card issuer failed.', ar: 'فشل التحقق من الهوية لدى مُصدر البطاقة.' },
  processing_error: { en: 'The card could not be processed.', ar: 'تعذّرت معالجة البطاقة.' },
  lost_card: { en: 'The card was reported lost.', ar: 'أُبلغ عن فقدان البطاقة.' },
  stolen_card: { en: 'The card was reported stolen.', ar: 'أُبلغ عن سرقة البطاقة.' },
  do_not_honor: { en: 'The card issuer declined the payment.', ar: 'رفض مُصدر البطاقة الدفع.' },
  /** A plan renewal that found no card to charge. */
  payment_source_paused: { en: 'The card you pay with is paused.', ar: 'البطاقة التي تدفع بها متوقفة مؤقتًا.' },
  payment_source_removed: { en: 'The card you paid with was removed.', ar: 'أُزيلت البطاقة التي كنت تدفع بها.' },
};

/** A card decline's reason in `lang`, from its code (Stripe's vocabulary), or null for a code bpay has no words for. */
export function declineText(code: string | null | undefined, lang: WordsLanguage): string | null {
  const words = code ? DECLINES[code] : undefined;
  return words ? words[lang] : null;
}

/** NACHA return codes bpay meets (https://www.nacha.org return reason codes), in both languages. */
const RETURNS: Record<string, { en: string; ar: string }> = {
  R01: { en: 'Insufficient funds', ar: 'رصيد غير كافٍ' },
  R02: { en: 'Account closed', ar: 'الحساب مغلق' },
  R03: { en: 'No account, or the account could not be found', ar: 'لا يوجد حساب، أو تعذّر العثور عليه' },
  R04: { en: 'Invalid account number', ar: 'رقم الحساب غير صالح' },
  R07: { en: 'Authorization revoked by the account holder', ar: 'ألغى صاحب الحساب التفويض' },
  R08: { en: 'Payment stopped', ar: 'أوقف صاحب الحساب الدفع' },
  R10: { en: 'The account holder says the debit was not authorized', ar: 'يقول صاحب الحساب إن الخصم لم يكن مفوّضًا' },
  R16: { en: 'Account frozen or restricted', ar: 'الحساب مجمّد أو مقيّد' },
  R20: { en: 'Not a transaction account', ar: 'الحساب لا يقبل المعاملات' },
  R29: { en: 'Corporate customer says the debit was not authorized', ar: 'يقول العميل المؤسسي إن الخصم لم يكن مفوّضًا' },
};

/** An ACH return code's reason in `lang` ("Insufficient funds"), or null for a code bpay has no words for. */
export function bankReturnReason(code: string, lang: WordsLanguage): string | null {
  return RETURNS[code]?.[lang] ?? null;
}

/**
 * Why a bank returned a debit, in `lang`: "R01: Insufficient funds". A code bpay has no words for keeps the bank's
 * own words (`fallback`, the processor's), else the code alone.
 */
export function bankReturnText(code: string | null | undefined, lang: WordsLanguage, fallback?: string | null): string | null {
  if (!code) return fallback ?? null;
  const words = RETURNS[code]?.[lang] ?? fallback;
  return words ? `${figure(lang, code)}: ${words}` : code;
}

/** The facts a failed (or returned) collection's reason is written from. */
export interface FailureFacts {
  code: string | null;
  /** collections.failure_details: each share's decline, or the insufficient-funds breakdown. */
  details: Record<string, unknown> | null;
  /** A returned bank debit of this collection: its amount ("10.00") and ACH return code. */
  bankReturn: { amount: string; code: string | null; message: string | null } | null;
}

type DeclineFact = { name?: unknown; last4?: unknown; code?: unknown };
type ShortFact = { name?: unknown; requiredAmount?: unknown; availableBalance?: unknown };

/**
 * A failed collection's reason in `lang`, or null when its code (or its facts) are not ones bpay writes words for:
 * the caller then shows what was stored.
 */
export function collectionFailureText(f: FailureFacts, lang: WordsLanguage): string | null {
  const ar = lang === 'ar';
  switch (f.code) {
    case 'interrupted':
      return ar
        ? 'انقطعت عملية التحصيل قبل حجز كل الحصص؛ لم يُخصم أي مبلغ.'
        : 'The collection was interrupted before every share was held; nothing was charged.';
    case 'processing_error':
      return ar ? 'تعذّر إكمال التحصيل؛ أُعيدت كل الحصص.' : 'The collection could not be completed; every share was returned.';
    case 'vendor_unavailable':
      return ar
        ? 'تعذّر الوصول إلى معالج الدفع؛ لم يُخصم أي مبلغ.'
        : 'The payment processor could not be reached; nothing was charged.';
    case 'bank_debit_returned': {
      const r = f.bankReturn;
      if (!r) return null;
      const why = bankReturnText(r.code, lang, r.message);
      return ar
        ? `أعاد البنك خصمًا بقيمة ${figure(lang, `$${r.amount}`)}${why ? ` (${why})` : ''}.`
        : `The bank debit of $${r.amount} was returned${why ? ` (${why})` : ''}.`;
    }
    case 'card_declined': {
      const declines = Array.isArray(f.details?.declines) ? (f.details.declines as DeclineFact[]) : null;
      if (!declines || declines.length === 0) return null;
      const parts = declines.map((d) => {
        const who = `${String(d.name ?? '')} (•••• ${String(d.last4 ?? '')})`;
        const why = declineText(typeof d.code === 'string' ? d.code : null, lang) ?? declineText('card_declined', lang)!;
        return `${name(lang, who)}: ${why}`;
      });
      return ar ? `رُفض أحد مصادر التمويل: ${parts.join('؛ ')}` : `A funding source was declined: ${parts.join('; ')}`;
    }
    case 'insufficient_funds': {
      const d = f.details;
      const list = Array.isArray(d?.insufficientSources) ? (d.insufficientSources as ShortFact[]) : null;
      if (!d || !list || typeof d.totalRequired !== 'string') return null;
      const parts = list.map((s) => {
        const n = name(lang, String(s.name ?? ''));
        const need = figure(lang, `$${String(s.requiredAmount ?? '')}`);
        const has = s.availableBalance == null ? null : figure(lang, `$${String(s.availableBalance)}`);
        if (ar) return has ? `${n} يحتاج ${need} ولديه ${has}` : `${n} يحتاج ${need}`;
        return has ? `${n} needs ${need}, has ${has}` : `${n} needs ${need}`;
      });
      const total = figure(lang, `$${d.totalRequired}`);
      return ar
        ? `الرصيد غير كافٍ: ${parts.join('؛ ')}. المطلوب ${total} إجمالًا.`
        : `Insufficient funds: ${parts.join('; ')}. Need ${total} in total.`;
    }
    default:
      return null;
  }
}
