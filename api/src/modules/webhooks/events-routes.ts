import { Elysia, t } from 'elysia';
import { laggingReads, type AppDeps } from '../../deps';
import { errors, rawResponses, sharedModels } from '../../models';
import { merchantAuthPlugin, secretKeyRecheck } from '../../plugins/merchant-auth';
import { EVENT_TYPES } from '../events/emit';
import { getEvent, listEvents, toEventObject } from '../events/service';
import { openEventStream, parseEventFilter } from '../events/stream';
import { merchantIdempotency } from './idempotent';
import { DeliveryList, EventListQuery, EventModel, IdempotencyKey, ResendBody, listOf } from './model';
import { resendEvent } from './service';
import { CREATED_QUERY, parseCreatedFilter } from '../../lib/created-filter';

const Id = t.Object({ id: t.String({ maxLength: 64 }) });
const security = [{ secretKey: [] }];

const EventStreamQuery = t.Object({
  events: t.Optional(
    t.String({
      maxLength: 2000,
      description: `Comma-separated event types to receive, or * for all (the default). Types: ${EVENT_TYPES.join(', ')}.`,
      examples: ['payment_intent.succeeded,payment_intent.failed'],
    }),
  ),
});

const EventStreamHeaders = t.Object({
  'last-event-id': t.Optional(
    t.String({
      maxLength: 64,
      description:
        'The id of the last event received before a disconnection: the stream first sends what was broadcast since ' +
        'then (up to an hour back), as an EventSource does when it reconnects.',
    }),
  ),
});

/** What the stream sends, documented as text (its messages are described in the route's description). */
const EventStreamBody = t.String({
  description: 'A text/event-stream: `id: <event id>`, `event: <type>`, `data: <event JSON>` per message.',
  examples: ['id: evt_123\nevent: payment_intent.succeeded\ndata: {"id":"evt_123","object":"event"}\n\n'],
});

/**
 * The merchant API's events (Authorization: Bearer sk_…), scoped to the key's merchant and mode. They live with the
 * webhooks, whose deliveries and resends they show; events/ (emit, store, broadcast, stream) imports no module above it.
 */
export function eventRoutes(deps: AppDeps) {
  // The events list reads where it may lag (issue 30 §3).
  const lagging = laggingReads(deps);
  const idempotent = merchantIdempotency(deps);
  return new Elysia({ prefix: '/api/v1', tags: ['Events'] })
    .use(sharedModels)
    .use(merchantAuthPlugin(deps))
    .get(
      '/events',
      ({ merchant, livemode, query, request }) =>
        listEvents(lagging, merchant, livemode, {
          limit: query.limit ?? 10,
          starting_after: query.starting_after,
          type: query.type,
          created: parseCreatedFilter(new URL(request.url).searchParams),
        }),
      {
        merchant: true,
        query: t.Object({ ...EventListQuery.properties, ...CREATED_QUERY }),
        response: { 200: listOf(EventModel), ...errors(400, 401, 403, 429) },
        detail: {
          summary: 'List events, newest first',
          description: 'type keeps one event type; created (Unix seconds) or created[gte|gt|lte|lt] keeps events created then.',
          security,
        },
      },
    )
    .get(
      '/events/stream',
      ({ merchant, livemode, query, headers, request }) =>
        openEventStream(deps, merchant, livemode, {
          filter: parseEventFilter(query.events),
          signal: request.signal,
          lastEventId: headers['last-event-id'] ?? null,
          recheck: secretKeyRecheck(deps, merchant.id, request),
        }),
      {
        merchant: true,
        query: EventStreamQuery,
        headers: EventStreamHeaders,
        detail: {
          responses: rawResponses(
            {
              description: 'A text/event-stream that stays open',
              content: { 'text/event-stream': { schema: EventStreamBody as unknown as Record<string, unknown> } },
            },
            400,
            401,
            403,
            429,
          ) as never,
          summary: 'Stream events as they happen (server-sent events)',
          description:
            'Answers `text/event-stream` (Cache-Control: no-store) and stays open. Only events recorded after the ' +
            'connection opened are sent (no backlog; with `Last-Event-ID`, also those since that event, up to an hour ' +
            'back), of this key\'s merchant and mode; `POST /api/v1/events/{id}/resend` ' +
            'without endpoint_id sends an event again. Each event is one message:\n\n' +
            '```\nid: evt_…\nevent: payment_intent.succeeded\ndata: {"id":"evt_…","object":"event",…}\n\n```\n\n' +
            '`data` is the event JSON exactly as `GET /api/v1/events/{id}` returns it. Comment lines (`: connected` at ' +
            'the start, `: ping` every 15 seconds) keep the connection alive and are to be ignored. The request counts ' +
            'once against the rate limits, however long it stays open. The key is checked again while the stream ' +
            'lasts: once it no longer works (rolled, its grace period over, the merchant deactivated) the stream sends ' +
            'one last message, `event: error` with `data: {"error":{…},"status":401}` (the error a new request with the key ' +
            'gets, and its HTTP status), ' +
            'and ends. `bpay listen` uses it.',
          security,
        },
      },
    )
    .get('/events/:id', async ({ merchant, livemode, params }) => toEventObject(await getEvent(deps, merchant, livemode, params.id)), {
      merchant: true,
      params: Id,
      response: { 200: 'Event', ...errors(401, 403, 404, 429) },
      detail: {
        summary: 'Retrieve an event',
        description:
          "One of this merchant's events (evt_) with the object it carries, as webhook deliveries send it. Needs " +
          "a secret key; another merchant's or the other mode's event is 404.",
        security,
      },
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
