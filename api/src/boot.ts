import { migrateDb, openDb, schema, type Db, type DbHandle } from '@bpay/db';
import { eq, sql } from 'drizzle-orm';
import { databaseFiles, folderOf, localDatabasePath, tightenModes } from '@bpay/db/file-modes';
import { seedDb } from '@bpay/db/seed';
import { createApp } from './app';
import { buildDeps, type AppDeps } from './deps';
import type { Env } from './env';
import { steadyClock, type Clock } from './lib/clock';
import type { Logger } from './lib/logger';
import { deleteExpiredSessions } from './modules/auth/sessions';
import { AUTH_THROTTLE_KEEP_LONGER, pruneFailures } from './modules/auth/rate-limit';
import { expireBcards, recoverCollections, sweepBankDebits } from './modules/bcards/sweep';
import { cancelStaleAuthorizations, recoverStuckIntents } from './modules/payment-intents/sweep';
import { recoverRefunds } from './modules/refunds/settle';
import { recoverPlanCharges } from './modules/subscription/plan-charge';
import { recoverRepayments } from './modules/receivables/service';
import { renewSubscriptions } from './modules/subscription/renewals';
import { pruneBroadcasts } from './modules/events/broadcast';
import { recoverPlanRefunds } from './modules/subscription/plan-refunds';
import { startWebhookWorker } from './modules/webhooks/worker';
import { startMailWorker } from './modules/email/worker';
import { smtpTransport } from './modules/email/transport';
import { pruneIdempotencyKeys } from './plugins/idempotency';
import { createLocalDiskStorage } from './storage/local-disk';
import { createSimulatedVendor } from './vendors/simulated';
import { checkStripeCredentials, createStripeVendor } from './vendors/stripe';
import { deriveKey } from './lib/crypto';
import { ensureFirstAdmin } from './modules/admin/accounts';
import { ensureDemoMerchant } from './modules/demo/service';
import { pruneAdminTokens } from './modules/admin/auth-service';
import { activeStripeCredentials } from './modules/admin/vendors';
import { pruneThrottle } from './lib/throttle';
import { cardThrottleLongestWindowMs, DEFAULT_CARD_ATTEMPT_LIMITS } from './modules/funding-sources/attempts';

/** How often unfinished collections are recovered, expired bcards refunded and stale authorizations canceled. */
export const MONEY_SWEEP_MS = 30_000;
/**
 * How long throttle_events are kept: longer than any rule's window (the longest today is the card lock's 24 hours),
 * so pruning never lifts a limit early.
 */
export const THROTTLE_RETENTION_MS = 7 * 24 * 60 * 60_000;
/** How often the webhook worker looks for due deliveries. */
export const WEBHOOK_POLL_MS = 1000;
/** How often the mail worker looks for due messages. */
export const MAIL_POLL_MS = 2000;

/**
 * Runs every money sweep once; answers what it recovered, expired and canceled, and the bank debits it settled
 * (renewals are logged). Each step runs on its own: one that fails (a full disk refuses the writes, issue 27) is
 * logged and counts nothing, the others still run, and the sweep never throws, so the next timer tick (and the sweep
 * at start) tries again once the database can be written.
 */
