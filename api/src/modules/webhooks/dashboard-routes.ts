import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { listEvents } from '../events/service';
import { getOwnedMerchant } from '../merchants/service';
import { endpointSecretIdempotency, merchantIdempotency } from './idempotent';
import { ROLL_DESCRIPTION } from './routes';
import {
  CreateEndpointBody,
  DeliveryList,
  EndpointDeleted,
  EventListQuery,
  EventModel,
  IdempotencyKey,
  Limit,
  ListQuery,
  ResendBody,
  RollSecretBody,
  UpdateEndpointBody,
  WebhookDeliveryDetailModel,
  WebhookDeliveryModel,
  WebhookEndpointModel,
  listOf,
} from './model';
import {
  createEndpoint,
  deleteEndpoint,
  getDeliveryDetail,
  listDeliveries,
  listEndpoints,
  resendEvent,
  rollEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from './service';

const MerchantId = t.Object({ id: t.String({ maxLength: 64 }) });
const EndpointIds = t.Object({ id: t.String({ maxLength: 64 }), endpointId: t.String({ maxLength: 64 }) });
const DeliveryIds = t.Object({ id: t.String({ maxLength: 64 }), deliveryId: t.String({ maxLength: 64 }) });
const EventIds = t.Object({ id: t.String({ maxLength: 64 }), eventId: t.String({ maxLength: 64 }) });

/**
 * The Merchant Dashboard's webhooks tab: the same services as /api/v1, authenticated by the owner's session cookie
 * instead of the secret key. Another user's merchant is "not found".
 */
export function webhookDashboardRoutes(deps: AppDeps) {
  const idempotent = merchantIdempotency(deps);
  /** Create and roll answer the signing secret, which the Idempotency-Key record must not keep. */
  const withSecret = endpointSecretIdempotency(deps);
  /** The signed-in user's merchant and its mode. */
  const owned = async (userId: string, merchantId: string) => {
    const merchant = await getOwnedMerchant(deps, userId, merchantId);
    return { merchant, livemode: merchant.environment === 'production' };
  };

  return new Elysia({ prefix: '/api/merchants', tags: ['Merchants'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get(
      '/:id/webhook_endpoints',
      async ({ user, params, query }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return listEndpoints(deps, merchant, livemode, { limit: query.limit ?? 100, starting_after: query.starting_after });
      },
      {
        auth: true,
        params: MerchantId,
        query: ListQuery,
        response: { 200: listOf(WebhookEndpointModel), ...errors(400, 401, 404) },
        detail: {
          summary: "A merchant's webhook endpoints (dashboard)",
          description:
            "The webhook endpoints of one of the signed-in user's merchant accounts, with Stripe's list paging, " +
            'for the dashboard. Signing secrets are not shown. Read only.',
        },
      },
    )
    .post(
      '/:id/webhook_endpoints',
      async ({ user, params, body, headers, request }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return withSecret(
          merchant.id,
          request,
          headers['idempotency-key'],
          body,
          () => createEndpoint(deps, merchant, livemode, body),
          201,
        );
      },
      {
        auth: true,
        parse: 'json',
        params: MerchantId,
        headers: IdempotencyKey,
        body: CreateEndpointBody,
        response: { 201: 'WebhookEndpoint', ...errors(400, 401, 403, 404, 409, 415) },
        detail: {
          summary: 'Add a webhook endpoint (dashboard; the answer holds the signing secret, shown only here)',
          description:
            "Adds a webhook endpoint to one of the signed-in user's merchant accounts, as POST " +
            '/api/v1/webhook_endpoints does. The answer holds its signing secret (whsec_), shown only here; ' +
            'honours an Idempotency-Key.',
        },
      },
    )
    .patch(
      '/:id/webhook_endpoints/:endpointId',
      async ({ user, params, body }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return updateEndpoint(deps, merchant, livemode, params.endpointId, body);
      },
      {
        auth: true,
        parse: 'json',
        params: EndpointIds,
        body: UpdateEndpointBody,
        response: { 200: 'WebhookEndpoint', ...errors(400, 401, 403, 404, 415) },
        detail: {
          summary: 'Edit, disable or enable again a webhook endpoint (dashboard)',
          description:
            "Changes a webhook endpoint's URL, events or description, or disables it and enables it again, as " +
            "POST /api/v1/webhook_endpoints/{id} does. Only the merchant account's owner.",
        },
      },
    )
    .delete(
      '/:id/webhook_endpoints/:endpointId',
      async ({ user, params }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return deleteEndpoint(deps, merchant, livemode, params.endpointId);
      },
      {
        auth: true,
        params: EndpointIds,
        response: { 200: EndpointDeleted, ...errors(401, 403, 404) },
        detail: {
          summary: 'Delete a webhook endpoint (dashboard)',
          description:
            "Deletes a webhook endpoint of one of the signed-in user's merchant accounts: no more events are sent " +
            "to it. Only the account's owner; another's endpoint is 404.",
        },
      },
    )
    .post(
      '/:id/webhook_endpoints/:endpointId/roll_secret',
      async ({ user, params, body, headers, request }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return withSecret(merchant.id, request, headers['idempotency-key'], body ?? {}, () =>
          rollEndpointSecret(deps, merchant, livemode, params.endpointId, body?.expire_old_secret_in),
        );
      },
      {
        auth: true,
        parse: 'json',
        params: EndpointIds,
        headers: IdempotencyKey,
        body: RollSecretBody,
        response: { 200: 'WebhookEndpoint', ...errors(400, 401, 403, 404, 409, 415) },
        detail: { summary: 'Roll a webhook signing secret (dashboard; the new one is shown once)', description: ROLL_DESCRIPTION },
      },
    )
    .post(
      '/:id/webhook_endpoints/:endpointId/test',
      async ({ user, params, headers, request }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return idempotent(merchant.id, request, headers['idempotency-key'], {}, () =>
          sendTestEvent(deps, merchant, livemode, params.endpointId),
        );
      },
      {
        auth: true,
        params: EndpointIds,
        headers: IdempotencyKey,
        response: { 200: WebhookDeliveryModel, ...errors(400, 401, 403, 404, 409) },
        detail: {
          summary: 'Send a test event (type webhook_endpoint.test, its object the endpoint) to this endpoint only',
          description:
            'Sends one signed test event (type webhook_endpoint.test, its object the endpoint) to this endpoint ' +
            "only, and answers its delivery. Only the merchant account's owner; honours an Idempotency-Key; no " +
            'money moves.',
        },
      },
    )
    .get(
      '/:id/webhook_deliveries',
      async ({ user, params, query }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return listDeliveries(deps, merchant, livemode, { endpointId: query.endpoint_id, limit: query.limit ?? 20 });
      },
      {
        auth: true,
        params: MerchantId,
        query: t.Object({
          endpoint_id: t.Optional(t.String({ maxLength: 64 })),
          limit: Limit,
        }),
        response: { 200: DeliveryList, ...errors(400, 401, 404) },
        detail: {
          summary: 'Recent webhook deliveries, newest first, with their last attempt (dashboard)',
          description:
            "Recent webhook deliveries of one of the signed-in user's merchant accounts, newest first, each with " +
            "its last attempt; endpoint_id keeps one endpoint's. Read only.",
        },
      },
    )
    .get(
      '/:id/webhook_deliveries/:deliveryId',
      async ({ user, params }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return getDeliveryDetail(deps, merchant, livemode, params.deliveryId);
      },
      {
        auth: true,
        params: DeliveryIds,
        response: { 200: WebhookDeliveryDetailModel, ...errors(401, 404) },
        detail: {
          summary: 'One webhook delivery: the request body as sent, and every attempt with its answer (dashboard)',
          description:
            "One webhook delivery of one of the signed-in user's merchant accounts: the request body exactly as " +
            'sent, and every attempt with the status and answer it got. Read only.',
        },
      },
    )
    .post(
      '/:id/events/:eventId/resend',
      async ({ user, params, body, headers, request }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return idempotent(merchant.id, request, headers['idempotency-key'], body, () =>
          resendEvent(deps, merchant, livemode, params.eventId, body?.endpoint_id),
        );
      },
      {
        auth: true,
        parse: 'json',
        params: EventIds,
        headers: IdempotencyKey,
        body: ResendBody,
        response: { 200: DeliveryList, ...errors(400, 401, 403, 404, 409, 415) },
        detail: {
          summary: 'Send an event again (dashboard; the same as POST /api/v1/events/{id}/resend)',
          description:
            'Queues a new delivery to endpoint_id, or to every enabled endpoint that subscribes to the event or was sent ' +
            'it before; the delivery worker sends it. With an Idempotency-Key, a retried click queues nothing more.',
        },
      },
    )
    .get(
      '/:id/events',
      async ({ user, params, query }) => {
        const { merchant, livemode } = await owned(user.id, params.id);
        return listEvents(deps, merchant, livemode, { limit: query.limit ?? 10, starting_after: query.starting_after, type: query.type });
      },
      {
        auth: true,
        params: MerchantId,
        query: EventListQuery,
        response: { 200: listOf(EventModel), ...errors(400, 401, 404) },
        detail: {
          summary: "A merchant's events, newest first (dashboard; the same list as GET /api/v1/events)",
          description:
            "The events of one of the signed-in user's merchant accounts, newest first: the same list, paging and " +
            'type filter as GET /api/v1/events, for the dashboard. Read only.',
        },
      },
    );
}
