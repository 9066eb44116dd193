import { Elysia, t } from 'elysia';
import { REFUND_REASONS } from '@bpay/db';
import { laggingReads, type AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { errors, SESSION_SECURITY, sharedModels } from '../../models';
import { merchantAuthPlugin } from '../../plugins/merchant-auth';
import { sessionPlugin } from '../../plugins/session';
import { getOwnedMerchant } from '../merchants/service';
import { merchantIdempotency } from '../webhooks/idempotent';
import { CREATED_QUERY, parseCreatedFilter } from '../../lib/created-filter';
import { RefundList } from './model';
import { createRefund } from './service';
import { getRefund, listRefunds, type ListRefundsInput } from './objects';
import { updateRefund } from './update';

/** A JSON integer (Elysia's t.Integer also takes "100", which this API refuses). */
const int = (options: Parameters<typeof t.Number>[0] = {}) => t.Number({ multipleOf: 1, ...options });
/** Elysia's t.UnionEnum defaults to its first value: an optional field left out would silently become it. */
const noDefault = { default: undefined };
const IdempotencyKey = t.Object({
  'idempotency-key': t.Optional(t.String({ description: 'Makes a retried POST safe: the first answer is replayed for 24 hours.' })),
});

const CreateBody = t.Object(
  {
    payment_intent: t.String({ minLength: 1, maxLength: 64, error: 'payment_intent must be the id of a succeeded payment intent (pi_…).' }),
    amount: t.Optional(
      int({ minimum: 1, maximum: 99_999_999, error: 'amount must be an integer number of cents from 1 to what is left to refund.' }),
    ),
    reason: t.Optional(
      t.Union([t.UnionEnum(REFUND_REASONS, { ...noDefault }), t.Null()], {
        ...noDefault,
        error: `reason must be one of ${REFUND_REASONS.join(', ')}.`,
      }),
    ),
    metadata: t.Optional(
      t.Record(t.String({ minLength: 1, maxLength: 40 }), t.String({ maxLength: 500 }), {
        maxProperties: 50,
        error: 'metadata must be an object of at most 50 keys (1 to 40 characters) with string values of at most 500 characters.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ payment_intent: 'pi_3f2a9c1d0b7e6f5a4c3b2a19' }, { payment_intent: 'pi_3f2a9c1d0b7e6f5a4c3b2a19', amount: 500, reason: 'requested_by_customer' }],
  },
);

const UpdateBody = t.Optional(
  t.Object(
    {
      metadata: t.Optional(
        t.Union([t.Record(t.String(), t.String({ maxLength: 500 })), t.Literal(''), t.Null()], {
          error:
            'metadata must be an object of string values of at most 500 characters (a key set to "" is removed), ' +
            'or "" (or null) to remove every key.',
          description: 'Merged into the current metadata: a key set to "" is removed; metadata "" removes every key.',
        }),
      ),
    },
    { additionalProperties: false, examples: [{ metadata: { order_id: '42', note: '' } }] },
  ),
);

const ListQuery = t.Object({
  // The range is checked by listRefunds (a range error here would name no param).
  limit: t.Optional(t.Numeric({ description: 'An integer from 1 to 100 (10 if left out)', error: 'limit must be an integer from 1 to 100.' })),
  starting_after: t.Optional(t.String({ minLength: 1, maxLength: 64, error: 'starting_after must be the id of one of your refunds.' })),
  ending_before: t.Optional(t.String({ minLength: 1, maxLength: 64, error: 'ending_before must be the id of one of your refunds.' })),
  payment_intent: t.Optional(
    t.String({ minLength: 1, maxLength: 64, description: "Only this payment intent's refunds", error: 'payment_intent must be the id of one of your payment intents.' }),
  ),
  ...CREATED_QUERY,
});

const listInput = (
  q: { limit?: number; starting_after?: string; ending_before?: string; payment_intent?: string },
  request: Request,
): ListRefundsInput => ({
  limit: q.limit ?? 10,
  starting_after: q.starting_after,
  ending_before: q.ending_before,
  payment_intent: q.payment_intent,
  created: parseCreatedFilter(new URL(request.url).searchParams),
});

const CREATE_DESCRIPTION =
  'Refunds a succeeded payment intent, in full (no amount) or in part; several partial refunds may add up to the ' +
  'amount received, never more. The money goes back to the funding sources that paid, in the proportions they ' +
  "funded the bcard, with the matching part of the consumer's bpay fee. Answers the refund: succeeded, pending " +
  '(the processor did not answer; bpay finishes it) or failed (refused; nothing went back).';

/** The merchant API's refunds (secret key; also at /v1/refunds for Stripe's libraries). */
export function refundRoutes(deps: AppDeps) {
  const idempotent = merchantIdempotency(deps);
  return new Elysia({ prefix: '/api/v1', tags: ['Refunds'] })
    .use(sharedModels)
    .use(merchantAuthPlugin(deps))
    .post(
      '/refunds',
      ({ merchant, livemode, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body, (requestKey) => createRefund(deps, merchant, livemode, body, requestKey)),
      {
        merchant: true,
        parse: 'json',
        headers: IdempotencyKey,
        body: CreateBody,
        response: { 200: 'Refund', ...errors(400, 401, 403, 404, 409, 415, 429) },
        detail: { summary: 'Refund a payment intent', description: CREATE_DESCRIPTION, security: [{ secretKey: [] }] },
      },
    )
    .get('/refunds', ({ merchant, livemode, query, request }) => listRefunds(laggingReads(deps), merchant, livemode, listInput(query, request)), {
      merchant: true,
      query: ListQuery,
      response: { 200: RefundList, ...errors(400, 401, 403, 429) },
      detail: {
        summary: 'List refunds, newest first',
        description:
          "This merchant's refunds in the key's mode, newest first, with Stripe's list paging (limit, " +
          'starting_after, ending_before). Needs a secret key; read only.',
        security: [{ secretKey: [] }],
      },
    })
    .get('/refunds/:id', ({ merchant, livemode, params }) => getRefund(deps, merchant, livemode, params.id), {
      merchant: true,
      params: t.Object({ id: t.String({ maxLength: 64 }) }),
      response: { 200: 'Refund', ...errors(401, 403, 404, 429) },
      detail: {
        summary: 'Retrieve a refund',
        description:
          "One of this merchant's refunds (re_), with its status and failure_reason. Needs a secret key; another " +
          "merchant's or the other mode's refund is 404.",
        security: [{ secretKey: [] }],
      },
    })
    .post(
      '/refunds/:id',
      ({ merchant, livemode, params, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body ?? {}, () => updateRefund(deps, merchant, livemode, params.id, body ?? {})),
      {
        merchant: true,
        parse: 'json',
        params: t.Object({ id: t.String({ maxLength: 64 }) }),
        headers: IdempotencyKey,
        body: UpdateBody,
        response: { 200: 'Refund', ...errors(400, 401, 403, 404, 409, 415, 429) },
        detail: {
          summary: "Update a refund's metadata",
          description:
            "Stripe's refund update (stripe.refunds.update): metadata is merged into the refund's (a key set to \"\" is " +
            'removed; metadata "" removes every key), whatever its status. Nothing else about a refund changes. Emits no event.',
          security: [{ secretKey: [] }],
        },
      },
    );
}

/** The merchant dashboard's refunds: the same service, behind the owner's session (another user's merchant is a 404). */
export function refundDashboardRoutes(deps: AppDeps) {
  const idempotent = merchantIdempotency(deps);
  return new Elysia({ prefix: '/api/merchants', tags: ['Merchants'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .post(
      '/:id/refunds',
      async ({ user, params, body, headers, request }) => {
        const m = await getOwnedMerchant(deps, user.id, params.id);
        if (!m.isActive) throw new AppError('merchant_inactive');
        return idempotent(m.id, request, headers['idempotency-key'], body, (requestKey) =>
          createRefund(deps, m, m.environment === 'production', body, requestKey),
        );
      },
      {
        auth: true,
        parse: 'json',
        params: t.Object({ id: t.String() }),
        headers: IdempotencyKey,
        body: CreateBody,
        response: { 200: 'Refund', ...errors(400, 401, 403, 404, 409, 415, 429) },
        detail: { summary: "Refund one of a merchant's payments (the dashboard; the same as POST /api/v1/refunds)", description: CREATE_DESCRIPTION },
      },
    )
    .get(
      '/:id/refunds',
      async ({ user, params, query, request }) => {
        const m = await getOwnedMerchant(deps, user.id, params.id);
        return listRefunds(laggingReads(deps), m, m.environment === 'production', listInput(query, request), `/api/merchants/${m.id}/refunds`);
      },
      {
        auth: true,
        params: t.Object({ id: t.String() }),
        query: ListQuery,
        response: { 200: RefundList, ...errors(400, 401, 404) },
        detail: {
          summary: "A merchant's refunds (the dashboard; the same list as GET /api/v1/refunds)",
          description:
            "The refunds of one of the signed-in user's merchant accounts, newest first: the same list and paging " +
            'as GET /api/v1/refunds, for the dashboard (session cookie instead of a secret key). Read only.',
        },
      },
    );
}
