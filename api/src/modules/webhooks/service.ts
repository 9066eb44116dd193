import { and, asc, count, desc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid, notFound } from '../../errors';
import { escapeUnsafe } from '../../lib/text';
import { seal } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { emitEventTo, isSubscribed, queueDeliveries } from '../events/emit';
import { recordBroadcast } from '../events/broadcast';
import { checkLimit, eventPayload, getEvent } from '../events/service';
import { USER_AGENT } from './signature';
import { checkWebhookUrl } from './url-policy';

type MerchantRow = typeof schema.merchants.$inferSelect;
type EndpointRow = typeof schema.webhookEndpoints.$inferSelect;
type DeliveryRow = typeof schema.webhookDeliveries.$inferSelect;
type AttemptRow = typeof schema.webhookAttempts.$inferSelect;

/** Endpoints per merchant (Stripe allows 16 per account and mode). */
export const MAX_ENDPOINTS = 16;
export const AUTO_DISABLED_REASON = 'Disabled after failing for 3 days';
export const MERCHANT_DISABLED_REASON = 'Disabled by the merchant';

export interface WebhookEndpointObject {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  enabled_events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  livemode: boolean;
  created: number;
  /** Only in the answers that make a secret (create, roll). */
  secret?: string;
}

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

export function toEndpointObject(row: EndpointRow, secret?: string): WebhookEndpointObject {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    enabled_events: row.enabledEvents,
    description: row.description,
    status: row.status,
    disabled_reason: row.disabledReason,
    livemode: row.livemode,
    created: unix(row.createdAt),
    ...(secret !== undefined ? { secret } : {}),
  };
}

/** A new signing secret: 256 random bits. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** '*' stands for everything, so it stands alone; duplicates are dropped. */
function normaliseEvents(events: string[]): string[] {
  if (events.includes('*')) return ['*'];
  return [...new Set(events)];
}

function cleanDescription(d: string | null | undefined): string | null {
  const s = d?.trim();
  return s ? s : null;
}

const checkUrl = (deps: AppDeps, livemode: boolean, url: string) =>
  checkWebhookUrl(url, { production: livemode, sandboxLocal: deps.webhooks.sandboxLocal, resolveHost: deps.webhooks.resolveHost });

/** The merchant's endpoint in its own mode; anything else is "not found". */
export async function getEndpoint(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string, param = 'id'): Promise<EndpointRow> {
  const row = await firstRow(deps.db, schema.webhookEndpoints, and(
      eq(schema.webhookEndpoints.id, id),
      eq(schema.webhookEndpoints.merchantId, merchant.id),
      eq(schema.webhookEndpoints.livemode, livemode),
    ));
  if (!row) throw notFound('webhook_endpoint', id, param);
  return row;
}

export interface CreateEndpointInput {
  url: string;
  enabled_events: string[];
  description?: string | null;
}

/**
 * Creates an endpoint; the answer carries its signing secret, the only time it is shown (it is stored sealed).
 * Fails with: validation_error, url_not_allowed (production URL rules), webhook_endpoint_limit_reached.
 */
