import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { hotp, totp, totpStep } from '../../lib/totp';
import { recordThrottle } from '../../lib/throttle';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { login, me, registerUser } from '../../../test-support/world';
import { REAUTH_FAILURES, SIGN_IN_PER_ACCOUNT, TWO_FACTOR_FAILURES } from './rate-limit';

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

  const disable = (cookie: string, body: Record<string, unknown>) => call(ctx, '/api/auth/2fa/disable', { method: 'POST', cookie, body });

  test('disable needs the current password and a valid, unused code', async () => {
    const u = await enrol();
    const noPassword = await disable(u.cookie, { code: totp(u.secret, now()) });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.error).toMatchObject({ code: 'validation_error', param: 'password' });
    ctx.clock.advance(30_000);
    const wrongPassword = await disable(u.cookie, { code: totp(u.secret, now()), password: 'not the password' });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.body.error).toMatchObject({ code: 'invalid_current_password', param: 'password' });
    const wrong = await disable(u.cookie, { code: wrongCode(u.secret), password: PASSWORD });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_two_factor_code', param: 'code' });
    const replay = await disable(u.cookie, { code: u.confirmCode, password: PASSWORD });
    expect(replay.status).toBe(400);
    expect((await me(ctx, u.cookie)).body.twoFactorEnabled).toBe(true);
    expect((await login(ctx, u.email, PASSWORD)).body.error.code).toBe('two_factor_required');

    ctx.clock.advance(30_000);
    const off = await disable(u.cookie, { code: totp(u.secret, now()), password: PASSWORD });
    expect(off.status).toBe(200);
    expect(off.body.twoFactorEnabled).toBe(false);
    const plain = await login(ctx, u.email, PASSWORD);
    expect(plain.status).toBe(200);
    const row = await ctx.handle.db.query.users.findFirst({ where: eq(schema.users.id, u.user.id) });
    expect(row?.totpSecret).toBeNull();
  });

  test('200 wrong codes at once to disable: at most 5 are checked, the rest get 429 with Retry-After; then a wait', async () => {
    const u = await enrol();
    const bad = wrongCode(u.secret);
    const answers = await Promise.all(Array.from({ length: 200 }, () => disable(u.cookie, { code: bad, password: PASSWORD })));
    const checked = answers.filter((a) => a.status === 400);
    const refused = answers.filter((a) => a.status === 429);
    expect(checked.length).toBeLessThanOrEqual(TWO_FACTOR_FAILURES.limit);
    expect(checked.length + refused.length).toBe(200);
    for (const a of checked) expect(a.body.error.code).toBe('invalid_two_factor_code');
    for (const a of refused) {
      expect(a.body.error).toMatchObject({ type: 'rate_limit_error', code: 'verification_rate_limited' });
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Sequential guesses meet the same limit: even the right code waits until the delay has passed.
    const rightButEarly = await disable(u.cookie, { code: totp(u.secret, now() + 30_000), password: PASSWORD });
    expect(rightButEarly.status).toBe(429);
    const wait = Number(rightButEarly.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    ctx.clock.advance(wait * 1000);
    expect((await disable(u.cookie, { code: totp(u.secret, now()), password: PASSWORD })).status).toBe(200);
  });

  test('wrong current passwords to disable are counted too', async () => {
    const u = await enrol();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => disable(u.cookie, { code: totp(u.secret, now()), password: 'a wrong password' })),
    );
    expect(answers.filter((a) => a.status === 400).length).toBeLessThanOrEqual(REAUTH_FAILURES.limit);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(30 - REAUTH_FAILURES.limit);
    expect((await me(ctx, u.cookie)).body.twoFactorEnabled).toBe(true);
  });

  test('wrong codes to confirm enrolment are counted: 100 at once, at most 5 checked', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const setup = await call(ctx, '/api/auth/2fa/setup', { method: 'POST', cookie: u.cookie });
    const bad = wrongCode(setup.body.secret);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: u.cookie, body: { code: bad } })),
    );
    expect(answers.filter((a) => a.status === 400).length).toBeLessThanOrEqual(TWO_FACTOR_FAILURES.limit);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(100 - TWO_FACTOR_FAILURES.limit);
    expect(refused[0]!.body.error.code).toBe('verification_rate_limited');
    expect((await me(ctx, u.cookie)).body.twoFactorEnabled).toBe(false);
  });

  test('wrong codes at sign-in count against the account wherever they come from', async () => {
    const u = await enrol();
    ctx.clock.advance(30_000);
    const bad = wrongCode(u.secret);
    for (let i = 0; i < TWO_FACTOR_FAILURES.limit; i++) {
      expect((await login(ctx, u.email, PASSWORD, { totpCode: bad, ip: `198.51.100.${120 + i}` })).status).toBe(400);
    }
    const sixth = await login(ctx, u.email, PASSWORD, { totpCode: bad, ip: '198.51.100.140' });
    expect(sixth.status).toBe(429);
    expect(sixth.body.error.code).toBe('verification_rate_limited');
  });

  test('past the account cap, a new address gets in only with the right password and code; anything less is the same 429', async () => {
    const u = await enrol();
    // The account has had a day's worth of failed sign-ins from everywhere.
    await recordThrottle(ctx.handle.db, ctx.clock, [{ rule: SIGN_IN_PER_ACCOUNT, key: u.email.toLowerCase(), weight: SIGN_IN_PER_ACCOUNT.limit }]);
    ctx.clock.advance(30_000);
    const code = totp(u.secret, now());
    const ip = '192.0.2.150';
    // Without a code the password alone gets the sign-in link answer (sign-in-link.test.ts), never a session.
    const withoutCode = await login(ctx, u.email, PASSWORD, { ip: '192.0.2.151' });
    expect(withoutCode.status).toBe(401);
    expect(withoutCode.body.error.code).toBe('sign_in_link_sent');
    expect(withoutCode.cookie).toBeNull();
    const capped = [
      await login(ctx, u.email, PASSWORD, { ip: '192.0.2.152', totpCode: wrongCode(u.secret) }),
      await login(ctx, u.email, 'not the password', { ip: '192.0.2.153', totpCode: code }),
    ];
    for (const res of capped) {
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('account_sign_in_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.cookie).toBeNull();
    }
    const owner = await login(ctx, u.email, PASSWORD, { ip, totpCode: code });
    expect(owner.status).toBe(200);
    expect(owner.cookie).not.toBeNull();
  });
});
