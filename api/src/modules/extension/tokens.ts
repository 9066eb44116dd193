import { and, desc, eq, gt, isNull, lt, or } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, notFound } from '../../errors';
import { addressKey } from '../../lib/address-key';
import { sha256Hex } from '../../lib/crypto';
import { newId, newToken } from '../../lib/ids';
import { hitThrottle, type ThrottleRule } from '../../lib/throttle';
import { displayName } from '../users/service';

/*
 * Connecting a browser (issue 24 §2): the signed-in web page asks for a one-time pairing code and hands it to the
 * extension (through a content script that runs on bpay's own origin only); the extension's background exchanges it,
 * once, for a bearer token (`bpx_…`) that it keeps and sends as `Authorization: Bearer`. The token is shown only in
 * the exchange's answer: the database keeps SHA-256 hashes of codes and tokens (both 256-bit random values, so a
 * plain hash is enough: nothing to guess, and a leaked table signs no one in).
 *
 * What a token may do is fixed by the routes (routes.ts, and the allowlist of plugins/extension-auth.ts): read
 * funding sources, create bcards, follow their collection and reveal the bcards it created (service.ts). Nothing else.
 */

type UserRow = typeof schema.users.$inferSelect;
type TokenRow = typeof schema.extensionTokens.$inferSelect;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A pairing code lives this long: the page hands it to the extension at once. */
export const PAIRING_TTL_MS = 2 * MINUTE;
/** A connected browser stays connected this long, then pairs again. */
export const EXTENSION_TOKEN_TTL_MS = 90 * 24 * HOUR;
/** lastUsedAt is written at most this often per token (not a write per request). */
export const LAST_USED_RESOLUTION_MS = MINUTE;
export const TOKEN_PREFIX = 'bpx_';

/** A person connects a browser now and then: ten codes an hour is many retries. */
export const PAIRINGS_PER_USER_PER_HOUR = 10;
/** Exchanges (good or bad) from one address (an IPv6 /64) per hour: a household's browsers with room for retries. */
export const EXCHANGES_PER_ADDRESS_PER_HOUR = 30;

const PAIRING_RULE: ThrottleRule = { scope: 'extension_pairing:user', limit: PAIRINGS_PER_USER_PER_HOUR, windowMs: HOUR };
const EXCHANGE_RULE: ThrottleRule = { scope: 'extension_exchange:address', limit: EXCHANGES_PER_ADDRESS_PER_HOUR, windowMs: HOUR };

/** 32 random bytes in base64url: 43 characters. */
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;
const TOKEN_RE = /^bpx_[A-Za-z0-9_-]{43}$/;

export const hashSecret = (secret: string) => sha256Hex(secret);

function rateLimited(seconds: number, what: string): AppError {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return new AppError(
    'pairing_rate_limited',
    `Too many ${what}. Try again in ${m} minute${m === 1 ? '' : 's'}.`,
    undefined,
    { 'retry-after': String(seconds) },
  );
}

export interface Pairing {
  code: string;
  expiresAt: string;
}

/**
 * A one-time pairing code for the signed-in user's browser, valid PAIRING_TTL_MS. Off when the request-rate limits
 * are (BPAY_RATE_LIMITS=off), like the other per-request limits.
 * Fails with: pairing_rate_limited (429, more than PAIRINGS_PER_USER_PER_HOUR in an hour).
 */
export async function createPairing(deps: AppDeps, userId: string, label: string): Promise<Pairing> {
  if (deps.rateLimits) {
    const outcome = await hitThrottle(deps.db, deps.clock, [{ rule: PAIRING_RULE, key: userId }]);
    if (!outcome.allowed) throw rateLimited(outcome.retryAfterSeconds, 'browsers were connected from this account');
  }
  const code = newToken();
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + PAIRING_TTL_MS);
  await deps.db.insert(schema.extensionPairings).values({ codeHash: hashSecret(code), userId, label, createdAt: now, expiresAt });
  return { code, expiresAt: expiresAt.toISOString() };
}

export interface IssuedToken {
  /** Shown here once; only its hash is kept. */
  token: string;
  id: string;
  label: string;
  expiresAt: string;
}

/**
 * Exchanges a pairing code for a token, once. The code is spent by one guarded UPDATE (unused and unexpired) whose
 * row count is checked, in the transaction that creates the token: of two exchanges of one code, even in parallel,
 * exactly one gets a token. Every exchange counts against its address (good or bad), unless the request-rate
 * limits are off.
 * Fails with: pairing_rate_limited (429), pairing_code_invalid (unknown, malformed or expired), pairing_code_used.
 */