export async function createEndpoint(deps: AppDeps, merchant: MerchantRow, livemode: boolean, input: CreateEndpointInput) {
  const url = await checkUrl(deps, livemode, input.url);
  const secret = newWebhookSecret();
  const now = deps.clock.now();
  // The count and the insert are one write transaction: counted apart, parallel creates all saw room under the limit.
  const row = await deps.db.transaction(async (tx) => {
    const [n] = await tx
      .select({ n: count() })
      .from(schema.webhookEndpoints)
      .where(and(eq(schema.webhookEndpoints.merchantId, merchant.id), eq(schema.webhookEndpoints.livemode, livemode)));
    if ((n?.n ?? 0) >= MAX_ENDPOINTS) throw new AppError('webhook_endpoint_limit_reached');
    const [inserted] = await tx
      .insert(schema.webhookEndpoints)
      .values({
        id: newId('we'),
        merchantId: merchant.id,
        livemode,
        url,
        description: cleanDescription(input.description),
        enabledEvents: normaliseEvents(input.enabled_events),
        secretSealed: seal(deps.webhookKey, secret),
        status: 'enabled',
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return inserted!;
  });
  return toEndpointObject(row, secret);
}

export interface ListInput {
  limit: number;
  starting_after?: string;
}

/**
 * Newest first, Stripe's cursor pagination.
 * Fails with: validation_error (a limit outside 1–100, a cursor that is not this merchant's).
 */
export async function listEndpoints(deps: AppDeps, merchant: MerchantRow, livemode: boolean, q: ListInput) {
  checkLimit(q.limit);
  const e = schema.webhookEndpoints;
  let cond = and(eq(e.merchantId, merchant.id), eq(e.livemode, livemode));
  if (q.starting_after) {
    const anchor = await getEndpoint(deps, merchant, livemode, q.starting_after).catch(() => {
      throw invalid('starting_after', 'starting_after is not one of your webhook endpoints.');
    });
    // A row value, served by webhook_endpoints_merchant_idx (merchant_id, livemode, created_at, id).
    cond = and(cond, sql`(${e.createdAt}, ${e.id}) < (${anchor.createdAt.getTime()}, ${anchor.id})`);
  }
  const rows = await deps.db
    .select()
    .from(e)
    .where(cond)
    .orderBy(desc(e.createdAt), desc(e.id))
    .limit(q.limit + 1);
  return {
    object: 'list' as const,
    url: '/api/v1/webhook_endpoints',
    has_more: rows.length > q.limit,
    data: rows.slice(0, q.limit).map((r) => toEndpointObject(r)),
  };
}

/**
 * A disabled endpoint gets nothing: what was still queued for it ends as failed (an event can be resent). A delivery
 * a worker is sending right now is left to that worker, which fails it when it sees the endpoint disabled (so its
 * attempt is counted).
 */
export async function failPendingDeliveries(tx: DbOrTx, endpointId: string, now: Date): Promise<void> {
  const d = schema.webhookDeliveries;
  await tx
    .update(d)
    .set({ status: 'failed', lockedUntil: null })
    .where(and(eq(d.endpointId, endpointId), eq(d.status, 'pending'), or(isNull(d.lockedUntil), lte(d.lockedUntil, now))));
}

export interface UpdateEndpointInput {
  url?: string;
  enabled_events?: string[];
  description?: string | null;
  disabled?: boolean;
}

/**
 * Edits an endpoint. `disabled: true` disables it (its pending deliveries end as failed); `disabled: false`
 * enables it again and forgets its failure streak. Fails with: resource_not_found, validation_error, url_not_allowed.
 */
export async function updateEndpoint(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string, input: UpdateEndpointInput) {
  const current = await getEndpoint(deps, merchant, livemode, id);
  const set: Partial<typeof schema.webhookEndpoints.$inferInsert> = { updatedAt: deps.clock.now() };
  if (input.url !== undefined) set.url = await checkUrl(deps, livemode, input.url);
  if (input.enabled_events !== undefined) set.enabledEvents = normaliseEvents(input.enabled_events);
  if (input.description !== undefined) set.description = cleanDescription(input.description);
  if (input.disabled === true && current.status === 'enabled') {
    Object.assign(set, { status: 'disabled', disabledReason: MERCHANT_DISABLED_REASON });
  } else if (input.disabled === false && current.status === 'disabled') {
    Object.assign(set, { status: 'enabled', disabledReason: null, failingSince: null });
  }
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx.update(schema.webhookEndpoints).set(set).where(eq(schema.webhookEndpoints.id, current.id)).returning();
    if (set.status === 'disabled') await failPendingDeliveries(tx, current.id, deps.clock.now());
    return updated!;
  });
  return toEndpointObject(row);
}

