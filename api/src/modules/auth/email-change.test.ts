import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { login, me, registerUser } from '../../../test-support/world';
import { mailedToken } from '../../../test-support/email-change';
import { EMAIL_CHANGE_TTL_MS, EMAIL_REVERT_TTL_MS } from './email-change';

/* E-mail changes are confirmed by a link mailed to the new address (issue 25), and can be undone from the old one. */

const PASSWORD = 'correct horse battery';
let ctx: TestContext;
let n = 0;
beforeAll(async () => {
  ctx = await makeTestApp({ rateLimits: false });
});
afterAll(() => ctx.close());

const fresh = (tag: string) => `${tag}-${++n}-${Date.now()}@example.com`;
const ip = () => `198.51.100.${(n % 200) + 20}`;
const ask = (cookie: string, email: string) =>
  call(ctx, '/api/auth/user', { method: 'PATCH', cookie, body: { email, currentPassword: PASSWORD } });
const confirm = (token: string | null) => call(ctx, '/api/auth/email-change/confirm', { method: 'POST', body: { token } });
const revert = (token: string | null) => call(ctx, '/api/auth/email-change/revert', { method: 'POST', body: { token } });
const pending = (cookie: string) => call(ctx, '/api/auth/email-change', { cookie });
const emailOf = async (userId: string) => (await ctx.deps.db.query.users.findFirst({ where: eq(schema.users.id, userId) }))!.email;