export async function exchangePairing(deps: AppDeps, code: string, address: string): Promise<IssuedToken> {
  if (deps.rateLimits) {
    const outcome = await hitThrottle(deps.db, deps.clock, [{ rule: EXCHANGE_RULE, key: addressKey(address) }]);
    if (!outcome.allowed) throw rateLimited(outcome.retryAfterSeconds, 'attempts to connect a browser from this network');
  }
  if (!SECRET_RE.test(code)) throw new AppError('pairing_code_invalid', undefined, 'code');
  const codeHash = hashSecret(code);
  const token = TOKEN_PREFIX + newToken();
  const id = newId('ext');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + EXTENSION_TOKEN_TTL_MS);
  const issued = await deps.db.transaction(async (tx) => {
    const spent = await tx
      .update(schema.extensionPairings)
      .set({ usedAt: now, tokenId: id })
      .where(
        and(
          eq(schema.extensionPairings.codeHash, codeHash),
          isNull(schema.extensionPairings.usedAt),
          gt(schema.extensionPairings.expiresAt, now),
        ),
      );
    if (spent.rowsAffected !== 1) return null;
    const pairing = await firstRow(tx, schema.extensionPairings, eq(schema.extensionPairings.codeHash, codeHash));
    if (!pairing) return null;
    await tx.insert(schema.extensionTokens).values({
      id,
      userId: pairing.userId,
      tokenHash: hashSecret(token),
      label: pairing.label,
      createdAt: now,
      expiresAt,
    });
    return { label: pairing.label };
  });
  if (!issued) {
    // Why not: read after the guarded update, so a code spent by a parallel exchange reads as used.
    const pairing = await firstRow(deps.db, schema.extensionPairings, eq(schema.extensionPairings.codeHash, codeHash));
    if (pairing?.usedAt) throw new AppError('pairing_code_used', undefined, 'code');
    throw new AppError('pairing_code_invalid', undefined, 'code');
  }
  return { token, id, label: issued.label, expiresAt: expiresAt.toISOString() };
}

export interface ExtensionTokenView {
  id: string;
  label: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
}

const tokenView = (t: TokenRow): ExtensionTokenView => ({
  id: t.id,
  label: t.label,
  createdAt: t.createdAt.toISOString(),
  expiresAt: t.expiresAt.toISOString(),
  lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
});

/** The user's connected browsers: tokens neither revoked nor expired, newest first. */
export async function listExtensionTokens(deps: AppDeps, userId: string): Promise<ExtensionTokenView[]> {
  const rows = await deps.db
    .select()
    .from(schema.extensionTokens)
    .where(
      and(
        eq(schema.extensionTokens.userId, userId),
        isNull(schema.extensionTokens.revokedAt),
        gt(schema.extensionTokens.expiresAt, deps.clock.now()),
      ),
    )
    .orderBy(desc(schema.extensionTokens.createdAt), desc(schema.extensionTokens.id));
  return rows.map(tokenView);
}

/**
 * Disconnects a browser: its token stops working at once. Idempotent for its owner (revoking a revoked or expired
 * token answers the same).
 * Fails with: resource_not_found (another user's token, or no such token).
 */
export async function revokeExtensionToken(deps: AppDeps, userId: string, id: string): Promise<{ id: string; revoked: true }> {
  const where = and(eq(schema.extensionTokens.id, id), eq(schema.extensionTokens.userId, userId));
  const row = await firstRow(deps.db, schema.extensionTokens, where);
  if (!row) throw notFound('extension token', id, 'id');
  if (!row.revokedAt) {
    await deps.db
      .update(schema.extensionTokens)
      .set({ revokedAt: deps.clock.now() })
      .where(and(where, isNull(schema.extensionTokens.revokedAt)));
  }
  return { id: row.id, revoked: true };
}

export interface ExtensionPrincipal {
  user: UserRow;
  extensionToken: TokenRow;
}

/**
 * Who a bearer token is: a live token (not revoked, not expired) of a user who still exists (as findSessionUser
 * checks for a session). Notes the use (lastUsedAt) at most once per LAST_USED_RESOLUTION_MS, so a busy extension
 * does not write on every request.
 * Fails with: extension_token_invalid (malformed, unknown, revoked or expired: one answer, nothing to tell apart).
 */
export async function resolveExtensionToken(deps: AppDeps, token: string): Promise<ExtensionPrincipal> {
  if (!TOKEN_RE.test(token)) throw new AppError('extension_token_invalid');
  const now = deps.clock.now();
  const rows = await deps.db
    .select({ token: schema.extensionTokens, user: schema.users })
    .from(schema.extensionTokens)
    .innerJoin(schema.users, eq(schema.users.id, schema.extensionTokens.userId))
    .where(
      and(
        eq(schema.extensionTokens.tokenHash, hashSecret(token)),
        isNull(schema.extensionTokens.revokedAt),
        gt(schema.extensionTokens.expiresAt, now),
      ),
    )
    .limit(1);
  const found = rows[0];
  if (!found) throw new AppError('extension_token_invalid');
  const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (!found.token.lastUsedAt || found.token.lastUsedAt < stale) {
    // Guarded too: of parallel requests past the minute, the first one's write makes the others' match nothing.
    await deps.db
      .update(schema.extensionTokens)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(schema.extensionTokens.id, found.token.id),
          or(isNull(schema.extensionTokens.lastUsedAt), lt(schema.extensionTokens.lastUsedAt, stale)),
        ),
      );
    found.token.lastUsedAt = now;
  }
  return { user: found.user, extensionToken: found.token };
}

/** GET /api/extension/me: which browser this is and whose account it acts for. */
export function describeToken(p: ExtensionPrincipal) {
  return {
    tokenId: p.extensionToken.id,
    label: p.extensionToken.label,
    expiresAt: p.extensionToken.expiresAt.toISOString(),
    user: { email: p.user.email, name: displayName(p.user) },
  };
}