/** Deletes an endpoint and, with it, its deliveries and their attempts (the events stay). */
export async function deleteEndpoint(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string) {
  const row = await getEndpoint(deps, merchant, livemode, id);
  await deps.db.delete(schema.webhookEndpoints).where(eq(schema.webhookEndpoints.id, row.id));
  return { id: row.id, object: 'webhook_endpoint' as const, deleted: true as const };
}

/**
 * How long the replaced signing secret keeps signing deliveries beside the new one after a roll (as Stripe's dashboard
 * offers when rolling an endpoint's secret); `now` stops it at once, the default.
 */
export const SECRET_GRACE_PERIODS = { now: 0, '1h': 3600_000, '24h': 24 * 3600_000 } as const;
export type SecretGracePeriod = keyof typeof SECRET_GRACE_PERIODS;
export const SECRET_GRACE_PERIOD_NAMES = ['now', '1h', '24h'] as const satisfies readonly SecretGracePeriod[];

/**
 * Replaces the signing secret (deliveries sent from now on are signed with the new one) and shows it once. With
 * `expireOldSecretIn` 1h or 24h the replaced secret signs every delivery too until then: the signature headers carry
 * two `v1=` values, the new secret's first, so a receiver can switch to the new secret at any time within the grace.
 * There is one previous secret only: a roll while an earlier one is still in its grace replaces it (it stops at once).
 *
 * One UPDATE moves current to previous (SQLite's SET reads the row as it was), so concurrent rolls serialize: each
 * one's previous secret is the secret the roll before it made, never one that no answer showed. Both stay sealed.
 * Fails with: resource_not_found.
 */
export async function rollEndpointSecret(
  deps: AppDeps,
  merchant: MerchantRow,
  livemode: boolean,
  id: string,
  expireOldSecretIn: SecretGracePeriod = 'now',
) {
  const row = await getEndpoint(deps, merchant, livemode, id);
  const secret = newWebhookSecret();
  const now = deps.clock.now();
  const e = schema.webhookEndpoints;
  const grace = SECRET_GRACE_PERIODS[expireOldSecretIn];
  const [updated] = await deps.db
    .update(e)
    .set({
      previousSecretSealed: grace > 0 ? sql`${e.secretSealed}` : null,
      previousSecretExpiresAt: grace > 0 ? new Date(now.getTime() + grace) : null,
      secretSealed: seal(deps.webhookKey, secret),
      updatedAt: now,
    })
    .where(eq(e.id, row.id))
    .returning();
  return toEndpointObject(updated!, secret);
}

/** The sealed secrets that sign a delivery sent at `now`: the current one, then the replaced one while its grace lasts. */
export function signingSecretsSealed(row: EndpointRow, now: Date): string[] {
  const until = row.previousSecretExpiresAt;
  const inGrace = row.previousSecretSealed !== null && until !== null && until.getTime() > now.getTime();
  return inGrace ? [row.secretSealed, row.previousSecretSealed!] : [row.secretSealed];
}

/* ------------------------------------------------------------------------------------------------------------- *
 * Deliveries as the API and the dashboard show them.
 * ------------------------------------------------------------------------------------------------------------- */

export interface AttemptObject {
  at: number;
  status_code: number | null;
  duration_ms: number;
  response_snippet: string | null;
  error: string | null;
}

export interface DeliveryObject {
  id: string;
  object: 'webhook_delivery';
  event: string;
  event_type: string;
  webhook_endpoint: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  created: number;
  next_attempt_at: number | null;
  last_attempt: AttemptObject | null;
}

const toAttemptObject = (a: AttemptRow): AttemptObject => ({
  at: unix(a.at),
  status_code: a.statusCode,
  duration_ms: a.durationMs,
  response_snippet: a.responseSnippet,
  error: a.error,
});