export async function sweepMoney(deps: AppDeps): Promise<{ recovered: number; expired: number; canceled: number; bankDebits: number }> {
  const step = async (name: string, run: () => Promise<number>): Promise<number> => {
    try {
      return await run();
    } catch (error) {
      deps.log.error('a money sweep step failed; the next sweep tries again', { step: name, error });
      return 0;
    }
  };
  // The latest time read, for a process started after the system clock was set back (holdClockAtMark at boot).
  await step('clock mark', () => writeClockMark(deps.db, deps.clock));
  const recovered =
    (await step('collections', () => recoverCollections(deps, deps.bcardTtlMs))) +
    (await step('payment intents', () => recoverStuckIntents(deps))) +
    (await step('refunds', () => recoverRefunds(deps))) +
    (await step('plan charges', () => recoverPlanCharges(deps))) +
    (await step('repayments', () => recoverRepayments(deps)));
  const expired = await step('expired bcards', () => expireBcards(deps));
  // Manual-capture intents authorized more than 7 days ago: canceled (automatic), their bcards refunded.
  const canceled = await step('stale authorizations', () => cancelStaleAuthorizations(deps));
  // Bank debits settled or returned since the last sweep (a return whose bcard is unused cancels the bcard).
  const bankDebits = await step('bank debits', () => sweepBankDebits(deps));
  // Paid plans whose period ended: renewed, retried, or moved to their pending (or the free) plan.
  const renewed = await step('renewals', () => renewSubscriptions(deps));
  // Refunds of a plan's unused part (an admin's move now) whose worker is gone: finished with their own keys.
  const planRefunds = await step('plan refunds', () => recoverPlanRefunds(deps));
  if (recovered || expired || canceled || bankDebits || renewed || planRefunds) {
    deps.log.info('money sweep', { recovered, expired, canceled, bankDebits, renewed, planRefunds });
  }
  return { recovered: recovered + planRefunds, expired, canceled, bankDebits };
}

/**
 * Records the time bpay's clock reads now as the latest mark (never lowering it: with several processes the greatest
 * wins). Answers 0 so it can run as a sweep step.
 */
export async function writeClockMark(db: Db, clock: Clock): Promise<number> {
  const atMs = clock.now().getTime();
  await db
    .insert(schema.clockMarks)
    .values({ id: 'bpay', atMs })
    .onConflictDoUpdate({ target: schema.clockMarks.id, set: { atMs: sql`max(${schema.clockMarks.atMs}, excluded.at_ms)` } });
  return 0;
}

/** How far ahead of the system clock a mark may hold bpay's clock at start; past it the mark is taken for a mistake. */
export const CLOCK_MARK_MAX_AHEAD_MS = 24 * 60 * 60_000;

/**
 * Starts bpay's clock no earlier than the last mark a process left (issue 27, a clock that jumps): after a restart
 * on a system clock that was set back, no bcard, lease or link lives longer by the step than the sweep interval
 * between marks. A mark more than a day ahead of the system clock is not followed (a clock once set a year ahead by
 * mistake must not hold bpay's time for good): logged, and the system clock is taken. Answers the mark followed.
 */
export async function holdClockAtMark(db: Db, clock: Clock, log: Logger): Promise<number | null> {
  const row = await db.query.clockMarks.findFirst({ where: eq(schema.clockMarks.id, 'bpay') });
  if (!row) return null;
  const aheadMs = row.atMs - clock.now().getTime();
  if (aheadMs > CLOCK_MARK_MAX_AHEAD_MS) {
    log.error('the last clock mark is more than a day ahead of the system clock: not followed; check the system time', {
      mark: new Date(row.atMs).toISOString(),
      aheadMs,
    });
    return null;
  }
  clock.holdAtLeast?.(row.atMs);
  return row.atMs;
}

/**
 * Takes group and other access away from what this install keeps (issue 27): the database and its -wal/-shm, the
 * session-secret file, the uploads tree, and the folders they are in (when nothing else readable is there). New files
 * are private already (server.ts sets the umask); this fixes what an older version left. Logs only when it changed
 * something, or left a shared folder as it is; a remote or in-memory database has no file to fix.
 */
