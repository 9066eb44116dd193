import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { hotp, totp, totpStep } from '../../lib/totp';
import { call, login, makeTestApp, me, registerUser, type TestContext } from '../../testing';

/* Two-factor enrolment, sign-in with a TOTP code, replay refusal and turning it off, through the HTTP API. */

const PASSWORD = 'correct horse battery';

describe('two-factor sign-in', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => ctx.close());

  const now = () => ctx.clock.now().getTime();
  /** A 6-digit code that is wrong for every step the server would accept now. */
  const wrongCode = (secret: string) => {
    const step = totpStep(now());
    const accepted = new Set([hotp(secret, step - 1), hotp(secret, step), hotp(secret, step + 1)]);
    for (let i = 0; ; i++) {
      const candidate = String(i).padStart(6, '0');
      if (!accepted.has(candidate)) return candidate;
    }
  };

  async function enrol() {
    const u = await registerUser(ctx, { password: PASSWORD });
    const setup = await call(ctx, '/api/auth/2fa/setup', { method: 'POST', cookie: u.cookie });
    expect(setup.status).toBe(200);
    const secret: string = setup.body.secret;
    const confirm = await call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: u.cookie, body: { code: totp(secret, now()) } });
    expect(confirm.status).toBe(200);
    expect(confirm.body.twoFactorEnabled).toBe(true);
    return { ...u, secret, confirmCode: totp(secret, now()) };
  }

  test('confirm with a wrong code is 400 and leaves two-factor off', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const setup = await call(ctx, '/api/auth/2fa/setup', { method: 'POST', cookie: u.cookie });
    const res = await call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: u.cookie, body: { code: wrongCode(setup.body.secret) } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_two_factor_code', param: 'code' });
    expect((await me(ctx, u.cookie)).body.twoFactorEnabled).toBe(false);
    // Sign-in still needs no code.
    expect((await login(ctx, u.email, PASSWORD)).status).toBe(200);
  });

  test('confirm before setup is 409 two_factor_not_pending', async () => {
    const u = await registerUser(ctx);
    const res = await call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: u.cookie, body: { code: '123456' } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('two_factor_not_pending');
  });

  test('the secret is stored sealed, never as the base32 text', async () => {
    const u = await enrol();
    const row = await ctx.handle.db.query.users.findFirst({ where: eq(schema.users.id, u.user.id) });
    expect(row?.totpSecret).toBeTruthy();
    expect(row?.totpSecret).not.toContain(u.secret);
    expect(row?.totpPendingSecret).toBeNull();
    const setupAgain = await call(ctx, '/api/auth/2fa/setup', { method: 'POST', cookie: u.cookie });
    expect(setupAgain.status).toBe(409);
    expect(setupAgain.body.error.code).toBe('two_factor_already_enabled');
  });

  test('sign-in asks for the code, refuses wrong and replayed codes, accepts a fresh one once', async () => {
    const u = await enrol();

    const noCode = await login(ctx, u.email, PASSWORD);
    expect(noCode.status).toBe(401);
    expect(noCode.body.error).toMatchObject({ type: 'authentication_error', code: 'two_factor_required' });
    expect(noCode.cookie).toBeNull();

    const wrong = await login(ctx, u.email, PASSWORD, { totpCode: wrongCode(u.secret) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('invalid_two_factor_code');
    expect(wrong.cookie).toBeNull();

    // The code that confirmed enrolment was used: the same step is refused.
    const replayOfConfirm = await login(ctx, u.email, PASSWORD, { totpCode: u.confirmCode });
    expect(replayOfConfirm.status).toBe(400);
    expect(replayOfConfirm.cookie).toBeNull();

    // The right code with the wrong password says nothing about the code.
    ctx.clock.advance(30_000);
    const code = totp(u.secret, now());
    const wrongPassword = await login(ctx, u.email, 'not the password', { totpCode: code });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body.error.code).toBe('invalid_credentials');

    const right = await login(ctx, u.email, PASSWORD, { totpCode: code });
    expect(right.status).toBe(200);
    expect(right.cookie).not.toBeNull();

    const replay = await login(ctx, u.email, PASSWORD, { totpCode: code });
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe('invalid_two_factor_code');
    expect(replay.cookie).toBeNull();

    ctx.clock.advance(30_000);
    const next = await login(ctx, u.email, PASSWORD, { totpCode: totp(u.secret, now()) });
    expect(next.status).toBe(200);
  });

  test('one code sent by five sign-ins at once signs in exactly once', async () => {
    const u = await enrol();
    ctx.clock.advance(30_000);
    const code = totp(u.secret, now());
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => login(ctx, u.email, PASSWORD, { totpCode: code, ip: `198.51.100.${50 + i}` })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400 && a.body.error.code === 'invalid_two_factor_code')).toHaveLength(4);
  });

  test('a code from one step back is accepted (clock drift), two steps back is not', async () => {
    const u = await enrol();
    ctx.clock.advance(90_000);
    const old2 = hotp(u.secret, totpStep(now()) - 2);
    const accepted = new Set([-1, 0, 1].map((d) => hotp(u.secret, totpStep(now()) + d)));
    if (!accepted.has(old2)) expect((await login(ctx, u.email, PASSWORD, { totpCode: old2 })).status).toBe(400);
    const old1 = hotp(u.secret, totpStep(now()) - 1);
    expect((await login(ctx, u.email, PASSWORD, { totpCode: old1 })).status).toBe(200);
  });

  test('disable needs a valid, unused code', async () => {
    const u = await enrol();
    const wrong = await call(ctx, '/api/auth/2fa/disable', { method: 'POST', cookie: u.cookie, body: { code: wrongCode(u.secret) } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('invalid_two_factor_code');
    const replay = await call(ctx, '/api/auth/2fa/disable', { method: 'POST', cookie: u.cookie, body: { code: u.confirmCode } });
    expect(replay.status).toBe(400);
    expect((await me(ctx, u.cookie)).body.twoFactorEnabled).toBe(true);
    expect((await login(ctx, u.email, PASSWORD)).body.error.code).toBe('two_factor_required');

    ctx.clock.advance(30_000);
    const off = await call(ctx, '/api/auth/2fa/disable', { method: 'POST', cookie: u.cookie, body: { code: totp(u.secret, now()) } });
    expect(off.status).toBe(200);
    expect(off.body.twoFactorEnabled).toBe(false);
    const plain = await login(ctx, u.email, PASSWORD);
    expect(plain.status).toBe(200);
    const row = await ctx.handle.db.query.users.findFirst({ where: eq(schema.users.id, u.user.id) });
    expect(row?.totpSecret).toBeNull();
  });
});