/** Deliveries (by id, in the order given) with their event type, endpoint URL and latest attempt. */
async function deliveryObjects(deps: AppDeps, ids: string[]): Promise<DeliveryObject[]> {
  if (ids.length === 0) return [];
  const d = schema.webhookDeliveries;
  const rows = await deps.db
    .select({ delivery: d, type: schema.events.type, url: schema.webhookEndpoints.url })
    .from(d)
    .innerJoin(schema.events, eq(schema.events.id, d.eventId))
    .innerJoin(schema.webhookEndpoints, eq(schema.webhookEndpoints.id, d.endpointId))
    .where(inArray(d.id, ids));
  const attempts = await deps.db
    .select()
    .from(schema.webhookAttempts)
    .where(inArray(schema.webhookAttempts.deliveryId, ids))
    // Each delivery's attempts newest first, straight from webhook_attempts_delivery_idx (delivery_id, at, rowid).
    .orderBy(desc(schema.webhookAttempts.deliveryId), desc(schema.webhookAttempts.at), desc(sql`rowid`));
  const latest = new Map<string, AttemptRow>();
  for (const a of attempts) if (!latest.has(a.deliveryId)) latest.set(a.deliveryId, a);
  const byId = new Map(rows.map((r) => [r.delivery.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    if (!r) return [];
    const del: DeliveryRow = r.delivery;
    const last = latest.get(id);
    return [
      {
        id: del.id,
        object: 'webhook_delivery' as const,
        event: del.eventId,
        event_type: r.type,
        webhook_endpoint: del.endpointId,
        url: r.url,
        status: del.status,
        attempts: del.attempts,
        created: unix(del.createdAt),
        next_attempt_at: del.status === 'pending' ? unix(del.nextAttemptAt) : null,
        last_attempt: last ? toAttemptObject(last) : null,
      },
    ];
  });
}

/** The merchant's recent deliveries (optionally of one endpoint), newest first. Fails with: validation_error, resource_not_found. */
export async function listDeliveries(
  deps: AppDeps,
  merchant: MerchantRow,
  livemode: boolean,
  q: { endpointId?: string; limit: number },
) {
  checkLimit(q.limit);
  if (q.endpointId) await getEndpoint(deps, merchant, livemode, q.endpointId, 'endpoint_id');
  const d = schema.webhookDeliveries;
  // One walk down an index whose entries end with the rowid, newest first: the endpoint's (checked above to be this
  // merchant's, in this mode), or the merchant's own (merchant and mode are copied onto each delivery when queued).
  const cond = q.endpointId ? eq(d.endpointId, q.endpointId) : and(eq(d.merchantId, merchant.id), eq(d.livemode, livemode));
  const rows = await deps.db
    .select({ id: d.id })
    .from(d)
    .where(cond)
    .orderBy(desc(d.createdAt), desc(sql`${d}.rowid`))
    .limit(q.limit + 1);
  return {
    object: 'list' as const,
    has_more: rows.length > q.limit,
    data: await deliveryObjects(
      deps,
      rows.slice(0, q.limit).map((r) => r.id),
    ),
  };
}

export interface DeliveryDetailObject extends DeliveryObject {
  /** What was POSTed (the same for every attempt; each attempt's Bpay-Signature is computed when it is sent). */
  request: { url: string; content_type: 'application/json'; user_agent: string; body: string };
  /** Every attempt, oldest first. */
  attempt_history: AttemptObject[];
}

/** The most attempts one delivery can have is about 22 (backoff doubling to 6 h within 3 days); this is a safety cap. */
const MAX_ATTEMPTS_SHOWN = 100;

/**
 * One delivery with the request body as sent (the event JSON, exactly the bytes the worker signs) and every attempt.
 * The merchant's own, in this mode; anything else is "not found". Fails with: resource_not_found.
 */
export async function getDeliveryDetail(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<DeliveryDetailObject> {
  const d = schema.webhookDeliveries;
  const row = await firstRow(deps.db, d, and(eq(d.id, id), eq(d.merchantId, merchant.id), eq(d.livemode, livemode)));
  if (!row) throw notFound('webhook delivery');
  const [delivery] = await deliveryObjects(deps, [row.id]);
  const event = await firstRow(deps.db, schema.events, eq(schema.events.id, row.eventId));
  // Both cascade with the delivery: missing means it was deleted between the reads.
  if (!delivery || !event) throw notFound('webhook delivery');
  const attempts = await deps.db
    .select()
    .from(schema.webhookAttempts)
    .where(eq(schema.webhookAttempts.deliveryId, row.id))
    .orderBy(asc(schema.webhookAttempts.at), asc(sql`rowid`))
    .limit(MAX_ATTEMPTS_SHOWN);
  return {
    ...delivery,
    request: { url: delivery.url, content_type: 'application/json', user_agent: USER_AGENT, body: eventPayload(event) },
    attempt_history: attempts.map(toAttemptObject),
  };
}

/**
 * Queues a new delivery of an event: to one endpoint when named, else to every enabled endpoint that subscribes
 * to it or was sent it before, and then also to the merchant's live listeners (the events stream). Answers the
 * deliveries queued: possibly none (no endpoint), which is not an error since a listener may be connected.
 * Fails with: resource_not_found (the event), validation_error (endpoint_id not yours), webhook_endpoint_disabled.
 */
export async function resendEvent(deps: AppDeps, merchant: MerchantRow, livemode: boolean, eventId: string, endpointId?: string) {
  const event = await getEvent(deps, merchant, livemode, eventId);
  let targets: string[];
  if (endpointId !== undefined) {
    const ep = await getEndpoint(deps, merchant, livemode, endpointId).catch(() => {
      throw invalid('endpoint_id', `No such webhook endpoint: '${escapeUnsafe(endpointId)}'. endpoint_id must be one of your webhook endpoints in this mode.`);
    });
    if (ep.status !== 'enabled') throw new AppError('webhook_endpoint_disabled', undefined, 'endpoint_id');
    targets = [ep.id];
  } else {
    const endpoints = await deps.db
      .select()
      .from(schema.webhookEndpoints)
      .where(
        and(
          eq(schema.webhookEndpoints.merchantId, merchant.id),
          eq(schema.webhookEndpoints.livemode, livemode),
          eq(schema.webhookEndpoints.status, 'enabled'),
        ),
      );
    const sentTo = new Set(
      (
        await deps.db
          .select({ endpointId: schema.webhookDeliveries.endpointId })
          .from(schema.webhookDeliveries)
          .where(eq(schema.webhookDeliveries.eventId, event.id))
      ).map((r) => r.endpointId),
    );
    targets = endpoints.filter((ep) => isSubscribed(ep.enabledEvents, event.type) || sentTo.has(ep.id)).map((ep) => ep.id);
  }
  const at = deps.clock.now();
  const ids = await deps.db.transaction(async (tx) => {
    // Without a named endpoint, running listeners (`bpay listen`) get it again too, so a resend works without any
    // webhook endpoint. Naming an endpoint means that one only.
    if (endpointId === undefined) {
      await recordBroadcast(tx, { merchantId: merchant.id, livemode, eventId: event.id, reason: 'resend', at });
    }
    return queueDeliveries(tx, { merchantId: merchant.id, livemode }, event.id, targets, at);
  });
  return { object: 'list' as const, has_more: false, data: await deliveryObjects(deps, ids) };
}

/**
 * Emits a `webhook_endpoint.test` event (its object is the endpoint) delivered to this endpoint only.
 * Fails with: resource_not_found, webhook_endpoint_disabled.
 */
export async function sendTestEvent(deps: AppDeps, merchant: MerchantRow, livemode: boolean, endpointId: string) {
  const ep = await getEndpoint(deps, merchant, livemode, endpointId);
  if (ep.status !== 'enabled') throw new AppError('webhook_endpoint_disabled');
  const { deliveryId } = await deps.db.transaction((tx) =>
    emitEventTo(
      tx,
      { merchantId: merchant.id, livemode, type: 'webhook_endpoint.test', object: { ...toEndpointObject(ep) }, at: deps.clock.now() },
      ep.id,
    ),
  );
  const [delivery] = await deliveryObjects(deps, [deliveryId]);
  return delivery!;
}
