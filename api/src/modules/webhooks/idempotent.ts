import type { AppDeps } from '../../deps';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';

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
    run: () => Promise<unknown>,
    status = 200,
  ): Promise<Response> =>
    runIdempotent(
      idem,
      { scope: `merchant:${merchantId}`, key: key ?? null, method: request.method, path: new URL(request.url).pathname, body: body ?? {} },
      async () => ({ status, body: await run() }),
    ).then(idempotentResponse);
}
