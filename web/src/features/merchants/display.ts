import type { MessageKey } from '../../i18n';

/*
 * Pure rules behind the merchant screens: status badges, metadata counts, key modes and dates.
 */

export type Tone = 'neutral' | 'brand' | 'green' | 'yellow' | 'red' | 'blue';

const INTENT_STATUS: Record<string, { tone: Tone; label: MessageKey }> = {
  succeeded: { tone: 'green', label: 'merchants.status.succeeded' },
  processing: { tone: 'blue', label: 'merchants.status.processing' },
  requires_capture: { tone: 'blue', label: 'merchants.status.requires_capture' },
  requires_payment_method: { tone: 'yellow', label: 'merchants.status.requires_payment_method' },
  requires_confirmation: { tone: 'yellow', label: 'merchants.status.requires_confirmation' },
  requires_action: { tone: 'yellow', label: 'merchants.status.requires_action' },
  failed: { tone: 'red', label: 'merchants.status.failed' },
  canceled: { tone: 'neutral', label: 'merchants.status.canceled' },
};

/** The badge for an intent status; a status this page does not know shows as it is, neutrally. */
export function intentStatusBadge(status: string): { tone: Tone; label: MessageKey | null } {
  return INTENT_STATUS[status] ?? { tone: 'neutral', label: null };
}

const DELIVERY_STATUS: Record<string, { tone: Tone; label: MessageKey }> = {
  succeeded: { tone: 'green', label: 'merchants.webhooks.delivery.succeeded' },
  pending: { tone: 'yellow', label: 'merchants.webhooks.delivery.pending' },
  failed: { tone: 'red', label: 'merchants.webhooks.delivery.failed' },
};

export function deliveryStatusBadge(status: string): { tone: Tone; label: MessageKey | null } {
  return DELIVERY_STATUS[status] ?? { tone: 'neutral', label: null };
}

/** The payments table's metadata column: how many keys, or null for "None". */
export function metadataKeyCount(metadata: Record<string, string> | null | undefined): number | null {
  const n = metadata ? Object.keys(metadata).length : 0;
  return n > 0 ? n : null;
}

/** Production accounts are live; sandbox accounts are in test mode (spec §2). */
export const isLiveMode = (environment: string) => environment === 'production';

/** A date in the page's language; Arabic pages still show Western digits like the rest of the app's amounts. */
export function formatDate(value: string | number | Date, lang: 'en' | 'ar'): string {
  const d = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  return new Intl.DateTimeFormat(lang === 'ar' ? 'ar-u-nu-latn' : 'en-US', { dateStyle: 'medium' }).format(d);
}

export function formatDateTime(value: string | number | Date, lang: 'en' | 'ar'): string {
  const d = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  return new Intl.DateTimeFormat(lang === 'ar' ? 'ar-u-nu-latn' : 'en-US', { dateStyle: 'medium', timeStyle: 'short' }).format(d);
}

/** Amounts in an intent's currency, from cents. */
export function formatIntentAmount(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

/** Wraps text in Unicode isolates on right-to-left pages so a left-to-right value ($12.00, a URL) keeps its order. */
export { isolateFor } from '../../lib/card-display';