describe('confirming a new address', () => {
  test('the old address signs in until the link is followed; the link works once; then only the new address signs in', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const to = fresh('new');
    const asked = await ask(u.cookie, to);
    expect(asked.status, asked.text).toBe(200);
    expect(asked.body.email).toBe(u.email);
    expect((await pending(u.cookie)).body.pending).toMatchObject({ email: to });
    expect((await login(ctx, u.email, PASSWORD, { ip: ip() })).status).toBe(200);
    expect((await login(ctx, to, PASSWORD, { ip: ip() })).status).toBe(401);

    const token = await mailedToken(ctx, to, 'confirm-email');
    expect(token).not.toBeNull();
    const done = await confirm(token);
    expect(done.status, done.text).toBe(200);
    expect(done.body).toEqual({ email: to });
    expect((await me(ctx, u.cookie)).body.email).toBe(to); // sessions are kept
    expect((await pending(u.cookie)).body.pending).toBeNull();
    expect((await login(ctx, to, PASSWORD, { ip: ip() })).status).toBe(200);
    expect((await login(ctx, u.email, PASSWORD, { ip: ip() })).status).toBe(401);

    const again = await confirm(token);
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'email_change_token_used', param: 'token' });
    // One notice, one mail to the old address.
    const notices = await ctx.deps.db.query.notifications.findMany({
      where: and(eq(schema.notifications.userId, u.user.id), eq(schema.notifications.kind, 'email_changed')),
    });
    expect(notices.map((x) => x.params)).toEqual([{ newEmailMasked: `${to[0]}***@example.com` }]);
    const toOld = await ctx.deps.db.query.emailOutbox.findMany({
      where: and(eq(schema.emailOutbox.toAddress, u.email), eq(schema.emailOutbox.kind, 'email_changed')),
    });
    expect(toOld).toHaveLength(1);
    expect(toOld[0]!.textBody).toContain('/revert-email?token=');
  });

  test('an expired link is refused and changes nothing', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const to = fresh('late');
    expect((await ask(u.cookie, to)).status).toBe(200);
    const token = await mailedToken(ctx, to, 'confirm-email');
    ctx.clock.advance(EMAIL_CHANGE_TTL_MS);
    const res = await confirm(token);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'email_change_token_expired', param: 'token' });
    expect(await emailOf(u.user.id)).toBe(u.email);
    expect((await pending(u.cookie)).body.pending).toBeNull();
  });

  test('a newer request, a resend or a cancel makes the earlier link stop working', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const first = fresh('first');
    const second = fresh('second');
    expect((await ask(u.cookie, first)).status).toBe(200);
    const t1 = await mailedToken(ctx, first, 'confirm-email');
    expect((await ask(u.cookie, second)).status).toBe(200);
    expect((await confirm(t1)).body.error).toMatchObject({ code: 'email_change_token_invalid', param: 'token' });
    expect(await emailOf(u.user.id)).toBe(u.email);

    const t2 = await mailedToken(ctx, second, 'confirm-email');
    const resent = await call(ctx, '/api/auth/email-change/resend', { method: 'POST', cookie: u.cookie });
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.pending).toMatchObject({ email: second });
    const t3 = await mailedToken(ctx, second, 'confirm-email');
    expect(t3).not.toBe(t2);
    expect((await confirm(t2)).body.error.code).toBe('email_change_token_invalid');

    const canceled = await call(ctx, '/api/auth/email-change', { method: 'DELETE', cookie: u.cookie });
    expect(canceled.status).toBe(200);
    expect((await pending(u.cookie)).body.pending).toBeNull();
    expect((await confirm(t3)).body.error.code).toBe('email_change_token_invalid');
    expect(await emailOf(u.user.id)).toBe(u.email);
    // Nothing pending: nothing to resend.
    expect((await call(ctx, '/api/auth/email-change/resend', { method: 'POST', cookie: u.cookie })).status).toBe(404);
  });

  test('the new address must still be free when the link is followed', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const to = fresh('contested');
    expect((await ask(u.cookie, to)).status).toBe(200);
    const token = await mailedToken(ctx, to, 'confirm-email');
    await registerUser(ctx, { email: to.toUpperCase() });
    const res = await confirm(token);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'email_taken', param: 'email' });
    expect(await emailOf(u.user.id)).toBe(u.email);
    // Asking for a taken address is refused at once, and mails nothing.
    const other = await registerUser(ctx);
    expect((await ask(u.cookie, other.email)).status).toBe(409);
    expect(await mailedToken(ctx, other.email, 'confirm-email')).toBeNull();
  });

  test('bad tokens: unknown is invalid, malformed a validation error naming the token', async () => {
    const unknown = await confirm('A'.repeat(43));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'email_change_token_invalid', param: 'token' });
    const malformed = await confirm('short');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'validation_error', param: 'token' });
    expect((await revert('B'.repeat(43))).body.error).toMatchObject({ code: 'email_change_token_invalid' });
    // The pending view is the signed-in user's own.
    expect((await call(ctx, '/api/auth/email-change')).status).toBe(401);
  });

  test('the link and the notice are in the user\'s language: Arabic right-to-left, the address left-to-right', async () => {
    const u = await registerUser(ctx, { password: PASSWORD, language: 'ar' });
    const to = fresh('arabic');
    expect((await ask(u.cookie, to)).status).toBe(200);
    const mail = await ctx.deps.db.query.emailOutbox.findFirst({
      where: and(eq(schema.emailOutbox.toAddress, to), eq(schema.emailOutbox.kind, 'email_change_confirm')),
    });
    expect(mail!.subject).toBe('أكّد عنوان بريدك الإلكتروني الجديد في bpay');
    expect(mail!.htmlBody).toContain('<html lang="ar" dir="rtl">');
    expect(mail!.htmlBody).toContain(`<bdi dir="ltr">${to}</bdi>`);
    expect(mail!.textBody).toContain(`\u2066${to}\u2069`);
    expect(mail!.textBody).toContain('24');
  });
});

