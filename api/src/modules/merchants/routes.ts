import { Elysia, t } from 'elysia';
import { ENVIRONMENTS, PLATFORM_TYPES } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { errors, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { KEY_GRACE_PERIOD_NAMES, createMerchant, getOwnedMerchant, listMerchants, ownedUsage, rollSecretKey, updateMerchant } from './service';
import { countIntents, listIntents } from '../payment-intents/service';
import { PaymentIntentList, UsageModel } from '../payment-intents/model';
import { nameText } from '../../lib/text';
import { invalid } from '../../errors';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';

export const MerchantModel = t.Object(
  {
    id: t.String(),
    businessName: t.String(),
    businessEmail: t.String(),
    website: t.Union([t.String(), t.Null()]),
    platformType: t.UnionEnum(PLATFORM_TYPES),
    environment: t.UnionEnum(ENVIRONMENTS),
    isActive: t.Boolean(),
    totalVolume: t.String({ description: 'All-time received, in dollars' }),
    createdAt: t.String({ format: 'date-time' }),
    apiKey: t.String({ description: 'The publishable key (pk_test_… / pk_live_…)' }),
    publicApiKey: t.String(),
    secretKeyHint: t.String({ description: 'The secret key with only its last 4 characters' }),
    secretKeyRolledAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    previousSecretKeyHint: t.Union([t.String(), t.Null()], {
      description: 'The key the last roll replaced, while it still works (its last 4 characters); null otherwise',
    }),
    previousSecretKeyExpiresAt: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'When that key stops working' }),
  },
  { $id: '#/components/schemas/Merchant' },
);

const WithSecret = t.Composite([
  MerchantModel,
  t.Object({ secretApiKey: t.String({ description: 'Shown this once; bpay keeps only a hash.' }) }),
]);

/** A roll's answer: the new key, except on the replay of an Idempotency-Key (the key cannot be shown twice). */
const Rolled = t.Composite([
  MerchantModel,
  t.Object({
    secretApiKey: t.Optional(
      t.String({
        description:
          'The new key, shown this once (bpay keeps only a hash). Absent when the answer replays an Idempotency-Key: that roll happened, and its key cannot be shown again.',
      }),
    ),
  }),
]);

const INCLUDE_ERROR = 'include[] may only be total_count.';
/** include[] names extra figures for the answer; total_count is the only one. (A literal in the schema would fail a
 * single wrong value before validation, without naming the parameter.) */
function wantsTotalCount(include: string[] | undefined): boolean {
  if (include === undefined) return false;
  if (include.some((v) => v !== 'total_count')) throw invalid('include[]', INCLUDE_ERROR);
  return include.length > 0;
}
/** The API's list, and with include[]=total_count how many intents the account has in its mode. */
const DashboardIntentList = t.Object({
  ...PaymentIntentList.properties,
  total_count: t.Optional(t.Integer({ description: 'Every payment intent of the account in its mode (only with include[]=total_count)' })),
});

/** Elysia's t.UnionEnum defaults to its first value: an optional field left out would silently become it. */
const noDefault = { default: undefined };

const email = t.String({ format: 'email', maxLength: 254, error: 'businessEmail must be a valid email address.' });

