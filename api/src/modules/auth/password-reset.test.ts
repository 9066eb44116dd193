import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { login, me, registerUser } from '../../../test-support/world';
import { changeEmail } from '../../../test-support/email-change';
import { connectBrowser, extensionCall } from '../../../test-support/modules/extension';
import { plainBody, startSmtpServer, type TestSmtpServer } from '../../../test-support/smtp-server';
import { smtpTransport } from '../email/transport';
import { sendDueEmails } from '../email/worker';
import { RESET_PER_ADDRESS, RESET_PER_EMAIL, RESET_TOKEN_TTL_MS } from './password-reset';

/*
 * Password reset, the sign-in notice and the e-mail change notice over the API, delivered by the mail worker to a
 * real SMTP server on this machine; the link is read from the mail as a person would click it.
 */

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'brass lantern meadow';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

let smtp: TestSmtpServer;
let ctx: TestContext;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await makeTestApp({ mail: { transport: smtpTransport(smtp.url), from: 'bpay <no-reply@bpay.test>' } });
});
afterAll(async () => {
  ctx.deps.mail.transport?.close();
  ctx.close();
  await smtp.close();
});
beforeEach(() => {
  smtp.received.length = 0;
});

let ipCounter = 0;
/** A fresh client address per test, so the per-address limit of one test does not reach the next. */
const freshIp = () => `198.51.100.${++ipCounter}`;

const requestReset = (email: string, ip = freshIp()) => call(ctx, '/api/auth/password-reset', { method: 'POST', body: { email }, ip });
const check = (token: string) => call(ctx, '/api/auth/password-reset/check', { method: 'POST', body: { token } });
const confirm = (token: string, password = NEW_PASSWORD) =>
  call(ctx, '/api/auth/password-reset/confirm', { method: 'POST', body: { token, password } });

/** Sends the outbox and returns the token from the reset mail sent to `to`. */
async function mailedToken(to: string): Promise<string> {
  await sendDueEmails(ctx.deps);
  const mail = smtp.received.filter((m) => m.to.includes(to) && m.raw.includes('Reset your bpay password')).at(-1);
  if (!mail) throw new Error(`no reset mail to ${to}`);
  const m = /http:\/\/localhost:3000\/reset-password\?token=([A-Za-z0-9_-]{43})/.exec(plainBody(mail.raw));
  if (!m) throw new Error(`no link in the reset mail:\n${mail.raw}`);
  return m[1]!;
}

const outboxOf = (userId: string) => ctx.deps.db.query.emailOutbox.findMany({ where: eq(schema.emailOutbox.userId, userId) });

