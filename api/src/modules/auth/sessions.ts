import { and, eq, gt, lt } from 'drizzle-orm';
import { schema, type Db } from '@bpay/db';
import type { Clock } from '../../lib/clock';
import { hmacHex } from '../../lib/crypto';
import { newToken } from '../../lib/ids';

export const SESSION_COOKIE = 'bpay_session';

export interface SessionConfig {
  secret: string;
  ttlMs: number;
  /** Secure cookies when the public URL is https. */
  secure: boolean;
}

/** The cookie carries a random token; the database keeps only HMAC(secret, token), so a leaked table signs no one in. */
const sessionIdOf = (cfg: SessionConfig, token: string) => hmacHex(cfg.secret, `session:${token}`);

export async function createSession(
  db: Db,
  clock: Clock,
  cfg: SessionConfig,
  userId: string,
  meta: { ip: string; userAgent: string | null },
): Promise<{ token: string; expiresAt: Date }> {
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

export async function findSessionUser(db: Db, clock: Clock, cfg: SessionConfig, token: string) {
  const rows = await db
    .select({ session: schema.sessions, user: schema.users })
    .from(schema.sessions)
    .innerJoin(schema.users, eq(schema.users.id, schema.sessions.userId))
    .where(and(eq(schema.sessions.id, sessionIdOf(cfg, token)), gt(schema.sessions.expiresAt, clock.now())))
    .limit(1);
  return rows[0] ?? null;
}

export async function deleteSession(db: Db, cfg: SessionConfig, token: string): Promise<void> {
  await db.delete(schema.sessions).where(eq(schema.sessions.id, sessionIdOf(cfg, token)));
}

export async function deleteExpiredSessions(db: Db, clock: Clock): Promise<void> {
  await db.delete(schema.sessions).where(lt(schema.sessions.expiresAt, clock.now()));
}

export function sessionCookie(cfg: SessionConfig, token: string, expiresAt: Date): string {
  const maxAge = Math.max(0, Math.floor(cfg.ttlMs / 1000));
  return [
    `${SESSION_COOKIE}=${token}`,
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
    `${SESSION_COOKIE}=`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    'Max-Age=0',
    'Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    ...(cfg.secure ? ['Secure'] : []),
  ].join('; ');
}

export function readSessionToken(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === SESSION_COOKIE) {
      const token = v.join('=');
      return /^[A-Za-z0-9_-]{20,100}$/.test(token) ? token : null;
    }
  }
  return null;
}