export function merchantRoutes(deps: AppDeps) {
  return new Elysia({ prefix: '/api/merchants', tags: ['Merchants'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .post(
      '',
      async ({ user, body, set }) => {
        set.status = 201;
        return createMerchant(deps, user.id, body);
      },
      {
        auth: true,
        parse: 'json',
        body: t.Object(
          {
            businessName: nameText('businessName', 120),
            businessEmail: email,
            website: t.Optional(t.Union([t.String({ maxLength: 300 }), t.Null()])),
            platformType: t.Optional(t.UnionEnum(PLATFORM_TYPES, { ...noDefault, error: 'platformType must be shopify, wordpress, woocommerce or custom.' })),
            environment: t.Optional(t.UnionEnum(ENVIRONMENTS, { ...noDefault, error: 'environment must be sandbox or production.' })),
          },
          {
            additionalProperties: false,
            examples: [
              { businessName: 'Acme Shop', businessEmail: 'billing@acme.example', website: 'https://acme.example', platformType: 'shopify', environment: 'sandbox' },
            ],
          },
        ),
        response: { 201: WithSecret, ...errors(400, 401, 403, 415) },
        detail: {
          summary: 'Create a merchant account with its API keys (the secret key is shown only here)',
          description:
            'Creates a merchant account for the signed-in user, in sandbox or production, with a publishable key ' +
            'and a secret key. The secret key is in this answer only; no money moves.',
        },
      },
    )
    .get('', ({ user }) => listMerchants(deps, user.id), {
      auth: true,
      response: { 200: t.Array(MerchantModel), ...errors(401) },
      detail: {
        summary: 'Your merchant accounts',
        description:
          "The signed-in user's merchant accounts with their mode (sandbox or production), publishable key and a " +
          'hint of the secret key (its last 4 characters). Read only.',
      },
    })
    .patch('/:id', ({ user, params, body }) => updateMerchant(deps, user.id, params.id, body), {
      auth: true,
      parse: 'json',
      params: t.Object({ id: t.String() }),
      body: t.Object(
        {
          businessName: t.Optional(nameText('businessName', 120)),
          businessEmail: t.Optional(email),
          website: t.Optional(t.Union([t.String({ maxLength: 300 }), t.Null()])),
          platformType: t.Optional(t.UnionEnum(PLATFORM_TYPES, noDefault)),
          isActive: t.Optional(t.Boolean()),
        },
        {
          additionalProperties: false,
          description: 'The environment cannot change: keys and objects belong to one mode.',
          examples: [{ businessName: 'Acme Shop Ltd', website: 'https://shop.acme.example' }, { isActive: false }],
        },
      ),
      response: { 200: MerchantModel, ...errors(400, 401, 403, 404, 415) },
      detail: {
        summary: 'Edit a merchant account',
        description:
          "Changes a merchant account's business name, e-mail, website or platform, or turns it off and on " +
          '(isActive). Only its owner; the mode (sandbox or production) never changes. No money moves.',
      },
    })
    .post(
      '/:id/roll-secret',
      async ({ user, params, body, headers, request }) => {
        // Under the Idempotency-Key: a retried roll (its answer lost) replays instead of rolling again, which would stop
        // the key the first roll left working for its grace. The stored answer never holds the new key.
        let secret: string | undefined;
        const outcome = await runIdempotent(
          { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret },
          { scope: `user:${user.id}`, key: headers['idempotency-key'] ?? null, method: 'POST', path: new URL(request.url).pathname, body: body ?? {} },
          async () => {
            const { secretApiKey, ...stored } = await rollSecretKey(deps, user.id, params.id, body?.expire_old_key_in);
            secret = secretApiKey;
            return { status: 200, body: stored };
          },
        );
        const shown = outcome.status === 200 && !outcome.replayed ? { ...outcome, body: { ...(outcome.body as object), secretApiKey: secret } } : outcome;
        return idempotentResponse(shown);
      },
      {
      auth: true,
      parse: 'json',
      headers: t.Object({ 'idempotency-key': t.Optional(t.String({ description: 'Makes a retried roll safe: it replays the first answer (without the key) for 24 hours.' })) }),
      params: t.Object({ id: t.String() }),
      body: t.Optional(
        t.Object(
          {
            expire_old_key_in: t.Optional(
              t.UnionEnum(KEY_GRACE_PERIOD_NAMES, {
                ...noDefault,
                error: `expire_old_key_in must be one of ${KEY_GRACE_PERIOD_NAMES.join(', ')}.`,
                description: 'How long the replaced key keeps working: now (the default), 1h, 24h or 7d',
              }),
            ),
          },
          { additionalProperties: false, examples: [{}, { expire_old_key_in: '24h' }] },
        ),
      ),
      response: { 200: Rolled, ...errors(400, 401, 403, 404, 409, 415) },
      detail: {
        summary: 'Roll the secret key: the new one is shown once; the old one stops now or after the grace period chosen',
        description:
          'expire_old_key_in (now, 1h, 24h, 7d; now by default) keeps the replaced key working that long. There is ' +
          'one previous key only: rolling again while it is still in its grace replaces it, and it stops working at once. ' +
          'With an Idempotency-Key a retry replays the first answer, without the key (only its hash is kept).',
      },
      },
    )
    .get('/:id/usage', ({ user, params }) => ownedUsage(deps, user.id, params.id), {
      auth: true,
      params: t.Object({ id: t.String() }),
      response: { 200: UsageModel, ...errors(401, 404) },
      detail: {
        summary: "A merchant's API requests today and this month (for the dashboard)",
        description:
          "How many API requests one of the signed-in user's merchant accounts made today (UTC) and this month, " +
          'for the dashboard. Read only.',
      },
    })
    .get(
      '/:id/payment_intents',
      async ({ user, params, query }) => {
        const m = await getOwnedMerchant(deps, user.id, params.id);
        const livemode = m.environment === 'production';
        const page = await listIntents(deps, m, livemode, {
          limit: query.limit ?? 10,
          starting_after: query.starting_after,
        });
        return wantsTotalCount(query['include[]']) ? { ...page, total_count: await countIntents(deps, m, livemode) } : page;
      },
      {
        auth: true,
        params: t.Object({ id: t.String() }),
        query: t.Object({
          limit: t.Optional(t.Numeric({ minimum: 1, maximum: 100 })),
          starting_after: t.Optional(t.String()),
          'include[]': t.Optional(
            t.Array(t.String({ maxLength: 32 }), {
              maxItems: 5,
              error: INCLUDE_ERROR,
              description: "Stripe's include[]=total_count: the answer also counts every payment intent of the account's mode",
            }),
          ),
        }),
        response: { 200: DashboardIntentList, ...errors(400, 401, 404) },
        detail: {
          summary: "A merchant's payment intents (for the dashboard; the same list as GET /api/v1/payment_intents)",
          description:
            "The payment intents of one of the signed-in user's merchant accounts, newest first: the same list " +
            'and paging as GET /api/v1/payment_intents, for the dashboard (session cookie instead of a secret ' +
            'key). Read only.',
        },
      },
    );
}