describe('password reset', () => {
  test('a reset disconnects every browser extension of the account too', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const browser = await connectBrowser(ctx, u.cookie, 'Chrome on Linux', freshIp());
    await requestReset(u.email);
    expect((await confirm(await mailedToken(u.email))).status).toBe(200);
    const me = await extensionCall(ctx, browser.token, '/api/extension/me');
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('extension_token_invalid');
  });

  test('end to end: the mailed link sets a new password once, ends every session, and the new password signs in', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const phone = (await login(ctx, u.email, PASSWORD, { ip: '203.0.113.50' })).cookie!;
    const res = await requestReset(u.email.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'If an account uses this e-mail address, a link to reset its password is on its way. It expires in 30 minutes.',
    });
    const token = await mailedToken(u.email);
    // Only the token's HMAC is stored.
    const rows = await ctx.deps.db.query.passwordResetTokens.findMany({ where: eq(schema.passwordResetTokens.userId, u.user.id) });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).not.toContain(token);
    expect(rows[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);

    const checked = await check(token);
    expect(checked.status).toBe(200);
    expect(checked.body.email).toBe(`${u.email[0]}***@example.com`);

    const weak = await confirm(token, 'qwerty');
    expect(weak.status).toBe(400);
    expect(weak.body.error).toMatchObject({ code: 'weak_password', param: 'password' });

    const ok = await confirm(token);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true });
    expect(ok.cookie).toBeNull();
    // Every session ended, the one that registered and the other device's.
    expect((await me(ctx, u.cookie)).status).toBe(401);
    expect((await me(ctx, phone)).status).toBe(401);
    expect((await login(ctx, u.email, PASSWORD, { ip: freshIp() })).status).toBe(401);
    expect((await login(ctx, u.email, NEW_PASSWORD, { ip: freshIp() })).status).toBe(200);

    // Single use.
    const again = await confirm(token, 'another brass lantern');
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'reset_token_used', param: 'token' });
    expect((await check(token)).body.error.code).toBe('reset_token_used');
    expect((await login(ctx, u.email, NEW_PASSWORD, { ip: freshIp() })).status).toBe(200);
  });

  test('the new hash, the used link and the end of every session are one unit: when ending them fails, nothing of it stays', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const phone = (await login(ctx, u.email, PASSWORD, { ip: freshIp() })).cookie!;
    await requestReset(u.email);
    const token = await mailedToken(u.email);
    // The crash between storing the hash and ending the sessions: the deletion fails inside the reset's transaction.
    await ctx.handle.client.execute(
      "CREATE TRIGGER refuse_session_delete_reset BEFORE DELETE ON sessions BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
    );
    try {
      expect((await confirm(token)).status).toBe(500);
    } finally {
      await ctx.handle.client.execute('DROP TRIGGER refuse_session_delete_reset');
    }
    // Nothing of it happened: the old password, the sessions and the link all still work.
    expect((await me(ctx, phone)).status).toBe(200);
    expect((await login(ctx, u.email, NEW_PASSWORD, { ip: freshIp() })).status).toBe(401);
    expect((await login(ctx, u.email, PASSWORD, { ip: freshIp() })).status).toBe(200);
    expect((await check(token)).status).toBe(200);
    // And once the fault is gone the same link does all of it.
    expect((await confirm(token)).status).toBe(200);
    expect((await me(ctx, phone)).status).toBe(401);
    expect((await login(ctx, u.email, NEW_PASSWORD, { ip: freshIp() })).status).toBe(200);
  });

  test('the answer is the same for an unknown address, and nothing is mailed', async () => {
    const known = await registerUser(ctx, { password: PASSWORD });
    const a = await requestReset('nobody-here@example.com');
    const b = await requestReset(known.email);
    expect(a.status).toBe(b.status);
    expect(a.body).toEqual(b.body);
    expect(a.headers.get('content-type')).toBe(b.headers.get('content-type'));
    await sendDueEmails(ctx.deps);
    const resets = smtp.received.filter((m) => m.raw.includes('Reset your bpay password'));
    expect(resets.map((m) => m.to[0])).toEqual([known.email]);
  });

  test('an expired link is refused (and changes nothing)', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    await requestReset(u.email);
    const token = await mailedToken(u.email);
    ctx.clock.advance(RESET_TOKEN_TTL_MS);
    const res = await confirm(token);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'reset_token_expired', param: 'token' });
    expect(res.body.error.message).toBe('This password reset link has expired. Request a new one.');
    expect((await me(ctx, u.cookie)).status).toBe(200);
    expect((await login(ctx, u.email, PASSWORD, { ip: freshIp() })).status).toBe(200);
  });

  test('a link just inside its 30 minutes still works', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    await requestReset(u.email);
    const token = await mailedToken(u.email);
    ctx.clock.advance(RESET_TOKEN_TTL_MS - 1000);
    expect((await confirm(token)).status).toBe(200);
  });

  test('an unknown token is refused with its own message', async () => {
    const res = await confirm('A'.repeat(43));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'reset_token_invalid', param: 'token' });
    const malformed = await confirm('short');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'validation_error', param: 'token' });
  });

  test('a newer link replaces the earlier one', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    await requestReset(u.email);
    const first = await mailedToken(u.email);
    await requestReset(u.email);
    const second = await mailedToken(u.email);
    expect(second).not.toBe(first);
    expect((await confirm(first)).body.error.code).toBe('reset_token_invalid');
    expect((await confirm(second)).status).toBe(200);
  });

  test('changing the password in Settings invalidates a link mailed before', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    await requestReset(u.email);
    const token = await mailedToken(u.email);
    const changed = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie: u.cookie,
      body: { password: NEW_PASSWORD, currentPassword: PASSWORD },
    });
    expect(changed.status).toBe(200);
    expect((await confirm(token, 'another brass lantern')).body.error.code).toBe('reset_token_invalid');
    expect((await login(ctx, u.email, NEW_PASSWORD, { ip: freshIp() })).status).toBe(200);
  });

  test('two confirmations with one token at once: exactly one succeeds', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    await requestReset(u.email);
    const token = await mailedToken(u.email);
    const answers = await Promise.all([confirm(token, 'first brass lantern'), confirm(token, 'second brass lantern')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(answers.find((a) => a.status === 400)!.body.error.code).toBe('reset_token_used');
  });

  test(`rate limited per e-mail (${RESET_PER_EMAIL.limit} an hour, from any address, account or not)`, async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    for (let i = 0; i < RESET_PER_EMAIL.limit; i++) expect((await requestReset(u.email)).status).toBe(200);
    const refused = await requestReset(u.email);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('password_reset_rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The same for an address no account has: the limit tells nothing about accounts.
    for (let i = 0; i < RESET_PER_EMAIL.limit; i++) expect((await requestReset('ghost@example.com')).status).toBe(200);
    expect((await requestReset('ghost@example.com')).status).toBe(429);
    ctx.clock.advance(RESET_PER_EMAIL.windowMs);
    expect((await requestReset(u.email)).status).toBe(200);
  });

  test(`rate limited per client address (${RESET_PER_ADDRESS.limit} an hour, all e-mails)`, async () => {
    const ip = freshIp();
    for (let i = 0; i < RESET_PER_ADDRESS.limit; i++) expect((await requestReset(`spray${i}@example.com`, ip)).status).toBe(200);
    const refused = await requestReset('spray-last@example.com', ip);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('password_reset_rate_limited');
    expect((await requestReset('spray-last@example.com', freshIp())).status).toBe(200);
  });

  test('a malformed e-mail is a validation error naming the field', async () => {
    const res = await requestReset('invalid-address');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'email' });
  });
});

