import { Elysia, t } from 'elysia';
import { laggingReads, type AppDeps } from '../../deps';
import { errors, sharedModels } from '../../models';
import { CREATED_QUERY, parseCreatedFilter } from '../../lib/created-filter';
import { merchantAuthPlugin } from '../../plugins/merchant-auth';
import { merchantIdempotencyAtomic } from '../webhooks/idempotent';
import { CreateCustomerBody, CustomerDeleted, CustomerList, CustomerModel, UpdateCustomerBody } from './model';
import { createCustomer, deleteCustomer, listCustomers, retrieveCustomer, updateCustomer } from './service';

const Id = t.Object({ id: t.String({ maxLength: 64 }) });
const security = [{ secretKey: [] }];
const IdempotencyKey = t.Object({
  'idempotency-key': t.Optional(t.String({ description: 'Makes a retried POST safe: the first answer is replayed for 24 hours.' })),
});

/** Stripe's Customers at /api/v1/customers (and /v1/customers), scoped to the key's merchant and mode. */
export function customerRoutes(deps: AppDeps) {
  // Lists, history and figures read where they may lag (issue 30 §3); money decisions never do.
  const lagging = laggingReads(deps);
  const idempotent = merchantIdempotencyAtomic(deps);
  return new Elysia({ prefix: '/api/v1', tags: ['Customers'] })
    .use(sharedModels)
    .use(merchantAuthPlugin(deps))
    .post(
      '/customers',
      ({ merchant, livemode, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body, (tx) => createCustomer(tx, deps, merchant, livemode, body ?? {})),
      {
        merchant: true,
        parse: 'json',
        headers: IdempotencyKey,
        body: CreateCustomerBody,
        response: { 200: CustomerModel, ...errors(400, 401, 403, 409, 415, 429) },
        detail: {
          summary: 'Create a customer',
          description: 'Every field is optional. A payment intent names the customer with customer: cus_… (it must be yours and not deleted).',
          security,
        },
      },
    )
    .get(
      '/customers',
      ({ merchant, livemode, query, request }) =>
        listCustomers(lagging, merchant, livemode, {
          limit: query.limit ?? 10,
          starting_after: query.starting_after,
          ending_before: query.ending_before,
          email: query.email,
          created: parseCreatedFilter(new URL(request.url).searchParams),
        }),
      {
        merchant: true,
        query: t.Object({
          limit: t.Optional(t.Numeric({ description: 'An integer from 1 to 100 (10 if left out)', error: 'limit must be an integer from 1 to 100.' })),
          starting_after: t.Optional(t.String({ maxLength: 64 })),
          ending_before: t.Optional(t.String({ maxLength: 64 })),
          email: t.Optional(t.String({ maxLength: 512, description: 'Only customers with exactly this e-mail address (case-sensitive)' })),
          ...CREATED_QUERY,
        }),
        response: { 200: CustomerList, ...errors(400, 401, 403, 429) },
        detail: {
          summary: 'List customers, newest first',
          description: 'Deleted customers are left out. email keeps only customers with that address; created (Unix seconds) or created[gte|gt|lte|lt] only those created then.',
          security,
        },
      },
    )
    .get('/customers/:id', ({ merchant, livemode, params }) => retrieveCustomer(deps, merchant, livemode, params.id), {
      merchant: true,
      params: Id,
      response: { 200: t.Union([CustomerModel, CustomerDeleted]), ...errors(401, 403, 404, 429) },
      detail: {
        summary: 'Retrieve a customer',
        description: 'A deleted customer answers { id, object: "customer", deleted: true }, as Stripe does; another merchant\'s id is 404.',
        security,
      },
    })
    .post(
      '/customers/:id',
      ({ merchant, livemode, params, body, headers, request }) =>
        idempotent(merchant.id, request, headers['idempotency-key'], body, (tx) => updateCustomer(tx, deps, merchant, livemode, params.id, body ?? {})),
      {
        merchant: true,
        parse: 'json',
        params: Id,
        headers: IdempotencyKey,
        body: UpdateCustomerBody,
        response: { 200: CustomerModel, ...errors(400, 401, 403, 404, 409, 415, 429) },
        detail: {
          summary: 'Update a customer',
          description: 'Sets the fields given (null or "" removes one); metadata is merged as Stripe merges it. A deleted customer is 404.',
          security,
        },
      },
    )
    .delete('/customers/:id', ({ merchant, livemode, params }) => deleteCustomer(deps, merchant, livemode, params.id), {
      merchant: true,
      params: Id,
      response: { 200: CustomerDeleted, ...errors(401, 403, 404, 429) },
      detail: {
        summary: 'Delete a customer',
        description: 'Its e-mail, name, phone, description and metadata are erased at once; intents that named it keep its id.',
        security,
      },
    });
}
