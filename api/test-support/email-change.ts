/*
 * E-mail changes in tests: the links bpay mailed, read back from the outbox as a person would read them from their
 * inbox (the newest first), and the change followed through to the end.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, type TestContext } from './app';
import { mailedText } from './mailbox';

/** The token of the newest link (by insertion: the test clock may stand still) of this kind (confirm-email or revert-email) mailed to `to`, or null. */
export async function mailedToken(ctx: TestContext, to: string, page: 'confirm-email' | 'revert-email'): Promise<string | null> {
  const o = schema.emailOutbox;
  const kind = page === 'confirm-email' ? 'email_change_confirm' : 'email_changed';
  const rows = await ctx.deps.db.select().from(o).where(and(eq(o.toAddress, to), eq(o.kind, kind))).orderBy(desc(sql`rowid`));
  for (const row of rows) {
    const m = new RegExp(`/${page}\\?token=([A-Za-z0-9_-]{43})`).exec(mailedText(ctx, row));
    if (m) return m[1]!;
  }
  return null;
}

/** PATCH /api/auth/user with a new address, then follows the link mailed to it. Returns the confirm answer. */
export async function changeEmail(ctx: TestContext, cookie: string, newEmail: string, currentPassword: string) {
  const asked = await call(ctx, '/api/auth/user', { method: 'PATCH', cookie, body: { email: newEmail, currentPassword } });
  if (asked.status !== 200) throw new Error(`e-mail change refused: ${asked.status} ${asked.text}`);
  const token = await mailedToken(ctx, newEmail.trim(), 'confirm-email');
  if (!token) throw new Error(`no confirmation link was mailed to ${newEmail}`);
  return call(ctx, '/api/auth/email-change/confirm', { method: 'POST', body: { token } });
}