describe('new sign-in notice', () => {
  test('on (the default): a sign-in mails the device, address and time', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    expect(await outboxOf(u.user.id)).toHaveLength(0);
    const res = await call(ctx, '/api/auth/login', {
      method: 'POST',
      body: { email: u.email, password: PASSWORD },
      ip: '192.0.2.44',
      headers: { 'user-agent': FIREFOX },
    });
    expect(res.status).toBe(200);
    await sendDueEmails(ctx.deps);
    const mail = smtp.received.find((m) => m.to.includes(u.email));
    expect(mail).toBeDefined();
    const body = plainBody(mail!.raw);
    expect(body).toContain('Subject: New sign-in to your bpay account');
    expect(body).toContain('Device: Firefox on Linux');
    expect(body).toContain('Address: 192.0.2.44');
    expect(body).toContain(`Time: ${ctx.clock.now().toUTCString().replace(/:\d\d GMT$/, ' UTC')}`);
  });

  test('off: no notice; a failed sign-in sends none either', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    expect((await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { loginNotifications: false } })).status).toBe(200);
    expect((await login(ctx, u.email, PASSWORD, { ip: freshIp() })).status).toBe(200);
    const on = await registerUser(ctx, { password: PASSWORD });
    expect((await login(ctx, on.email, 'wrong password here', { ip: freshIp() })).status).toBe(401);
    expect(await outboxOf(u.user.id)).toHaveLength(0);
    expect(await outboxOf(on.user.id)).toHaveLength(0);
  });
});

describe('e-mail change notice', () => {
  test('the old address is mailed when the change is confirmed', async () => {
    const u = await registerUser(ctx, { password: PASSWORD, firstName: 'Grace' });
    const res = await changeEmail(ctx, u.cookie, 'grace.new@example.com', PASSWORD);
    expect(res.status).toBe(200);
    await sendDueEmails(ctx.deps);
    // First the link to the new address, then the notice to the old one (the in-app notice may mail the new one too).
    expect(smtp.received[0]!.to).toEqual(['grace.new@example.com']);
    expect(plainBody(smtp.received[0]!.raw)).toContain('/confirm-email?token=');
    const toOld = smtp.received.filter((m) => m.to.includes(u.email));
    expect(toOld).toHaveLength(1);
    const body = plainBody(toOld[0]!.raw);
    expect(body).toContain('Subject: Your bpay e-mail address was changed');
    expect(body).toContain('Hello Grace,');
    expect(body).toContain('g***@example.com');
    expect(body).toContain('/revert-email?token=');
  });
});
