import type { MessageKey } from '../../i18n';
import type { WebhookEndpointUpdate, WebhookEventType } from './api';

/*
 * Webhook form rules. The server is the authority (it also refuses production URLs that resolve to private
 * addresses); these give instant feedback.
 */

/** The spec's event choices (besides all events); each must be an event type the API knows. */
export const WEBHOOK_EVENT_CHOICES = ['payment_intent.succeeded', 'payment_intent.failed'] as const satisfies readonly WebhookEventType[];

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

/** What the endpoint form holds (create and edit). */
export interface EndpointFormValues {
  url: string;
  /** All events ('*'). */
  all: boolean;
  chosen: string[];
  description: string;
  /** Edit only: whether the endpoint receives events. */
  enabled: boolean;
}

export type EndpointField = 'url' | 'events';

/** The form's problems, by field (the server applies the same rules, and its URL policy on top). */
export function endpointFormProblems(values: EndpointFormValues, live: boolean): Partial<Record<EndpointField, MessageKey>> {
  const problems: Partial<Record<EndpointField, MessageKey>> = {};
  const url = webhookUrlProblem(values.url, live);
  if (url) problems.url = url;
  if (enabledEventsFor(values.all, values.chosen).length === 0) problems.events = 'merchants.webhooks.error.events';
  return problems;
}

/**
 * The events an endpoint's form offers: the spec's choices, and any other event the endpoint already listens to
 * (one made through the API may have more), so editing never drops an event silently.
 */
export function eventChoicesFor(current: readonly string[], choices: readonly string[]): string[] {
  return [...new Set([...choices, ...current.filter((e) => e !== '*')])];
}

/** The form's starting values for an existing endpoint. */
export function formValuesOf(endpoint: { url: string; enabled_events: string[]; description: string | null; status: string }): EndpointFormValues {
  const all = endpoint.enabled_events.includes('*');
  return {
    url: endpoint.url,
    all,
    chosen: all ? [] : [...endpoint.enabled_events],
    description: endpoint.description ?? '',
    enabled: endpoint.status === 'enabled',
  };
}

/** Only what the edit changed (the PATCH body); empty when nothing did. A cleared description is null. */
export function endpointChanges(
  endpoint: { url: string; enabled_events: string[]; description: string | null; status: string },
  values: EndpointFormValues,
): WebhookEndpointUpdate {
  const changes: WebhookEndpointUpdate = {};
  const url = values.url.trim();
  if (url !== endpoint.url) changes.url = url;
  const events = enabledEventsFor(values.all, values.chosen);
  const before = enabledEventsFor(endpoint.enabled_events.includes('*'), endpoint.enabled_events);
  // The form offers only event names the server gave (the endpoint's own) or the typed choices (WEBHOOK_EVENT_CHOICES).
  if (events.join('\n') !== before.join('\n')) changes.enabled_events = events as NonNullable<WebhookEndpointUpdate['enabled_events']>;
  const description = values.description.trim() || null;
  if (description !== (endpoint.description ?? null)) changes.description = description;
  if (values.enabled !== (endpoint.status === 'enabled')) changes.disabled = !values.enabled;
  return changes;
}
