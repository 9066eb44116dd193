import { migrateDb, openDb, type DbHandle } from '@bpay/db';
import { seedDb } from '@bpay/db/seed';
import { createApp } from './app';
import { buildDeps, type AppDeps } from './deps';
import type { Env } from './env';
import { systemClock, type Clock } from './lib/clock';
import type { Logger } from './lib/logger';
import { deleteExpiredSessions } from './modules/auth/sessions';
import { pruneFailures } from './modules/auth/rate-limit';

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
  });
  const app = createApp(deps);
  const housekeeping = setInterval(() => {
    Promise.all([deleteExpiredSessions(handle.db, clock), pruneFailures(handle.db, clock)]).catch((error) =>
      log.error('housekeeping failed', { error }),
    );
  }, 10 * 60_000);
  housekeeping.unref();
  return {
    deps,
    app,
    handle,
    stop() {
      clearInterval(housekeeping);
      handle.close();
    },
  };
}
