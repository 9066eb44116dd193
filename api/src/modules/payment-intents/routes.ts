import { Elysia, t } from 'elysia';
import { laggingReads, type AppDeps } from '../../deps';
import { invalid } from '../../errors';
import { errors, sharedModels } from '../../models';
import { PaymentIntentList, PaymentIntentSearchResult, UsageModel } from './model';
import { searchIntents } from './search';
import { updateIntent } from './update';
import { CREATED_QUERY, parseCreatedFilter } from '../../lib/created-filter';
import { merchantAuthPlugin } from '../../plugins/merchant-auth';
import { usageOf } from '../merchants/service';
import { merchantIdempotency, merchantIdempotencyAtomic, merchantIdempotencyUnit } from '../webhooks/idempotent';
import { CANCELLATION_REASONS, cancelIntent, captureIntent, confirmIntent } from './payment';
import { createAndConfirmIntent, paymentMethodOf } from './create';
import { refuseUnsupportedCreateParameters } from './parameters';
import { getIntent, listIntents, recordIntentUnit, toIntentObject } from './service';
import { expandsAsked } from '../../lib/expand';
import { chargeOfIntent } from '../charges/service';

const Id = t.Object({ id: t.String({ maxLength: 64 }) });
/** A JSON integer. Elysia's t.Integer also accepts a numeric string ("100"), which this API refuses. */
const int = (options: Parameters<typeof t.Number>[0] = {}) => t.Number({ multipleOf: 1, ...options });
/** Elysia's t.UnionEnum defaults to its first value: an optional field left out would silently become it. */
const noDefault = { default: undefined };
/** A bcard's details as a checkout form sends them (Stripe's payment_method_data), on confirm and on create with confirm: true. */
const CardData = t.Object(
  {
    type: t.Literal('card'),
    card: t.Object(
      {
        number: t.String({ pattern: '^[0-9 ]{12,23}$', error: 'payment_method_data.card.number must be 12 to 19 digits.' }),
        exp_month: int({ minimum: 1, maximum: 12 }),
        exp_year: int({ minimum: 0, maximum: 2100 }),
        cvc: t.String({ pattern: '^[0-9]{3,4}$', error: 'payment_method_data.card.cvc must be 3 or 4 digits.' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'A bcard as a checkout form sends it' },
);
/**
 * The create's transform hook: Stripe parameters bpay does not take, refused in words before validation. A named
 * function with its own parameter type: an inline one, inferred from the route, made the app's types too deep for
 * the compiler (TS2589 at createApp).
 */
const refuseUnsupported = (ctx: { body: unknown }): void => refuseUnsupportedCreateParameters(ctx.body);
const IdempotencyKey = t.Object({
  'idempotency-key': t.Optional(t.String({ description: 'Makes a retried POST safe: the first answer is replayed for 24 hours.' })),
});

export function paymentIntentRoutes(deps: AppDeps) {
  // Lists, history and figures read where they may lag (issue 30 §3); money decisions never do.
  const lagging = laggingReads(deps);
  /** Every POST runs under the merchant's Idempotency-Key scope. */
  const idempotent = merchantIdempotency(deps);
  const idempotentInOneCommit = merchantIdempotencyAtomic(deps);
  const idempotentAsOneUnit = merchantIdempotencyUnit(deps);

  return new Elysia({ prefix: '/api/v1', tags: ['Payment intents'] })
    .use(sharedModels)
    .use(merchantAuthPlugin(deps))
    .post(
      '/payment_intents',
      ({ merchant, livemode, body, headers, request }) =>
        body.confirm === true
          ? // Created and confirmed in one call: the confirm's processor work is outside any one transaction, as confirm's.
            idempotent(merchant.id, request, headers['idempotency-key'], body, (scopedKey) => createAndConfirmIntent(deps, merchant, livemode, body, scopedKey))
          : // The intent, its event and its Idempotency-Key's record: one unit of work as data, one commit (issues 14, 30).
            idempotentAsOneUnit(merchant.id, request, headers['idempotency-key'], body, (unit) => recordIntentUnit(unit, deps, merchant, livemode, body)),
      {
        merchant: true,
        parse: 'json',
        headers: IdempotencyKey,
        // Stripe's parameters bpay knows and does not take are refused in words before validation (parameters.ts).
        transform: refuseUnsupported,
        body: t.Object(
          {
            amount: int({ minimum: 50, maximum: 99_999_999, error: 'amount must be an integer number of cents from 50 to 99999999.' }),
            currency: t.String({ pattern: '^[Uu][Ss][Dd]$', error: 'currency must be usd.' }),
            description: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Null()])),
            metadata: t.Optional(t.Record(t.String(), t.String({ maxLength: 500 }), { error: 'metadata must be an object of string values.' })),
            capture_method: t.Optional(t.UnionEnum(['automatic', 'manual'], { ...noDefault, error: 'capture_method must be automatic or manual.' })),
            confirm: t.Optional(t.Boolean({ description: 'true: create and confirm in one call, with payment_method or payment_method_data (a decline answers as confirm does, and the intent stays)' })),
            payment_method: t.Optional(t.String({ maxLength: 64, description: 'With confirm: true, a bcard id issued for this merchant (as confirm takes it)' })),
            payment_method_data: t.Optional(CardData),
            automatic_payment_methods: t.Optional(
              t.Object(
                {
                  enabled: t.Boolean({ error: 'automatic_payment_methods[enabled] must be true or false.' }),
                  allow_redirects: t.Optional(t.UnionEnum(['always', 'never'], { ...noDefault, error: 'automatic_payment_methods[allow_redirects] must be always or never.' })),
                },
                { additionalProperties: false, description: 'Accepted and reflected on the intent: bcards are the one method either way, and they never redirect' },
              ),
            ),
            payment_method_types: t.Optional(
              t.Array(t.String({ maxLength: 64 }), { maxItems: 20, description: 'bcard, or card (Stripe\'s name for it): bcards are the one method; any other type is refused by name' }),
            ),
            receipt_email: t.Optional(t.Union([t.String({ maxLength: 512 }), t.Null()], { error: 'receipt_email must be an e-mail address of at most 512 characters.' })),
            statement_descriptor: t.Optional(
              t.String({ maxLength: 22, description: "5 to 22 Latin characters, at least one letter, none of < > \\ ' \" *: shown (in capitals) on the consumer's transaction", error: "statement_descriptor must be 5 to 22 Latin characters, with at least one letter and none of < > \\ ' \" *." }),
            ),
            statement_descriptor_suffix: t.Optional(
              t.String({ maxLength: 22, description: "Shown after your prefix (your business name's first 10 letters): PREFIX* SUFFIX, 22 characters in all", error: "statement_descriptor_suffix must be 1 to 22 Latin characters, with at least one letter and none of < > \\ ' \" *." }),
            ),
            customer: t.Optional(t.String({ maxLength: 64, description: 'A customer of yours (cus_…), not deleted' })),
            return_url: t.Optional(t.String({ maxLength: 2048, description: 'Accepted and unused: a bcard payment never redirects' })),
          },
          {
            additionalProperties: false,
            examples: [
              { amount: 5000, currency: 'usd', description: 'Order #42', metadata: { order_id: '42' } },
              { amount: 5000, currency: 'usd', automatic_payment_methods: { enabled: true }, confirm: true, payment_method: 'bc_5d1f0a9e2c7b4a3f8e6d1c0b' },
            ],
          },
        ),
        response: { 200: 'PaymentIntent', ...errors(400, 401, 402, 403, 409, 415, 429) },
        detail: {
          summary: 'Create a payment intent',
          description:
            "Stripe's quickstart parameters are taken with bpay's meaning: confirm: true with payment_method (a bcard id) or " +
            'payment_method_data.card creates and pays in one call (a decline is 402 card_error as confirm answers it, and the ' +
            'intent stays requires_payment_method); automatic_payment_methods[enabled] is reflected; payment_method_types takes ' +
            "only bcard or card; receipt_email, customer and the statement descriptors are kept and answered. Stripe parameters " +
            'bpay does not take (setup_future_usage, off_session, application_fee_amount, transfer_data, on_behalf_of, shipping, ' +
            'payment_method_options, confirmation_method, mandate, radar_options …) are refused by name, saying why.',
          security: [{ secretKey: [] }],
        },
      },
    )
    .get(
      '/payment_intents',
      ({ merchant, livemode, query, request }) =>
        listIntents(lagging, merchant, livemode, {
          limit: query.limit ?? 10,
          starting_after: query.starting_after,
          ending_before: query.ending_before,
          created: parseCreatedFilter(new URL(request.url).searchParams),
        }),
      {
        merchant: true,
        query: t.Object({
          // The range is checked by listIntents (a range error here would name no param).
          limit: t.Optional(t.Numeric({ description: 'An integer from 1 to 100 (10 if left out)', error: 'limit must be an integer from 1 to 100.' })),
          starting_after: t.Optional(t.String({ maxLength: 64 })),
          ending_before: t.Optional(t.String({ maxLength: 64 })),
          ...CREATED_QUERY,
        }),
        response: { 200: PaymentIntentList, ...errors(400, 401, 403, 429) },
        detail: {
          summary: 'List payment intents, newest first',
          description: 'created (Unix seconds) or created[gte|gt|lte|lt] keeps only intents created then.',
          security: [{ secretKey: [] }],
        },
      },
    )
    // Before /payment_intents/:id, so "search" is never read as an intent's id.
    .get(
      '/payment_intents/search',
      ({ merchant, livemode, query, request }) =>
        searchIntents(lagging, merchant, livemode, {
          // Every query given (the validator keeps the last of a repeated one): more than one is refused.
          query: new URL(request.url).searchParams.getAll('query'),
          limit: query.limit ?? 10,
          page: query.page,
        }),
      {
        merchant: true,
        query: t.Object({
          // Checked by searchIntents, which names query when it is missing (the validator's error would not).
          query: t.Optional(
            t.String({
              description: "Required. Stripe's search query language: status, amount, currency, created and metadata['key'], e.g. status:'succeeded' AND metadata['order']:'42'",
            }),
          ),
          limit: t.Optional(t.Numeric({ description: 'An integer from 1 to 100 (10 if left out)', error: 'limit must be an integer from 1 to 100.' })),
          page: t.Optional(t.String({ maxLength: 200, description: "The previous answer's next_page", error: 'page is not a page of this search: give the next_page of the previous answer.' })),
        }),
        response: { 200: PaymentIntentSearchResult, ...errors(400, 401, 403, 429) },
        detail: {
          summary: "Search payment intents with Stripe's query language",
          description:
            "Clauses field:value joined by spaces or AND, or by OR (not both). status and currency take ':' (equals); amount " +
            "and created (Unix seconds) take ':', '=', '>', '<', '>=', '<='; metadata['key'] takes ':' (equals), '~' (contains, " +
            "3 characters or more) and :null (no such key). A leading - negates a clause; values are quoted with ' or \" " +
            '(a backslash escapes a quote). At most 10 clauses. Newest first; pass next_page as page for the next page. ' +
            'Each request reads at most 1,000 of your intents (1,000 divided by the number of metadata clauses, when it has ' +
            'some): a page may hold fewer than limit (even none) with has_more ' +
            'true, and next_page goes on with the older ones (Stripe\'s libraries follow it). ' +
            'Unlike Stripe, results are up to date at once (no indexing delay).',
          security: [{ secretKey: [] }],
        },
      },
    )
    .get(
      '/payment_intents/:id',
      async ({ merchant, livemode, params, request }) => {
        const pi = await getIntent(deps, merchant, livemode, params.id);
        const object = toIntentObject(pi);
        // The one expansion a merchant route answers (lib/expand.ts refused any other before this ran).
        if (expandsAsked(new URL(request.url).searchParams).includes('latest_charge')) object.latest_charge = await chargeOfIntent(deps.db, pi);
        return object;
      },
      {
        merchant: true,
        params: Id,
        response: { 200: 'PaymentIntent', ...errors(400, 401, 403, 404, 429) },
        detail: {
          summary: 'Retrieve a payment intent',
          description:
            'expand[]=latest_charge answers the Charge object in latest_charge (with its allocations: how the bcard was funded) ' +
            'instead of its id, as Stripe does; any other expand is a 400 naming expand[i].',
          security: [{ secretKey: [] }],
        },
      },
    )
    .post(
      '/payment_intents/:id',
      ({ merchant, livemode, params, body, headers, request }) =>
        // The update and its Idempotency-Key's record commit together, as create's do.
        idempotentInOneCommit(merchant.id, request, headers['idempotency-key'], body, (tx) => updateIntent(tx, deps, merchant, livemode, params.id, body ?? {})),
      {
        merchant: true,
        parse: 'json',
        params: Id,
        headers: IdempotencyKey,
        body: t.Optional(
          t.Object(
            {
              amount: t.Optional(int({ minimum: 50, maximum: 99_999_999, error: 'amount must be an integer number of cents from 50 to 99999999.' })),
              currency: t.Optional(t.String({ pattern: '^[Uu][Ss][Dd]$', error: 'currency must be usd.' })),
              description: t.Optional(
                t.Union([t.String({ maxLength: 1000 }), t.Null()], {
                  error: 'description must be a string of at most 1000 characters; null or "" removes it.',
                }),
              ),
              metadata: t.Optional(
                t.Union([t.Record(t.String(), t.String({ maxLength: 500 })), t.Literal(''), t.Null()], {
                  error:
                    'metadata must be an object of string values of at most 500 characters (a key set to "" is removed), ' +
                    'or "" (or null) to remove every key.',
                  description: 'Merged into the current metadata: a key set to "" is removed; metadata "" removes every key.',
                }),
              ),
              capture_method: t.Optional(t.UnionEnum(['automatic', 'manual'], { ...noDefault, error: 'capture_method must be automatic or manual.' })),
              customer: t.Optional(t.String({ maxLength: 64, description: 'A customer of yours (cus_…), not deleted; "" removes it' })),
              receipt_email: t.Optional(t.Union([t.String({ maxLength: 512 }), t.Null()], { error: 'receipt_email must be an e-mail address of at most 512 characters; null or "" removes it.' })),
              statement_descriptor: t.Optional(t.String({ maxLength: 22, description: '"" removes it', error: "statement_descriptor must be 5 to 22 Latin characters, with at least one letter and none of < > \\ ' \" *; \"\" removes it." })),
              statement_descriptor_suffix: t.Optional(t.String({ maxLength: 22, description: '"" removes it', error: "statement_descriptor_suffix must be 1 to 22 Latin characters, with at least one letter and none of < > \\ ' \" *; \"\" removes it." })),
            },
            {
              additionalProperties: false,
              examples: [{ amount: 6000, description: 'Order #42 (2 items)', metadata: { order_id: '42', coupon: '' } }],
            },
          ),
        ),
        response: { 200: 'PaymentIntent', ...errors(400, 401, 403, 404, 409, 415, 429) },
        detail: {
          summary: 'Update a payment intent before it is paid',
          description:
            'Changes amount, currency (usd), description, metadata, capture_method, customer, receipt_email or the statement descriptors while the intent is ' +
            'requires_payment_method or requires_confirmation; otherwise 400 payment_intent_unexpected_state naming its ' +
            'status. metadata is merged as Stripe merges it. Emits no event.',
          security: [{ secretKey: [] }],
        },
      },
    )
    .post(
      '/payment_intents/:id/confirm',
      ({ merchant, livemode, params, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body, () => {
          const pm = paymentMethodOf(body);
          if (!pm) throw invalid('payment_method', 'Give payment_method (a bcard id) or payment_method_data.card (number, exp_month, exp_year, cvc).');
          return confirmIntent(deps, merchant, livemode, params.id, pm);
        }),
      {
        merchant: true,
        parse: 'json',
        params: Id,
        headers: IdempotencyKey,
        body: t.Object(
          {
            payment_method: t.Optional(t.String({ maxLength: 64, description: 'A bcard id issued for this merchant (the checkout widget)' })),
            payment_method_data: t.Optional(CardData),
          },
          {
            additionalProperties: false,
            description: 'Give payment_method (a bcard id locked to your merchant) or payment_method_data.card.',
            examples: [
              { payment_method_data: { type: 'card', card: { number: '4000009123456789', exp_month: 12, exp_year: 2027, cvc: '123' } } },
              { payment_method: 'bc_5d1f0a9e2c7b4a3f8e6d1c0b' },
            ],
          },
        ),
        response: { 200: 'PaymentIntent', ...errors(400, 401, 402, 403, 404, 409, 415, 429) },
        detail: {
          summary: 'Confirm a payment intent with a bcard',
          description: 'A decline answers 402 card_error with decline_code, and the intent returns to requires_payment_method.',
          security: [{ secretKey: [] }],
        },
      },
    )
    .post(
      '/payment_intents/:id/capture',
      ({ merchant, livemode, params, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body, () =>
          captureIntent(deps, merchant, livemode, params.id, body?.amount_to_capture),
        ),
      {
        merchant: true,
        parse: 'json',
        params: Id,
        headers: IdempotencyKey,
        body: t.Optional(
          t.Object({ amount_to_capture: t.Optional(int({ minimum: 1 })) }, { additionalProperties: false, examples: [{}, { amount_to_capture: 1500 }] }),
        ),
        response: { 200: 'PaymentIntent', ...errors(400, 401, 403, 404, 409, 415, 429) },
        detail: {
          summary: 'Capture an authorized payment intent (capture_method manual)',
          description:
            'Captures a payment intent authorized with capture_method manual: the whole amount, or a smaller ' +
            'amount_to_capture. Needs a secret key; honours an Idempotency-Key; 409 when the intent is not ' +
            'waiting for capture.',
          security: [{ secretKey: [] }],
        },
      },
    )
    .post(
      '/payment_intents/:id/cancel',
      ({ merchant, livemode, params, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body, () =>
          cancelIntent(deps, merchant, livemode, params.id, body?.cancellation_reason ?? null),
        ),
      {
        merchant: true,
        parse: 'json',
        params: Id,
        headers: IdempotencyKey,
        body: t.Optional(
          t.Object(
            { cancellation_reason: t.Optional(t.UnionEnum(CANCELLATION_REASONS, { ...noDefault, error: `cancellation_reason must be one of ${CANCELLATION_REASONS.join(', ')}.` })) },
            { additionalProperties: false, examples: [{}, { cancellation_reason: 'requested_by_customer' }] },
          ),
        ),
        response: { 200: 'PaymentIntent', ...errors(400, 401, 403, 404, 409, 415, 429) },
        detail: {
          summary: 'Cancel a payment intent (an authorized bcard is refunded)',
          description:
            'Cancels a payment intent that is not paid yet; for one authorized and not captured (capture_method ' +
            "manual), the consumer's bcard is refunded. Needs a secret key; honours an Idempotency-Key; 409 in a " +
            'status that cannot be canceled.',
          security: [{ secretKey: [] }],
        },
      },
    )
    .get('/merchant/usage', ({ merchant }) => usageOf(deps, merchant), {
      merchant: true,
      response: { 200: UsageModel, ...errors(401, 403, 429) },
      detail: {
        summary: "This merchant's API requests today and this month",
        description:
          'How many API requests this merchant made today (UTC) and this month. Needs a secret key; read only.',
        security: [{ secretKey: [] }],
      },
    });
}
