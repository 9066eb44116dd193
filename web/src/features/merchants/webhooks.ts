import type { MessageKey } from '../../i18n';

/*
 * Webhook form rules. The server is the authority (it also refuses production URLs that resolve to private
 * addresses); these give instant feedback.
 */

/** '*' for every event, else the chosen ones in a stable order. */
export function enabledEventsFor(all: boolean, chosen: readonly string[]): string[] {
  if (all) return ['*'];
  return [...new Set(chosen)].sort();
}

/** Why a webhook URL cannot be used, or null. Production endpoints must be https (the rule). */
export function webhookUrlProblem(url: string, live: boolean): MessageKey | null {
  const value = url.trim();
  if (!value) return 'merchants.webhooks.error.urlRequired';
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return 'merchants.webhooks.error.url';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'merchants.webhooks.error.url';
  if (live && u.protocol !== 'https:') return 'merchants.webhooks.error.https';
  return null;
}

/** The reason the server gives when the merchant disabled an endpoint themselves. */
export const MERCHANT_DISABLED_REASON = 'Disabled by the merchant';

/** Disabled by bpay because deliveries kept failing (any disabled reason other than the merchant's own choice). */
export function disabledByFailures(endpoint: { status: string; disabled_reason: string | null }): boolean {
  return endpoint.status === 'disabled' && !!endpoint.disabled_reason && endpoint.disabled_reason !== MERCHANT_DISABLED_REASON;
}
