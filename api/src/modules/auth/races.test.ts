import { afterAll, afterEach, beforeAll, describe, expect, mock, spyOn, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { totp } from '../../lib/totp';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { login, me, registerUser } from '../../../test-support/world';

/*
 * Sign-in, password change and two-factor requests that overlap. Each check a request makes on a row it read earlier
 * must still hold when it writes; otherwise a request that loses a race still acts on what it saw.
 *
 * The overlaps are made, not hoped for: holdNextPasswordCheck parks a request right after its (slow) password check,
 * when it has read the user row and verified against it but written nothing yet; the other request runs to the
 * end; then the parked one goes on. That is the widest window a real race has, every time.
 */

const NEW_PASSWORD = 'a brand new passphrase 42';

/**
 * Parks the next Bun.password.verify call once it has its answer, until `release()`. `parked` resolves when a
 * request is waiting there. Other calls meanwhile, and all calls after the release, run as usual.
 */
function holdNextPasswordCheck() {
  const verify = Bun.password.verify.bind(Bun.password);
  let arrived: () => void = () => {};
  let open: () => void = () => {};
  const parked = new Promise<void>((resolve) => (arrived = resolve));
  const gate = new Promise<void>((resolve) => (open = resolve));
  let taken = false;
  const spy = spyOn(Bun.password, 'verify').mockImplementation(async (password, hash, algorithm) => {
    const ok = await verify(password, hash, algorithm);
    if (taken) return ok;
    taken = true;
    arrived();
    await gate;
    return ok;
  });
  return {
    parked,
    release() {
      spy.mockRestore();
      open();
    },
  };
}

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp();
});
afterAll(() => ctx.close());
// A test that fails while a request is parked must not leave Bun.password.verify replaced for the files after it.
afterEach(() => mock.restore());

const sessionsOf = (userId: string) =>
  ctx.handle.db.select().from(schema.sessions).where(eq(schema.sessions.userId, userId));
const changePassword = (u: { cookie: string; password: string }) =>
  call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { password: NEW_PASSWORD, currentPassword: u.password } });

describe('a password change racing a sign-in with the old password', () => {
  test('a sign-in that checked the old password while it was changed gets no session: 401 invalid_credentials', async () => {
    const u = await registerUser(ctx);
    const hold = holdNextPasswordCheck();
    const signIn = login(ctx, u.email, u.password, { ip: '198.51.100.9' });
    await hold.parked;
    // The sign-in has verified the old password; the change now stores the new one and ends other sessions.
    expect((await changePassword(u)).status).toBe(200);
    hold.release();

    const late = await signIn;
    expect(late.status).toBe(401);
    expect(late.body.error.code).toBe('invalid_credentials');
    expect(late.cookie).toBeNull();
    // Only the session that made the change is left, and the new password is the one that signs in.
    expect(await sessionsOf(u.user.id)).toHaveLength(1);
    expect((await me(ctx, u.cookie)).status).toBe(200);
    expect((await login(ctx, u.email, u.password)).status).toBe(401);
    expect((await login(ctx, u.email, NEW_PASSWORD)).status).toBe(200);
  });

  test('a sign-in that finished just before the change has its session ended by it', async () => {
    const u = await registerUser(ctx);
    const early = await login(ctx, u.email, u.password, { ip: '198.51.100.10' });
    expect(early.status).toBe(200);
    expect((await changePassword(u)).status).toBe(200);
    expect((await me(ctx, early.cookie)).status).toBe(401);
    expect((await me(ctx, u.cookie)).status).toBe(200);
  });

  test('the new hash and the end of the other sessions are one transaction: when ending them fails, the old password stays', async () => {
    const u = await registerUser(ctx);
    const other = await login(ctx, u.email, u.password, { ip: '198.51.100.11' });
    // Make the deletion of sessions fail inside the change's transaction.
    await ctx.handle.client.execute(
      "CREATE TRIGGER refuse_session_delete BEFORE DELETE ON sessions BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
    );
    try {
      expect((await changePassword(u)).status).toBe(500);
    } finally {
      await ctx.handle.client.execute('DROP TRIGGER refuse_session_delete');
    }
    expect((await me(ctx, other.cookie)).status).toBe(200);
    expect((await login(ctx, u.email, u.password)).status).toBe(200);
    expect((await login(ctx, u.email, NEW_PASSWORD)).status).toBe(401);
  });
});

describe('one TOTP code serves one request', () => {
  const now = () => ctx.clock.now().getTime();
  const disable = (cookie: string, code: string, password: string) =>
    call(ctx, '/api/auth/2fa/disable', { method: 'POST', cookie, body: { code, password } });

  /** A user with two-factor on, and a fresh code (the step after the one that confirmed enrolment). */
  async function enrolled() {
    const u = await registerUser(ctx);
    const setup = await call(ctx, '/api/auth/2fa/setup', { method: 'POST', cookie: u.cookie });
    const secret: string = setup.body.secret;
    const confirm = await call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: u.cookie, body: { code: totp(secret, now()) } });
    expect(confirm.status).toBe(200);
    ctx.clock.advance(30_000);
    return { ...u, secret, code: totp(secret, now()) };
  }

  test('a disable that checked the code while a sign-in used it is refused: 400 invalid_two_factor_code, two-factor stays on', async () => {
    const u = await enrolled();
    const hold = holdNextPasswordCheck();
    const off = disable(u.cookie, u.code, u.password);
    await hold.parked;
    expect((await login(ctx, u.email, u.password, { totpCode: u.code, ip: '198.51.100.20' })).status).toBe(200);
    hold.release();

    const refused = await off;
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_two_factor_code', param: 'code' });
    expect((await me(ctx, u.cookie)).body.twoFactorEnabled).toBe(true);
  });

  test('a sign-in that checked the code while a disable used it gets no session: 400 invalid_two_factor_code', async () => {
    const u = await enrolled();
    const hold = holdNextPasswordCheck();
    const signIn = login(ctx, u.email, u.password, { totpCode: u.code, ip: '198.51.100.21' });
    await hold.parked;
    expect((await disable(u.cookie, u.code, u.password)).status).toBe(200);
    hold.release();

    const refused = await signIn;
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_two_factor_code');
    expect(refused.cookie).toBeNull();
    expect(await sessionsOf(u.user.id)).toHaveLength(1);
  });

  test('one code sent at once by three sign-ins and three disables serves exactly one of them', async () => {
    const u = await enrolled();
    const answers = await Promise.all([
      ...[1, 2, 3].map((i) => login(ctx, u.email, u.password, { totpCode: u.code, ip: `198.51.100.${30 + i}` })),
      ...[1, 2, 3].map(() => disable(u.cookie, u.code, u.password)),
    ]);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400 && a.body.error.code === 'invalid_two_factor_code')).toHaveLength(5);
  });

  test('five confirmations of one enrolment at once turn two-factor on once; the others are 409', async () => {
    const u = await registerUser(ctx);
    const setup = await call(ctx, '/api/auth/2fa/setup', { method: 'POST', cookie: u.cookie });
    const code = totp(setup.body.secret, now());
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: u.cookie, body: { code } })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    // Nothing pending (it was confirmed meanwhile) or already on (read after the confirmation): either way, 409.
    const conflicts = answers.filter((a) => a.status === 409);
    expect(conflicts).toHaveLength(4);
    for (const a of conflicts) expect(['two_factor_not_pending', 'two_factor_already_enabled']).toContain(a.body.error.code);
  });
});
