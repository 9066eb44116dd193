import { afterAll, beforeAll, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { changeEmail } from '../../../test-support/email-change';
import { mailedText } from '../../../test-support/mailbox';

/*
 * AUDIT: a reset link mailed to the account's OLD address still works after the e-mail address is changed
 * (updateAccount invalidated reset tokens only on a password change; now the confirmed change does). Whoever reads the old mailbox (often the reason
 * the address was changed) can take the account back for 30 minutes.
 */

const PASSWORD = 'correct horse battery';
let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp({ rateLimits: false });
});
afterAll(() => ctx.close());

async function linkTokenFor(userId: string): Promise<string> {
  const rows = await ctx.deps.db.query.emailOutbox.findMany({ where: eq(schema.emailOutbox.userId, userId) });
  const all = rows.map((r) => mailedText(ctx, r)).join('\n');
  const m = /reset-password\?token=([A-Za-z0-9_-]{43})/.exec(all);
  if (!m) throw new Error('no reset link in the outbox');
  return m[1]!;
}

test('changing the e-mail address invalidates reset links sent to the old address', async () => {
  const u = await registerUser(ctx, { password: PASSWORD });
  expect((await call(ctx, '/api/auth/password-reset', { method: 'POST', body: { email: u.email }, ip: '198.51.100.9' })).status).toBe(200);
  const token = await linkTokenFor(u.user.id);
  const changed = await changeEmail(ctx, u.cookie, `new-${u.email}`, PASSWORD);
  expect(changed.status, changed.text).toBe(200);
  const res = await call(ctx, '/api/auth/password-reset/confirm', { method: 'POST', body: { token, password: 'brass lantern meadow' } });
  expect(res.status, res.text).toBe(400);
});
