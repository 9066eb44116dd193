import { invalid } from '../../errors';
import { shownText } from '../../lib/text';
import { isEmailAddress } from '../customers/service';

/*
 * The create parameters from Stripe's quickstarts, with bpay's meaning (issue 28): what each accepts, in words when
 * it does not, and the statement descriptor a consumer's bcard shows. Pure rules: service.ts stores what passes.
 *
 * - payment_method_types: bcards are bpay's one payment method; `bcard`, or `card` (Stripe's name for it), only.
 * - automatic_payment_methods[enabled]: true or false, reflected on the intent; bcards are the method either way.
 * - receipt_email: an e-mail address, kept and answered.
 * - statement_descriptor / statement_descriptor_suffix: Stripe's rules (Latin characters, at least one letter, none of
 *   < > \ ' " *; the whole descriptor 5 to 22 characters, a suffix 1 to 22); the consumer's transaction shows it.
 */

export interface IntentCreateParameters {
  confirm?: boolean;
  payment_method?: string;
  payment_method_data?: unknown;
  automatic_payment_methods?: { enabled: boolean; allow_redirects?: 'always' | 'never' };
  payment_method_types?: string[];
  receipt_email?: string | null;
  statement_descriptor?: string;
  statement_descriptor_suffix?: string;
  customer?: string;
  return_url?: string;
}

/** What bpay calls a bcard in Stripe's list of payment method types: `card` is taken as Stripe's name for it. */
export const PAYMENT_METHOD_TYPES = ['bcard', 'card'] as const;

