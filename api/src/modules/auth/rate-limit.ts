import { and, eq, gt, inArray, lt, or } from 'drizzle-orm';
import { schema, type Db } from '@bpay/db';
import { AppError } from '../../errors';
import type { Clock } from '../../lib/clock';

/** After this many failures inside the window, for one account or one address, sign-in answers 429. */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60_000;

export interface AttemptKeys {
  account: string; // normalized e-mail
  address: string; // client IP
}

const scoped = (k: AttemptKeys) =>
  or(
    and(eq(schema.loginFailures.scope, 'account'), eq(schema.loginFailures.key, k.account)),
    and(eq(schema.loginFailures.scope, 'address'), eq(schema.loginFailures.key, k.address)),
  );

/** One sign-in attempt, counted before the password is checked; see reserveSignInAttempt. */
export interface SignInAttempt {
  /** The two login_failures rows (account and address) that count this attempt until it is released. */
  ids: number[];
}

/**
 * Counts this attempt as a failure before the (slow) password check, and throws rate_limited (429 with
 * Retry-After) when the account or the address already has MAX_FAILURES failures in the last WINDOW_MS. The count
 * and the insert are one write transaction, so parallel attempts cannot all see room under the limit: at most
 * MAX_FAILURES are ever checked. A refused attempt leaves no row. The caller releases the attempt when it turns
 * out not to be a failure (a success, or a password that only lacks its two-factor code).
 * Retry-After is when enough of the oldest failures leave the window to allow one more try.
 */
export async function reserveSignInAttempt(db: Db, clock: Clock, keys: AttemptKeys): Promise<SignInAttempt> {
  const at = clock.now();
  const now = at.getTime();
  const since = new Date(now - WINDOW_MS);
  const outcome = await db.transaction(async (tx) => {
    const ids = (
      await tx
        .insert(schema.loginFailures)
        .values([
          { scope: 'account', key: keys.account, at },
          { scope: 'address', key: keys.address, at },
        ])
        .returning({ id: schema.loginFailures.id })
    ).map((r) => r.id);
    const rows = await tx
      .select({ id: schema.loginFailures.id, scope: schema.loginFailures.scope, at: schema.loginFailures.at })
      .from(schema.loginFailures)
      .where(and(scoped(keys), gt(schema.loginFailures.at, since)))
      .orderBy(schema.loginFailures.at, schema.loginFailures.id);
    let retryAtMs = 0;
    for (const scope of ['account', 'address'] as const) {
      // The failures before this attempt (its own row is not one of them).
      const times = rows.filter((r) => r.scope === scope && !ids.includes(r.id)).map((r) => r.at.getTime());
      if (times.length >= MAX_FAILURES) {
        // The (n - MAX + 1)-th oldest must expire for the count to drop below the limit.
        const pivot = times[times.length - MAX_FAILURES]!;
        retryAtMs = Math.max(retryAtMs, pivot + WINDOW_MS);
      }
    }
    if (retryAtMs > 0) {
      await tx.delete(schema.loginFailures).where(inArray(schema.loginFailures.id, ids));
      return { refused: true as const, retryAtMs };
    }
    return { refused: false as const, ids };
  });
  if (outcome.refused) {
    const seconds = Math.max(1, Math.ceil((outcome.retryAtMs - now) / 1000));
    throw new AppError('rate_limited', undefined, undefined, { 'retry-after': String(seconds) });
  }
  return { ids: outcome.ids };
}

/** The attempt was not a failure after all: it no longer counts. */
export async function releaseSignInAttempt(db: Db, attempt: SignInAttempt): Promise<void> {
  await db.delete(schema.loginFailures).where(inArray(schema.loginFailures.id, attempt.ids));
}

/** A successful sign-in clears the account's failures (not the address's: one address may try many accounts). */
export async function clearAccountFailures(db: Db, account: string): Promise<void> {
  await db
    .delete(schema.loginFailures)
    .where(and(eq(schema.loginFailures.scope, 'account'), eq(schema.loginFailures.key, account)));
}

export async function pruneFailures(db: Db, clock: Clock): Promise<void> {
  await db.delete(schema.loginFailures).where(lt(schema.loginFailures.at, new Date(clock.now().getTime() - WINDOW_MS)));
}