describe('"this was not me"', () => {
  test('puts the old address back, ends every session, mails a reset link to the old address; works once', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const to = fresh('taker');
    expect((await ask(u.cookie, to)).status).toBe(200);
    expect((await confirm(await mailedToken(ctx, to, 'confirm-email'))).status).toBe(200);
    const other = (await login(ctx, to, PASSWORD, { ip: ip() })).cookie!;
    const token = await mailedToken(ctx, u.email, 'revert-email');
    expect(token).not.toBeNull();

    const res = await revert(token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ email: `${u.email[0]}***@example.com` });
    expect(await emailOf(u.user.id)).toBe(u.email);
    expect((await me(ctx, u.cookie)).status).toBe(401);
    expect((await me(ctx, other)).status).toBe(401);
    const reset = await ctx.deps.db.query.emailOutbox.findMany({
      where: and(eq(schema.emailOutbox.toAddress, u.email), eq(schema.emailOutbox.kind, 'password_reset')),
    });
    expect(reset).toHaveLength(1);
    expect(reset[0]!.textBody).toContain('/reset-password?token=');

    const again = await revert(token);
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'email_change_token_used', param: 'token' });
  });

  test('the owner\'s revert ends every other revert link: a second change by the taker cannot take the account back', async () => {
    const owner = await registerUser(ctx, { password: PASSWORD });
    const x = fresh('taker-x');
    const y = fresh('taker-y');
    // Whoever has the password moves the account to x, then to y: the link for y's change goes to x (theirs).
    expect((await ask(owner.cookie, x)).status).toBe(200);
    expect((await confirm(await mailedToken(ctx, x, 'confirm-email'))).status).toBe(200);
    expect((await ask(owner.cookie, y)).status).toBe(200);
    expect((await confirm(await mailedToken(ctx, y, 'confirm-email'))).status).toBe(200);
    const ownersLink = await mailedToken(ctx, owner.email, 'revert-email');
    const takersLink = await mailedToken(ctx, x, 'revert-email');
    expect(takersLink).not.toBeNull();
    expect((await revert(ownersLink)).status).toBe(200);
    expect(await emailOf(owner.user.id)).toBe(owner.email);
    // The taker's link no longer works, and nothing moves.
    const late = await revert(takersLink);
    expect(late.status).toBe(400);
    expect(late.body.error).toMatchObject({ code: 'email_change_token_expired', param: 'token' });
    expect(await emailOf(owner.user.id)).toBe(owner.email);
    const resets = await ctx.deps.db.query.emailOutbox.findMany({
      where: and(eq(schema.emailOutbox.toAddress, x), eq(schema.emailOutbox.kind, 'password_reset')),
    });
    expect(resets).toHaveLength(0);
  });

  test('the old address is held while its revert link works: nobody can register it or move to it', async () => {
    const owner = await registerUser(ctx, { password: PASSWORD });
    const to = fresh('taker');
    expect((await ask(owner.cookie, to)).status).toBe(200);
    expect((await confirm(await mailedToken(ctx, to, 'confirm-email'))).status).toBe(200);
    // Registering the owner's old address (any letter case) is refused while the link works.
    const reg = await call(ctx, '/api/auth/register', {
      method: 'POST',
      body: { email: owner.email.toUpperCase(), password: 'another good passphrase', firstName: 'Mal', lastName: 'Lory' },
    });
    expect(reg.status).toBe(409);
    expect(reg.body.error).toMatchObject({ code: 'email_taken', param: 'email' });
    // So is moving another account to it.
    const other = await registerUser(ctx, { password: PASSWORD });
    const move = await ask(other.cookie, owner.email);
    expect(move.status).toBe(409);
    expect(move.body.error.code).toBe('email_taken');
    // The owner's way back still works.
    expect((await revert(await mailedToken(ctx, owner.email, 'revert-email'))).status).toBe(200);
    expect(await emailOf(owner.user.id)).toBe(owner.email);
  });

  test('once the revert link has expired, the old address is free again', async () => {
    const owner = await registerUser(ctx, { password: PASSWORD });
    const to = fresh('moved');
    expect((await ask(owner.cookie, to)).status).toBe(200);
    expect((await confirm(await mailedToken(ctx, to, 'confirm-email'))).status).toBe(200);
    ctx.clock.advance(EMAIL_REVERT_TTL_MS);
    const reg = await call(ctx, '/api/auth/register', {
      method: 'POST',
      body: { email: owner.email, password: 'another good passphrase', firstName: 'New', lastName: 'Person' },
    });
    expect(reg.status, reg.text).toBe(201);
  });

  test('an expired revert link is refused and changes nothing', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const to = fresh('kept');
    expect((await ask(u.cookie, to)).status).toBe(200);
    expect((await confirm(await mailedToken(ctx, to, 'confirm-email'))).status).toBe(200);
    const token = await mailedToken(ctx, u.email, 'revert-email');
    ctx.clock.advance(EMAIL_REVERT_TTL_MS);
    expect((await revert(token)).body.error).toMatchObject({ code: 'email_change_token_expired', param: 'token' });
    expect(await emailOf(u.user.id)).toBe(to);
    expect((await me(ctx, u.cookie)).status).toBe(200);
  });
});