const LATIN = /^[\x20-\x7e]+$/;
const FORBIDDEN = /[<>\\'"*]/;
export const DESCRIPTOR_MAX = 22;

/**
 * Stripe parameters of a create that bpay knows and does not take, each with the reason in words (answered as a
 * validation_error naming the parameter, before the body is validated, so nothing is created).
 */
export const UNSUPPORTED_CREATE_PARAMETERS: Record<string, string> = {
  setup_future_usage: 'bcards are single-use: bpay saves no payment method for later payments.',
  off_session: 'bpay takes no off-session payments: the consumer makes a bcard for each payment.',
  confirmation_method: 'bpay confirms with your secret key (confirm: true, or POST /v1/payment_intents/{id}/confirm); there is no manual confirmation method.',
  application_fee_amount: 'bpay has no Connect accounts: a payment is paid to your merchant account whole.',
  transfer_data: 'bpay has no Connect accounts: a payment is paid to your merchant account whole.',
  transfer_group: 'bpay has no Connect accounts: a payment is paid to your merchant account whole.',
  on_behalf_of: 'bpay has no Connect accounts: a payment is paid to your merchant account whole.',
  payment_method_options: 'bcards have no per-method options.',
  payment_method_configuration: 'bcards are the one payment method: there is nothing to configure.',
  shipping: 'bpay keeps no shipping details on an intent; put what you need in metadata.',
  mandate: 'bpay has no mandates: you never debit a consumer by yourself.',
  mandate_data: 'bpay has no mandates: you never debit a consumer by yourself.',
  radar_options: 'bpay has no Radar: the consumer verifies each bcard when making it.',
};

/** Fails with validation_error naming the first Stripe parameter of `body` that bpay does not take, and why. */
export function refuseUnsupportedCreateParameters(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  for (const key of Object.keys(body)) {
    const why = UNSUPPORTED_CREATE_PARAMETERS[key];
    if (why) throw invalid(key, `${key} is not supported by bpay: ${why}`);
  }
}

/** Stripe's rules for a statement descriptor or its suffix. Fails with: validation_error naming `param`. */
export function checkDescriptor(param: 'statement_descriptor' | 'statement_descriptor_suffix', value: string): void {
  const min = param === 'statement_descriptor' ? 5 : 1;
  const rule =
    `${param} must be ${min} to ${DESCRIPTOR_MAX} Latin characters, with at least one letter and none of < > \\ ' " *` +
    (param === 'statement_descriptor_suffix' ? ' (it is shown after your prefix: PREFIX* SUFFIX, 22 characters in all).' : '.');
  if (value.length < min || value.length > DESCRIPTOR_MAX || !LATIN.test(value) || !/[A-Za-z]/.test(value) || FORBIDDEN.test(value)) {
    throw invalid(param, rule);
  }
}

/** The parameters' own rules, before anything is read or written. Fails with: validation_error naming the parameter. */
export function checkCreateParameters(input: IntentCreateParameters): void {
  if (input.payment_method_types !== undefined) {
    if (input.payment_method_types.length === 0) throw invalid('payment_method_types', 'payment_method_types must list bcard (or card, its Stripe name).');
    input.payment_method_types.forEach((type, i) => {
      if (!(PAYMENT_METHOD_TYPES as readonly string[]).includes(type)) {
        throw invalid(
          `payment_method_types[${i}]`,
          `payment_method_types takes only bcard (or card, Stripe's name for it): bcards are bpay's one payment method, so '${shownText(type)}' cannot pay.`,
        );
      }
    });
    if (input.automatic_payment_methods?.enabled) {
      throw invalid('payment_method_types', 'Give automatic_payment_methods[enabled]=true or payment_method_types, not both (as Stripe asks).');
    }
  }
  if (input.receipt_email && !isEmailAddress(input.receipt_email)) {
    throw invalid('receipt_email', `receipt_email must be an e-mail address (name@example.com); '${shownText(input.receipt_email)}' is not one.`);
  }
  if (input.statement_descriptor) checkDescriptor('statement_descriptor', input.statement_descriptor);
  if (input.statement_descriptor_suffix) checkDescriptor('statement_descriptor_suffix', input.statement_descriptor_suffix);
  if (input.statement_descriptor && input.statement_descriptor_suffix) {
    throw invalid(
      'statement_descriptor_suffix',
      'Give statement_descriptor (the whole descriptor) or statement_descriptor_suffix (shown after your prefix), not both.',
    );
  }
  const paying = input.payment_method !== undefined || input.payment_method_data !== undefined;
  if (paying && input.confirm !== true) {
    throw invalid(
      input.payment_method !== undefined ? 'payment_method' : 'payment_method_data',
      'bpay takes a payment method on create only with confirm: true (create and pay in one call); otherwise give it to POST /v1/payment_intents/{id}/confirm.',
    );
  }
  if (input.payment_method !== undefined && input.payment_method_data !== undefined) {
    throw invalid('payment_method_data', 'Give payment_method (a bcard id) or payment_method_data.card, not both.');
  }
  if (input.confirm === true && !paying) {
    throw invalid('payment_method', 'confirm: true needs payment_method (a bcard id) or payment_method_data.card (number, exp_month, exp_year, cvc): bpay has no saved payment method to confirm with.');
  }
}

/** The merchant's prefix, as Stripe's shortened descriptor: the business name's Latin letters, digits and spaces, up to 10. */
export function descriptorPrefix(businessName: string): string {
  const kept = businessName
    .replace(/[^A-Za-z0-9 .&,_-]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 10)
    .trim()
    .toUpperCase();
  return /[A-Z]/.test(kept) ? kept : 'BPAY';
}

/**
 * What the consumer's bcard shows for a payment: the intent's statement_descriptor, or the merchant's prefix and the
 * intent's suffix (PREFIX* SUFFIX, cut to 22 characters), in capitals as on a card statement; without either, the
 * business name as before. A whole descriptor that does not begin with the merchant's own prefix follows the business
 * name ("Acme Shop · NETFLIX COM"): merchants sign themselves up, and one must not pass itself off as another on a
 * consumer's transaction (hostile review of issue 28).
 */
export function shownDescriptor(
  businessName: string,
  intent: { statementDescriptor: string | null; statementDescriptorSuffix: string | null },
): string {
  if (intent.statementDescriptor) {
    const whole = intent.statementDescriptor.toUpperCase();
    const prefix = descriptorPrefix(businessName);
    // A name with no Latin letters has BPAY for a prefix: its descriptor never stands alone (it would pass for bpay).
    const own = prefix !== 'BPAY' && whole.startsWith(prefix);
    return own ? whole : `${businessName} · ${whole}`;
  }
  if (intent.statementDescriptorSuffix) {
    const prefix = descriptorPrefix(businessName);
    const suffix = intent.statementDescriptorSuffix.toUpperCase();
    if (prefix === 'BPAY') return `${businessName} · ${suffix}`;
    return `${prefix}* ${suffix}`.slice(0, DESCRIPTOR_MAX).trim();
  }
  return businessName;
}
