import { and, eq, gt, isNull, lt, ne, sql } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, prepared } from '@bpay/db';
import type { Clock } from '../../lib/clock';
import { hmacHex } from '../../lib/crypto';
import { newToken } from '../../lib/ids';

/** The cookie of a plain-http install (a developer's loopback). */
export const SESSION_COOKIE = 'bpay_session';
/**
 * The cookie when the public URL is https. The __Host- prefix makes browsers accept it only with Secure, Path=/ and
 * no Domain, from this very host: a sibling subdomain or a plain-http page cannot plant or overwrite it.
 */
export const SECURE_SESSION_COOKIE = '__Host-bpay_session';

export interface SessionConfig {
  secret: string;
  ttlMs: number;
  /** Secure cookies when the public URL is https. */
  secure: boolean;
}

export const sessionCookieName = (cfg: Pick<SessionConfig, 'secure'>) => (cfg.secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

/** The cookie carries a random token; the database keeps only HMAC(secret, token), so a leaked table signs no one in. */
const sessionIdOf = (cfg: SessionConfig, token: string) => hmacHex(cfg.secret, `session:${token}`);

/** Who a session is for, as the request that starts it shows: its client address and user agent. */
export interface SessionClient {
  ip: string;
  userAgent: string | null;
}

export interface NewSession {
  /** For the cookie only: the database keeps its HMAC. */
  token: string;
  expiresAt: Date;
}

/** Takes a transaction so that a sign-in can create its session only while what it checked still holds. */
export async function createSession(
  db: DbOrTx,
  clock: Clock,
  cfg: SessionConfig,
  userId: string,
  meta: SessionClient,
): Promise<NewSession> {
  const token = newToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + cfg.ttlMs);
  await db.insert(schema.sessions).values({
    id: sessionIdOf(cfg, token),
    userId,
    createdAt: now,
    expiresAt,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
  });
  return { token, expiresAt };
}

/** The live session with this id and its user (built once: db/prepared.ts); every session-authenticated request runs it. */
const sessionWithUser = prepared((db) =>
  db
    .select({ session: schema.sessions, user: schema.users })
    .from(schema.sessions)
    .innerJoin(schema.users, eq(schema.users.id, schema.sessions.userId))
    .where(and(eq(schema.sessions.id, sql.placeholder('id')), gt(schema.sessions.expiresAt, sql.placeholder('now'))))
    .limit(1)
    .prepare(),
);

export async function findSessionUser(db: Db, clock: Clock, cfg: SessionConfig, token: string) {
  // A placeholder in a condition has no column encoder: the time goes as the column stores it (ms).
  return (await sessionWithUser(db).get({ id: sessionIdOf(cfg, token), now: clock.now().getTime() })) ?? null;
}

export async function deleteSession(db: Db, cfg: SessionConfig, token: string): Promise<void> {
  await db.delete(schema.sessions).where(eq(schema.sessions.id, sessionIdOf(cfg, token)));
}

/**
 * Ends every session of the user except the one presenting `keepToken`. A password change runs it in the transaction
 * that stores the new hash.
 */
export async function deleteOtherSessions(db: DbOrTx, cfg: SessionConfig, userId: string, keepToken: string): Promise<void> {
  await db
    .delete(schema.sessions)
    .where(and(eq(schema.sessions.userId, userId), ne(schema.sessions.id, sessionIdOf(cfg, keepToken))));
}

/**
 * Disconnects every browser extension of the user (Settings -> Connected browsers): a password change or reset ends
 * what a stolen session may have paired, in the same transaction as the new hash.
 */
export async function revokeExtensionTokens(db: DbOrTx, userId: string, at: Date): Promise<void> {
  await db
    .update(schema.extensionTokens)
    .set({ revokedAt: at })
    .where(and(eq(schema.extensionTokens.userId, userId), isNull(schema.extensionTokens.revokedAt)));
}

export async function deleteExpiredSessions(db: Db, clock: Clock): Promise<void> {
  await db.delete(schema.sessions).where(lt(schema.sessions.expiresAt, clock.now()));
}

export function sessionCookie(cfg: SessionConfig, token: string, expiresAt: Date): string {
  const maxAge = Math.max(0, Math.floor(cfg.ttlMs / 1000));
  return [
    `${sessionCookieName(cfg)}=${token}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAge}`,
    `Expires=${expiresAt.toUTCString()}`,
    ...(cfg.secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedSessionCookie(cfg: SessionConfig): string {
  return [
    `${sessionCookieName(cfg)}=`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    'Max-Age=0',
    'Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    ...(cfg.secure ? ['Secure'] : []),
  ].join('; ');
}

/**
 * The session token in a Cookie header. With the session config, only the cookie this install sets counts (on https
 * the __Host- one: a plain `bpay_session` planted by a subdomain or over http is ignored). Without it, either name:
 * for uses that only key something by the token and never authenticate with it (the request rate limiter).
 */
export function readSessionToken(cookieHeader: string | null, cfg?: Pick<SessionConfig, 'secure'>): string | null {
  if (!cookieHeader) return null;
  const names = cfg ? [sessionCookieName(cfg)] : [SECURE_SESSION_COOKIE, SESSION_COOKIE];
  for (const part of cookieHeader.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== undefined && names.includes(k)) {
      const token = v.join('=');
      return /^[A-Za-z0-9_-]{20,100}$/.test(token) ? token : null;
    }
  }
  return null;
}
