import { t } from 'elysia';
import { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../events/emit';
import { freeText } from '../../lib/text';
import { SECRET_GRACE_PERIOD_NAMES } from './service';

const ENABLED_EVENTS = ['*', ...SUBSCRIBABLE_EVENT_TYPES] as const;
/** Elysia's t.UnionEnum defaults to its first value: an optional field left out would silently become it. */
const noDefault = { default: undefined };
/** A page size. The range is checked by the services (a range error here would name no param). */
export const Limit = t.Optional(t.Numeric({ description: 'An integer from 1 to 100', error: 'limit must be an integer from 1 to 100.' }));

export const WebhookEndpointModel = t.Object(
  {
    id: t.String({ examples: ['we_3f2a9c1d0b7e6f5a4c3b2a19'] }),
    object: t.Literal('webhook_endpoint'),
    url: t.String(),
    enabled_events: t.Array(t.String(), { description: "'*' or event types" }),
    description: t.Union([t.String(), t.Null()]),
    status: t.UnionEnum(['enabled', 'disabled']),
    disabled_reason: t.Union([t.String(), t.Null()], { examples: ['Disabled after failing for 3 days'] }),
    livemode: t.Boolean(),
    created: t.Integer({ description: 'Unix seconds' }),
    secret: t.Optional(t.String({ description: 'The signing secret (whsec_…): only in the answers to create and roll_secret.' })),
  },
  { $id: '#/components/schemas/WebhookEndpoint' },
);

export const EventModel = t.Object(
  {
    id: t.String({ examples: ['evt_3f2a9c1d0b7e6f5a4c3b2a19'] }),
    object: t.Literal('event'),
    type: t.String({ examples: ['payment_intent.succeeded'] }),
    created: t.Integer({ description: 'Unix seconds' }),
    livemode: t.Boolean(),
    data: t.Object({ object: t.Record(t.String(), t.Unknown(), { description: 'The object as it was when the event happened' }) }),
  },
  { $id: '#/components/schemas/Event' },
);

/** One attempt to send a delivery, as recorded. */
const WebhookAttemptModel = t.Object({
  at: t.Integer({ description: 'Unix seconds' }),
  status_code: t.Union([t.Integer(), t.Null()], { description: "The receiver's HTTP status; null when it did not answer" }),
  duration_ms: t.Integer(),
  response_snippet: t.Union([t.String(), t.Null()], { description: 'The first 500 characters of the answer' }),
  error: t.Union([t.String(), t.Null()], { description: 'Why no answer came (timeout, network, URL rules)' }),
});

export const WebhookDeliveryModel = t.Object(
  {
    id: t.String({ examples: ['whd_3f2a9c1d0b7e6f5a4c3b2a19'] }),
    object: t.Literal('webhook_delivery'),
    event: t.String({ description: 'The event id' }),
    event_type: t.String(),
    webhook_endpoint: t.String({ description: 'The endpoint id' }),
    url: t.String(),
    status: t.UnionEnum(['pending', 'succeeded', 'failed']),
    attempts: t.Integer(),
    created: t.Integer({ description: 'Unix seconds' }),
    next_attempt_at: t.Union([t.Integer(), t.Null()], { description: 'Unix seconds, while pending' }),
    last_attempt: t.Union([WebhookAttemptModel, t.Null()]),
  },
  { $id: '#/components/schemas/WebhookDelivery' },
);

/** One delivery in full (the dashboard's delivery view): what was sent and every attempt. */
export const WebhookDeliveryDetailModel = t.Object({
  ...WebhookDeliveryModel.properties,
  request: t.Object(
    {
      url: t.String({ description: "The endpoint's URL (as it is now)" }),
      content_type: t.Literal('application/json'),
      user_agent: t.String(),
      body: t.String({
        description:
          'The request body exactly as sent and signed: the event JSON. Each attempt is signed afresh (Bpay-Signature, ' +
          'with its own timestamp), which is why the signature is not shown.',
      }),
    },
    { description: 'The POST bpay sends (the same bytes every attempt)' },
  ),
  attempt_history: t.Array(WebhookAttemptModel, { description: 'Every attempt, oldest first' }),
});

/** A list page of a shared model (one with a components.schemas $id): its items are references. */
export const listOf = <T extends Parameters<typeof t.Ref>[0]>(item: T) =>
  t.Object({ object: t.Literal('list'), url: t.String(), has_more: t.Boolean(), data: t.Array(t.Ref(item)) });

export const DeliveryList = t.Object({ object: t.Literal('list'), has_more: t.Boolean(), data: t.Array(t.Ref(WebhookDeliveryModel)) });

export const EndpointDeleted = t.Object({ id: t.String(), object: t.Literal('webhook_endpoint'), deleted: t.Literal(true) });

const enabledEvents = t.Array(
  t.UnionEnum(ENABLED_EVENTS, { error: `enabled_events may hold '*' or these event types: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}.` }),
  { minItems: 1, maxItems: 50, error: `enabled_events must list '*' or at least one of: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}.` },
);
const url = t.String({ minLength: 1, maxLength: 2048, error: 'url must be an http(s) URL of at most 2048 characters.' });
const description = t.Union([freeText('description', 1000), t.Null()], { error: 'description must be a string of at most 1000 characters, or null.' });

export const CreateEndpointBody = t.Object(
  { url, enabled_events: enabledEvents, description: t.Optional(description) },
  {
    additionalProperties: false,
    examples: [
      {
        url: 'https://shop.example/bpay/webhooks',
        enabled_events: ['payment_intent.succeeded', 'payment_intent.failed'],
        description: 'Order fulfilment',
      },
    ],
  },
);

export const UpdateEndpointBody = t.Object(
  {
    url: t.Optional(url),
    enabled_events: t.Optional(enabledEvents),
    description: t.Optional(description),
    disabled: t.Optional(t.Boolean({ error: 'disabled must be true or false.', description: 'true disables the endpoint; false enables it again' })),
  },
  {
    additionalProperties: false,
    examples: [{ enabled_events: ['payment_intent.succeeded', 'payment_intent.failed'], description: 'Orders' }, { disabled: false }],
  },
);

/** A roll's optional body: how long the replaced secret keeps signing beside the new one. */
export const RollSecretBody = t.Optional(
  t.Object(
    {
      expire_old_secret_in: t.Optional(
        t.UnionEnum(SECRET_GRACE_PERIOD_NAMES, {
          ...noDefault,
          error: `expire_old_secret_in must be one of ${SECRET_GRACE_PERIOD_NAMES.join(', ')}.`,
          description:
            'How long the replaced secret keeps signing deliveries beside the new one (two v1= values in the signature ' +
            'headers, the new one first): now (the default), 1h or 24h',
        }),
      ),
    },
    { additionalProperties: false, examples: [{}, { expire_old_secret_in: '24h' }] },
  ),
);

export const ListQuery = t.Object({
  limit: Limit,
  starting_after: t.Optional(t.String({ maxLength: 64 })),
});

export const EventListQuery = t.Object({
  limit: Limit,
  starting_after: t.Optional(t.String({ maxLength: 64 })),
  type: t.Optional(t.UnionEnum(EVENT_TYPES, { ...noDefault, error: `type must be one of ${EVENT_TYPES.join(', ')}.` })),
});

export const ResendBody = t.Optional(
  t.Object(
    { endpoint_id: t.Optional(t.String({ maxLength: 64, description: 'Send to this endpoint only' })) },
    { additionalProperties: false, examples: [{}, { endpoint_id: 'we_1a2b3c4d5e6f7a8b9c0d1e2f' }] },
  ),
);

export const IdempotencyKey = t.Object({
  'idempotency-key': t.Optional(t.String({ description: 'Makes a retried POST safe: the first answer is replayed for 24 hours.' })),
});
