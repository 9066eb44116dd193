import { and, eq, gt, lt, or } from 'drizzle-orm';
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

/**
 * Throws rate_limited (429 with Retry-After) when the account or the address has MAX_FAILURES failures in the
 * last WINDOW_MS. Retry-After is when enough of the oldest failures leave the window to allow one more try.
 */
export async function assertSignInAllowed(db: Db, clock: Clock, keys: AttemptKeys): Promise<void> {
  const now = clock.now().getTime();
  const since = new Date(now - WINDOW_MS);
  const rows = await db
    .select({ scope: schema.loginFailures.scope, at: schema.loginFailures.at })
    .from(schema.loginFailures)
    .where(and(scoped(keys), gt(schema.loginFailures.at, since)))
    .orderBy(schema.loginFailures.at);
  let retryAtMs = 0;
  for (const scope of ['account', 'address'] as const) {
    const times = rows.filter((r) => r.scope === scope).map((r) => r.at.getTime());
    if (times.length >= MAX_FAILURES) {
      // The (n - MAX + 1)-th oldest must expire for the count to drop below the limit.
      const pivot = times[times.length - MAX_FAILURES]!;
      retryAtMs = Math.max(retryAtMs, pivot + WINDOW_MS);
    }
  }
  if (retryAtMs > 0) {
    const seconds = Math.max(1, Math.ceil((retryAtMs - now) / 1000));
    throw new AppError('rate_limited', undefined, undefined, { 'retry-after': String(seconds) });
  }
}

export async function recordSignInFailure(db: Db, clock: Clock, keys: AttemptKeys): Promise<void> {
  const at = clock.now();
  await db.insert(schema.loginFailures).values([
    { scope: 'account', key: keys.account, at },
    { scope: 'address', key: keys.address, at },
  ]);
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
