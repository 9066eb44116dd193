import { Elysia, t } from 'elysia';
import { PaymentIntentModel } from './modules/payment-intents/model';
import { RefundModel } from './modules/refunds/model';
import { EventModel, WebhookDeliveryModel, WebhookEndpointModel } from './modules/webhooks/model';

/** The one error shape every failure uses. */
export const ErrorResponse = t.Object(
  {
    error: t.Object({
      type: t.UnionEnum([
          'invalid_request_error',
          'authentication_error',
          'permission_error',
          'rate_limit_error',
          'idempotency_error',
          'card_error',
          'api_error',
        ] as const),
      code: t.String({
        examples: ['validation_error'],
        description:
          'A stable snake_case identifier. The merchant API (/api/v1 and /v1) uses Stripe\'s names where code written for ' +
          'Stripe tests them: resource_missing (resource_not_found elsewhere), parameter_unknown, parameter_missing and ' +
          'amount_too_large; its errors also carry Stripe-Should-Retry (true with Retry-After when a retry can succeed).',
      }),
      message: t.String(),
      param: t.Optional(t.String()),
      decline_code: t.Optional(t.String({ description: 'For a card_error: why the card was declined' })),
      payment_intent: t.Optional(
        t.Object(
          { id: t.String(), status: t.String() },
          { description: 'For an error about a payment intent (a decline, a confirm or update in the wrong status): its id and status now' },
        ),
      ),
      request_id: t.Optional(t.String()),
    }),
  },
  { $id: '#/components/schemas/Error', description: 'Every failure is answered in this shape.' },
);

/**
 * Shared models, registered once: the OpenAPI document lists them under components.schemas and routes refer to
 * them by name (`$ref`), so the SDK's generated types get `components['schemas']['Error']`. Every route module
 * `.use()`s this (a named plugin, so it is applied once) before naming a model.
 */
export const sharedModels = new Elysia({ name: 'bpay-models' }).model({
  Error: ErrorResponse,
  PaymentIntent: PaymentIntentModel,
  Refund: RefundModel,
  Event: EventModel,
  WebhookEndpoint: WebhookEndpointModel,
  WebhookDelivery: WebhookDeliveryModel,
});

/** Standard error responses, merged into a route's `response` map: each a reference to the Error model. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, 'Error' as const])) as Record<number, 'Error'>;

/** OpenAPI security of cookie-authenticated routes (set on each consumer module; public routes override it with []). */
export const SESSION_SECURITY = [{ sessionCookie: [] as string[] }];
/** Routes that need no credential. */
export const PUBLIC_SECURITY: Array<Record<string, string[]>> = [];

/**
 * `?language=`: the language of the screen asking, for the text bpay writes into the answer (descriptions, reasons,
 * notices). Absent: the account's language. A screen's language can differ from the account's (a browser that
 * remembers Arabic from an earlier visit while the account says English): the screen's wins for what it shows.
 * Not UnionEnum: its first value would become a default and hide the account's language.
 */
export const ScreenLanguage = t.Optional(
  t.Union([t.Literal('en'), t.Literal('ar')], {
    error: 'language must be one of: en, ar.',
    description: "The language to write bpay's own text in (the screen's); your account's language by default",
  }),
);

/** The optional Idempotency-Key header of the consumer's money POSTs. */
export const IdempotencyHeader = t.Object({
  'idempotency-key': t.Optional(t.String({ description: 'Makes a retried POST safe: the first answer is replayed for 24 hours.' })),
});

type ResponseObject = { description: string; content?: Record<string, { schema: Record<string, unknown> }> };

/**
 * OpenAPI responses for a route that answers a raw Response (file bytes, CSV, an event stream), whose 200 a
 * TypeBox model cannot describe. Use as `detail.responses` with no `response` hook (a hook would replace them):
 * the 200 is given here and each error status refers to the Error model.
 */
export function rawResponses(ok: ResponseObject, ...statuses: number[]): Record<string, ResponseObject> {
  return {
    200: ok,
    ...Object.fromEntries(
      statuses.map((s) => [
        String(s),
        { description: `Error (status ${s})`, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      ]),
    ),
  };
}

/** A document's bytes as served: JPEG, PNG or PDF. */
export const BINARY_DOCUMENT: ResponseObject = {
  description: "The file, with its detected content type, as an attachment named with that type's extension (nosniff, sandboxed, not cached)",
  content: Object.fromEntries(
    ['image/jpeg', 'image/png', 'application/pdf'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
  ),
};
