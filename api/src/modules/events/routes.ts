import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors } from '../../models';
import { merchantAuthPlugin } from '../../plugins/merchant-auth';
import { merchantIdempotency } from '../webhooks/idempotent';
import { DeliveryList, EventListQuery, EventModel, IdempotencyKey, ResendBody, listOf } from '../webhooks/model';
import { resendEvent } from '../webhooks/service';
import { getEvent, listEvents, toEventObject } from './service';

const Id = t.Object({ id: t.String({ maxLength: 64 }) });
const security = [{ secretKey: [] }];

/** The merchant API's events (Authorization: Bearer sk_…), scoped to the key's merchant and mode. */
export function eventRoutes(deps: AppDeps) {
  const idempotent = merchantIdempotency(deps);
  return new Elysia({ prefix: '/api/v1', tags: ['Events'] })
    .use(merchantAuthPlugin(deps))
    .get(
      '/events',
      ({ merchant, livemode, query }) =>
        listEvents(deps, merchant, livemode, { limit: query.limit ?? 10, starting_after: query.starting_after, type: query.type }),
      {
        merchant: true,
        query: EventListQuery,
        response: { 200: listOf(EventModel), ...errors(400, 401, 403, 429) },
        detail: { summary: 'List events, newest first', security },
      },
    )
    .get('/events/:id', async ({ merchant, livemode, params }) => toEventObject(await getEvent(deps, merchant, livemode, params.id)), {
      merchant: true,
      params: Id,
      response: { 200: EventModel, ...errors(401, 403, 404, 429) },
      detail: { summary: 'Retrieve an event', security },
    })
    .post(
      '/events/:id/resend',
      ({ merchant, livemode, params, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body, () =>
          resendEvent(deps, merchant, livemode, params.id, body?.endpoint_id),
        ),
      {
        merchant: true,
        parse: 'json',
        params: Id,
        headers: IdempotencyKey,
        body: ResendBody,
        response: { 200: DeliveryList, ...errors(400, 401, 403, 404, 409, 415, 429) },
        detail: {
          summary: 'Send an event again',
          description:
            'Queues a new delivery to endpoint_id, or to every enabled endpoint that subscribes to the event or was sent ' +
            'it before; answers the deliveries queued.',
          security,
        },
      },
    );
}
