import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, sharedModels } from '../../models';
import { merchantAuthPlugin } from '../../plugins/merchant-auth';
import { endpointSecretIdempotency, merchantIdempotency } from './idempotent';
import {
  CreateEndpointBody,
  EndpointDeleted,
  IdempotencyKey,
  ListQuery,
  RollSecretBody,
  UpdateEndpointBody,
  WebhookEndpointModel,
  listOf,
} from './model';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rollEndpointSecret,
  toEndpointObject,
  updateEndpoint,
} from './service';

const Id = t.Object({ id: t.String({ maxLength: 64 }) });
const security = [{ secretKey: [] }];

/** What a roll does, for both the API route and the dashboard's. */
export const ROLL_DESCRIPTION =
  'expire_old_secret_in (now, 1h, 24h; now by default) keeps the replaced secret signing deliveries that long beside ' +
  'the new one: Bpay-Signature and Stripe-Signature then carry two v1= values, the new secret\'s first, and verifiers ' +
  '(stripe.webhooks.constructEvent, the SDK\'s) accept either, so the receiver can switch secrets at any time within ' +
  'it. There is one previous secret only: rolling again while it is in its grace replaces it, and it stops at once. ' +
  'With an Idempotency-Key a retry replays the first answer with the current secret.';

/** The merchant API's webhook endpoints (Authorization: Bearer sk_…), scoped to the key's merchant and mode. */
export function webhookEndpointRoutes(deps: AppDeps) {
  const idempotent = merchantIdempotency(deps);
  /** Create and roll answer the signing secret, which the Idempotency-Key record must not keep. */
  const withSecret = endpointSecretIdempotency(deps);
  /** The update's hook, the same for both verbs. */
  const updateHook = (summary: string) =>
    ({
      merchant: true,
      parse: 'json',
      params: Id,
      headers: IdempotencyKey,
      body: UpdateEndpointBody,
      response: { 200: 'WebhookEndpoint', ...errors(400, 401, 403, 404, 409, 415, 429) },
      detail: {
        summary,
        description:
          'disabled: true stops deliveries (pending ones end as failed); disabled: false enables it again, also ' +
          'after bpay disabled it for failing.',
        security,
      },
    }) as const;
  return new Elysia({ prefix: '/api/v1', tags: ['Webhook endpoints'] })
    .use(sharedModels)
    .use(merchantAuthPlugin(deps))
    .post(
      '/webhook_endpoints',
      ({ merchant, livemode, body, headers, request }) =>
        withSecret(merchant.id, request, headers['idempotency-key'], body, () => createEndpoint(deps, merchant, livemode, body)),
      {
        merchant: true,
        parse: 'json',
        headers: IdempotencyKey,
        body: CreateEndpointBody,
        response: { 200: 'WebhookEndpoint', ...errors(400, 401, 403, 409, 415, 429) },
        detail: {
          summary: 'Create a webhook endpoint (the answer holds its signing secret, shown only here)',
          description:
            'In production the URL must be https and its host may not resolve to a loopback, private, link-local, ' +
            'unique-local, CGNAT, multicast or reserved address (400 url_not_allowed). Sandbox allows http and local addresses.',
          security,
        },
      },
    )
    .get(
      '/webhook_endpoints',
      ({ merchant, livemode, query }) =>
        listEndpoints(deps, merchant, livemode, { limit: query.limit ?? 10, starting_after: query.starting_after }),
      {
        merchant: true,
        query: ListQuery,
        response: { 200: listOf(WebhookEndpointModel), ...errors(400, 401, 403, 429) },
        detail: {
          summary: 'List webhook endpoints, newest first',
          description:
            "This merchant's webhook endpoints in the key's mode, with Stripe's list paging. Signing secrets are " +
            'not shown. Needs a secret key; read only.',
          security,
        },
      },
    )
    .get(
      '/webhook_endpoints/:id',
      async ({ merchant, livemode, params }) => toEndpointObject(await getEndpoint(deps, merchant, livemode, params.id)),
      {
        merchant: true,
        params: Id,
        response: { 200: 'WebhookEndpoint', ...errors(401, 403, 404, 429) },
        detail: {
          summary: 'Retrieve a webhook endpoint',
          description:
            "One of this merchant's webhook endpoints: its URL, events, status and description; the signing " +
            "secret is not shown. Needs a secret key; another merchant's is 404.",
          security,
        },
      },
    )
    // Stripe's libraries update with POST (stripe.webhookEndpoints.update); PATCH is bpay's own. One handler, two verbs.
    .patch(
      '/webhook_endpoints/:id',
      ({ merchant, livemode, params, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body, () => updateEndpoint(deps, merchant, livemode, params.id, body)),
      updateHook('Update a webhook endpoint'),
    )
    .post(
      '/webhook_endpoints/:id',
      ({ merchant, livemode, params, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body, () => updateEndpoint(deps, merchant, livemode, params.id, body)),
      updateHook("Update a webhook endpoint (POST, as Stripe's libraries send it: the same as PATCH)"),
    )
    .delete(
      '/webhook_endpoints/:id',
      ({ merchant, livemode, params }) => deleteEndpoint(deps, merchant, livemode, params.id),
      {
        merchant: true,
        params: Id,
        response: { 200: EndpointDeleted, ...errors(401, 403, 404, 429) },
        detail: {
          summary: 'Delete a webhook endpoint (and its delivery history)',
          description:
            "Deletes one of this merchant's webhook endpoints and its delivery history: no more events are sent " +
            "to it. Needs a secret key; another merchant's is 404.",
          security,
        },
      },
    )
    .post(
      '/webhook_endpoints/:id/roll_secret',
      ({ merchant, livemode, params, body, headers, request }) =>
        withSecret(merchant.id, request, headers['idempotency-key'], body ?? {}, () =>
          rollEndpointSecret(deps, merchant, livemode, params.id, body?.expire_old_secret_in),
        ),
      {
        merchant: true,
        parse: 'json',
        params: Id,
        headers: IdempotencyKey,
        body: RollSecretBody,
        response: { 200: 'WebhookEndpoint', ...errors(400, 401, 403, 404, 409, 415, 429) },
        detail: {
          summary: 'Roll the signing secret: the new whsec_… is shown once and signs every delivery from now on',
          description: ROLL_DESCRIPTION,
          security,
        },
      },
    );
}
