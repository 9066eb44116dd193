import { migrateDb, openDb, type DbHandle } from '@bpay/db';
import { seedDb } from '@bpay/db/seed';
import { createApp } from './app';
import { buildDeps, type AppDeps } from './deps';
import type { Env } from './env';
import { systemClock, type Clock } from './lib/clock';
import type { Logger } from './lib/logger';
import { deleteExpiredSessions } from './modules/auth/sessions';
import { pruneFailures } from './modules/auth/rate-limit';
import { expireBcards, recoverCollections } from './modules/bcards/collect';
import { recoverStuckIntents } from './modules/payment-intents/service';
import { startWebhookWorker } from './modules/webhooks/worker';
import { pruneIdempotencyKeys } from './plugins/idempotency';
import { createSimulatedVendor } from './vendors/simulated';
import { createStripeVendor } from './vendors/stripe';

/** How often unfinished collections are recovered and expired bcards refunded. */
export const MONEY_SWEEP_MS = 30_000;
/** How often the webhook worker looks for due deliveries. */
export const WEBHOOK_POLL_MS = 1000;

export async function sweepMoney(deps: AppDeps): Promise<{ recovered: number; expired: number }> {
  const recovered = (await recoverCollections(deps, deps.bcardTtlMs)) + (await recoverStuckIntents(deps));
  const expired = await expireBcards(deps);
  if (recovered || expired) deps.log.info('money sweep', { recovered, expired });
  return { recovered, expired };
}

export interface Booted {
  deps: AppDeps;
  app: ReturnType<typeof createApp>;
  handle: DbHandle;
  stop(): void;
}

/** Opens the database, applies migrations, seeds an empty one, and builds the app with its housekeeping timers. */
export async function boot(env: Env, log: Logger, clock: Clock = systemClock): Promise<Booted> {
  const handle = openDb({ url: env.databaseUrl, authToken: env.databaseAuthToken });
  await migrateDb(handle.db);
  await seedDb(handle.db, clock.now());
  const deps = buildDeps({
    db: handle.db,
    clock,
    log,
    sessionSecret: env.sessionSecret,
    sessionTtlMs: env.sessionTtlMs,
    publicUrl: env.publicUrl,
    trustProxy: env.trustProxy,
    vendors: {
      simulated: createSimulatedVendor(handle.db, clock, env.sessionSecret),
      ...(env.stripe ? { stripe: createStripeVendor(env.stripe) } : {}),
    },
    bcardTtlMs: env.bcardTtlMs,
    webhooks: { timeoutMs: env.webhookTimeoutMs },
  });
  log.info('payment vendor', { vendor: deps.vendor.name });
  const app = createApp(deps);
  // Finish or undo what a previous process left half-done, and refund bcards that expired meanwhile.
  await sweepMoney(deps);
  const moneySweep = setInterval(() => {
    sweepMoney(deps).catch((error) => log.error('money sweep failed', { error }));
  }, MONEY_SWEEP_MS);
  moneySweep.unref();
  const housekeeping = setInterval(() => {
    Promise.all([
      deleteExpiredSessions(handle.db, clock),
      pruneFailures(handle.db, clock),
      pruneIdempotencyKeys(handle.db, clock),
    ]).catch((error) => log.error('housekeeping failed', { error }));
  }, 10 * 60_000);
  housekeeping.unref();
  // Sends the webhook outbox every second; what a previous process left pending is sent on the first runs.
  const webhookWorker = env.webhookWorker ? startWebhookWorker(deps, { intervalMs: WEBHOOK_POLL_MS }) : null;
  return {
    deps,
    app,
    handle,
    stop() {
      clearInterval(moneySweep);
      clearInterval(housekeeping);
      webhookWorker?.stop();
      handle.close();
    },
  };
}