export function tightenDataModes(env: Pick<Env, 'databaseUrl' | 'uploadsDir' | 'sessionSecretFile'>, log: Logger): void {
  const database = localDatabasePath(env.databaseUrl);
  const secret = env.sessionSecretFile;
  try {
    const { changed, shared } = tightenModes({
      files: [...(database ? databaseFiles(database) : []), ...(secret ? [secret] : [])],
      trees: [env.uploadsDir],
      folders: [...(database ? [folderOf(database)] : []), ...(secret ? [folderOf(secret)] : [])],
    });
    if (changed.length > 0) log.warn('file modes tightened', { paths: changed });
    if (shared.length > 0) {
      log.warn('folders readable by other users left as they are (they hold files that are not private): chmod 700 them', { paths: shared });
    }
  } catch (error) {
    // A file owned by another user (EPERM): said loudly, but the service still starts.
    log.error('file modes could not be tightened', { error });
  }
}

export interface Booted {
  deps: AppDeps;
  app: ReturnType<typeof createApp>;
  handle: DbHandle;
  stop(): void;
}

/** Opens the database, applies migrations, seeds an empty one, and builds the app with its housekeeping timers. */
export async function boot(
  env: Env,
  log: Logger,
  // bpay's time never runs backwards (lib/clock.ts); a system clock set back is said once per step.
  clock: Clock = steadyClock(undefined, (aheadMs) =>
    log.warn('the system clock was set back: bpay keeps its own time, running 1.5 % slow until the system clock meets it', { aheadMs }),
  ),
): Promise<Booted> {
  const handle = openDb({ url: env.databaseUrl, authToken: env.databaseAuthToken });
  // Lists, history and figures may read from a replica (issue 30 §3): a handle that refuses every write.
  const readHandle = env.databaseRead ? openDb({ ...env.databaseRead, readOnly: true }) : null;
  await migrateDb(handle.db);
  // After the migrations: the database, its -wal and -shm exist by now.
  tightenDataModes(env, log);
  await holdClockAtMark(handle.db, clock, log);
  await seedDb(handle.db, clock.now());
  const vendorKey = env.vendorKey ?? deriveKey(env.sessionSecret, 'vendor-credentials');
  // Stripe keys from the environment win; otherwise the admin-configured keys of the active mode (Admin → Vendors),
  // read once here: a mode switch or new keys take effect at the next start.
  const adminStripe = env.stripe
    ? null
    : await activeStripeCredentials(handle.db, vendorKey).catch((error) => {
        // A changed BPAY_VENDOR_KEY (or session secret) makes the stored keys unreadable: start on the simulator.
        log.error('stored vendor credentials cannot be decrypted; enter them again in Admin → Vendors', { error });
        return null;
      });
  const stripeOptions = env.stripe ?? (adminStripe ? { secretKey: adminStripe.secretKey } : null);
  const deps = buildDeps({
    db: handle.db,
    ...(readHandle ? { readDb: readHandle.db } : {}),
    clock,
    log,
    sessionSecret: env.sessionSecret,
    sessionTtlMs: env.sessionTtlMs,
    publicUrl: env.publicUrl,
    trustProxy: env.trustProxy,
    vendors: {
      simulated: createSimulatedVendor(handle.db, clock, env.sessionSecret),
      ...(stripeOptions ? { stripe: createStripeVendor(stripeOptions) } : {}),
    },
    bcardTtlMs: env.bcardTtlMs,
    webhooks: { timeoutMs: env.webhookTimeoutMs, sandboxLocal: env.sandboxLocalWebhooks },
    storage: createLocalDiskStorage(env.uploadsDir),
    adminTokenTtlMs: env.admin.tokenTtlMs,
    vendorKey,
    // The environment's signing secret wins, as its keys do; else the one stored with the active mode's keys.
    stripeWebhookSecret: env.stripeWebhookSecret ?? adminStripe?.webhookSecret ?? null,
    rateLimits: env.rateLimits,
    registrationLimit: { perAddressPerHour: env.registrationsPerHour },
    cardAttemptLimits: { ...DEFAULT_CARD_ATTEMPT_LIMITS, perAddressPerHour: env.cardAttemptsPerAddressPerHour },
    site: env.site,
    mail: { transport: env.mail.smtpUrl ? smtpTransport(env.mail.smtpUrl) : null, from: env.mail.from },
    ...(stripeOptions
      ? {
          stripeSource: env.stripe
            ? { source: 'environment' as const, mode: env.stripe.secretKey.includes('_live_') ? ('live' as const) : ('test' as const) }
            : { source: 'admin' as const, mode: adminStripe!.mode },
        }
      : {}),
    ...(env.stripe
      ? {
          checkStripe: (secretKey: string) =>
            checkStripeCredentials(secretKey, { host: env.stripe?.host, port: env.stripe?.port, protocol: env.stripe?.protocol }),
        }
      : {}),
  });
  log.info('payment vendor', {
    vendor: deps.vendor.name,
    ...(adminStripe ? { source: 'admin vendor settings', mode: adminStripe.mode } : {}),
  });
  if (!env.rateLimits) {
    // parseEnv allows this only on a loopback public URL; still said at every start, so it is never left on unseen.
    log.warn(
      'BPAY_RATE_LIMITS=off: no request-rate limits (consumer API per session and address, merchant API per second, ' +
        'registrations and card attempts): for load tests on this machine only',
      { publicUrl: env.publicUrl.origin },
    );
  }
  await ensureFirstAdmin(deps, log, env.admin);
  // The checkout demos' merchant exists before the first request, so no request pays for creating it.
  await ensureDemoMerchant(deps).catch((e: unknown) => log.error('demo merchant unavailable', { error: String(e) }));
  const app = createApp(deps);
  // Finish or undo what a previous process left half-done, and refund bcards that expired meanwhile. Switched off
  // only while an operator reconciles a restored backup with a real processor (README, Backups and restore).
  let moneySweep: ReturnType<typeof setInterval> | undefined;
  if (env.moneySweep) {
    await sweepMoney(deps);
    moneySweep = setInterval(() => {
      sweepMoney(deps).catch((error) => log.error('money sweep failed', { error }));
    }, MONEY_SWEEP_MS);
    moneySweep.unref();
  } else {
    log.warn('BPAY_MONEY_SWEEP=off: nothing half-done is finished or undone and no expired bcard is refunded until it is on');
  }
  const housekeeping = setInterval(() => {
    Promise.all([
      deleteExpiredSessions(handle.db, clock),
      pruneFailures(handle.db, clock),
      pruneIdempotencyKeys(handle.db, clock),
      pruneAdminTokens(handle.db, clock),
      pruneBroadcasts(handle.db, clock),
      pruneThrottle(
        handle.db,
        clock,
        Math.max(THROTTLE_RETENTION_MS, cardThrottleLongestWindowMs(deps.cardAttemptLimits)),
        AUTH_THROTTLE_KEEP_LONGER,
      ),
    ]).catch((error) => log.error('housekeeping failed', { error }));
  }, 10 * 60_000);
  housekeeping.unref();
  // Sends the webhook outbox every second; what a previous process left pending is sent on the first runs.
  const webhookWorker = env.webhookWorker ? startWebhookWorker(deps, { intervalMs: WEBHOOK_POLL_MS }) : null;
  // Sends the e-mail outbox; without an SMTP server the messages stay pending, readable on the outbox page.
  const mailWorker = deps.mail.transport ? startMailWorker(deps, { intervalMs: MAIL_POLL_MS }) : null;
  const smtp = env.mail.smtpUrl ? new URL(env.mail.smtpUrl) : null;
  log.info('mail', smtp ? { smtp: `${smtp.protocol}//${smtp.host}`, from: env.mail.from } : { smtp: 'none: messages stay in the outbox (GET /api/email-outbox)' });
  return {
    deps,
    app,
    handle,
    stop() {
      clearInterval(moneySweep);
      clearInterval(housekeeping);
      webhookWorker?.stop();
      mailWorker?.stop();
      deps.mail.transport?.close();
      handle.close();
      readHandle?.close();
    },
  };
}
