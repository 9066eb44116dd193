import { and, eq } from 'drizzle-orm';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { unseal } from '../../lib/crypto';
import { idempotentResponse, runIdempotent, runIdempotentAtomic, runIdempotentUnit } from '../../plugins/idempotency';
import type { WebhookEndpointObject } from './service';

/**
 * Runs a merchant's POST under its Idempotency-Key (scope `merchant:<id>`, shared with the payment intents API, so
 * a key can serve one request only) and turns the outcome into the answer, marking replays.
 */
export function merchantIdempotency(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return (
    merchantId: string,
    request: Request,
    key: string | undefined,
    body: unknown,
    /** `scopedKey` names this use of the key (`key#record`) and stays the same when a retry takes a dead request's key over. */
    run: (scopedKey: string | null) => Promise<unknown>,
    status = 200,
  ): Promise<Response> =>
    runIdempotent(idem, merchantRequest(merchantId, request, key, body), async (scopedKey) => ({ status, body: await run(scopedKey) })).then(
      idempotentResponse,
    );
}

/**
 * merchantIdempotency for a handler whose writes are all in the database (payment-intent update, customers): the key's
 * record and the handler's writes commit in one transaction (runIdempotentAtomic).
 */
export const merchantIdempotencyAtomic = (deps: AppDeps) => merchantIdempotencyIn(deps, runIdempotentAtomic);

/**
 * The same for a handler written as a unit of work as data (payment-intent create, issue 30): `run` records its writes
 * on the unit and reads, if it must, on the database before (runIdempotentUnit).
 */
export const merchantIdempotencyUnit = (deps: AppDeps) => merchantIdempotencyIn(deps, runIdempotentUnit);

function merchantIdempotencyIn(deps: AppDeps, runner: typeof runIdempotentAtomic) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return (
    merchantId: string,
    request: Request,
    key: string | undefined,
    body: unknown,
    run: (tx: DbOrTx) => Promise<unknown>,
  ): Promise<Response> =>
    runner(idem, merchantRequest(merchantId, request, key, body), async (tx) => ({ status: 200, body: await run(tx) })).then(idempotentResponse);
}

/** The Idempotency-Key scope of a merchant's requests (its stored answers are found by it: customers' erasure). */
export const merchantScope = (merchantId: string) => `merchant:${merchantId}`;

/** What runIdempotent keys a merchant's request by: the merchant's scope, its key, method, path and body. */
const merchantRequest = (merchantId: string, request: Request, key: string | undefined, body: unknown) => ({
  scope: merchantScope(merchantId),
  key: key ?? null,
  method: request.method,
  path: new URL(request.url).pathname,
  body: body ?? {},
});

/**
 * merchantIdempotency for the answers that carry a webhook signing secret (create, roll secret). The stored answer
 * never holds the secret (idempotency records are plain text; the secret is kept only sealed): the first answer
 * gets it from the request that made it, a replay from the endpoint's current secret, unsealed. A replay for an
 * endpoint deleted since (or whose secret can no longer be unsealed) answers without `secret`.
 */
export function endpointSecretIdempotency(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return async (
    merchantId: string,
    request: Request,
    key: string | undefined,
    body: unknown,
    run: () => Promise<WebhookEndpointObject>,
    status = 200,
  ): Promise<Response> => {
    let secret: string | undefined;
    const outcome = await runIdempotent(idem, merchantRequest(merchantId, request, key, body), async () => {
      const { secret: made, ...stored } = await run();
      secret = made;
      return { status, body: stored };
    });
    if (outcome.status !== status) return idempotentResponse(outcome);
    const stored = outcome.body as Omit<WebhookEndpointObject, 'secret'>;
    const shown = outcome.replayed ? await currentSecret(deps, merchantId, stored.id) : secret;
    return idempotentResponse({ ...outcome, body: shown === undefined ? stored : { ...stored, secret: shown } });
  };
}

async function currentSecret(deps: AppDeps, merchantId: string, endpointId: string): Promise<string | undefined> {
  const row = await firstRow(deps.db, schema.webhookEndpoints, and(eq(schema.webhookEndpoints.id, endpointId), eq(schema.webhookEndpoints.merchantId, merchantId)));
  if (!row) return undefined;
  try {
    return unseal(deps.webhookKey, row.secretSealed);
  } catch (error) {
    // The session secret changed since: the stored secret is unreadable (deliveries say to roll it).
    deps.log.warn('a replayed webhook endpoint answer cannot show its secret', { endpointId, error });
    return undefined;
  }
}
