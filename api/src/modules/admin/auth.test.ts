import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { totp } from '../../lib/totp';
import { TestClock } from '../../lib/clock';
import { call, makeTestApp, memoryLogger, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { ensureFirstAdmin } from './accounts';
import {
  adminJwt,
  ADMIN_LOCK_MS,
  ADMIN_SIGN_IN_PER_ADDRESS,
  ADMIN_SIGN_IN_PER_USERNAME_ADDRESS,
  MAX_ADMIN_FAILURES,
} from './auth-service';
import { ADMIN_PASSWORD, ADMIN_ROUTES, ADMIN_SECRET, adminCall, adminLoginCall, adminToken, codeNow, makeAdmin } from '../../../test-support/modules/admin';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp();
  await makeAdmin(ctx);
});
afterAll(() => ctx.close());

const good = () => ({ username: 'root', password: ADMIN_PASSWORD, accessCode: codeNow(ctx) });
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const verify = (token: string) => adminCall(ctx, token, '/api/admin/auth/verify');

describe('POST /api/admin/auth/login', () => {
  test('the right username, password and current code answer a token that /verify accepts', async () => {
    ctx.clock.advance(30_000);
    const res = await adminLoginCall(ctx, { ...good(), username: 'ROOT' });
    expect(res.status).toBe(200);
    expect(typeof res.body.token).toBe('string');
    const p = payloadOf(res.body.token);
    expect(p.aud).toBe('bpay-admin');
    expect(typeof p.jti).toBe('string');
    expect(typeof p.sub).toBe('string');
    expect(p.exp).toBe(Math.floor(ctx.clock.now().getTime() / 1000) + 15 * 60);
    expect(JSON.parse(Buffer.from(res.body.token.split('.')[0], 'base64url').toString()).alg).toBe('HS256');
    const v = await verify(res.body.token);
    expect(v.status).toBe(200);
    expect(v.body).toEqual({ admin: { username: 'root', loginTime: ctx.clock.now().toISOString() } });
  });

  test('one loginTime: the login answer and /verify both give the token row issued_at, even when time moves on', async () => {
    // A clock that moves 1 ms at every reading: a loginTime read at another moment than the token's would differ.
    class TickingClock extends TestClock {
      override now(): Date {
        const d = super.now();
        this.advance(1);
        return d;
      }
    }
    const clock = new TickingClock(Date.UTC(2026, 0, 15, 12, 0, 5));
    const c = await makeTestApp({ clock });
    try {
      await makeAdmin(c);
      const res = await adminLoginCall(c, { username: 'root', password: ADMIN_PASSWORD, accessCode: codeNow(c) });
      expect(res.status).toBe(200);
      const [row] = await c.handle.db.select().from(schema.adminTokens);
      const issued = row!.issuedAt.toISOString();
      expect(res.body.admin).toEqual({ username: 'root', loginTime: issued });
      // The answer keeps its other fields: the token and when it expires (issued + 15 minutes).
      expect(res.body.expiresAt).toBe(new Date(row!.issuedAt.getTime() + 15 * 60_000).toISOString());
      expect(res.body.expiresAt).toBe(row!.expiresAt.toISOString());
      clock.advance(5 * 60_000);
      const v = await adminCall(c, res.body.token, '/api/admin/auth/verify');
      expect(v.status).toBe(200);
      expect(v.body).toEqual({ admin: { username: 'root', loginTime: issued } });
    } finally {
      c.close();
    }
  });

  test('wrong password, unknown username and wrong code get the same answer', async () => {
    ctx.clock.advance(30_000);
    const answers = await Promise.all([
      adminLoginCall(ctx, { ...good(), password: 'wrong password!!' }),
      adminLoginCall(ctx, { ...good(), username: 'nobody' }),
      adminLoginCall(ctx, { ...good(), accessCode: String((Number(codeNow(ctx)) + 1) % 1_000_000).padStart(6, '0') }),
      adminLoginCall(ctx, { ...good(), accessCode: 'abcdef' }),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.body.error.code).toBe('invalid_admin_credentials');
      expect(a.body.error.message).toBe('Invalid admin credentials');
    }
    // Start the next test with no failures counted.
    await ctx.handle.db.delete(schema.throttleEvents);
  });

  test('a code is accepted once, and an earlier step after a later one is refused', async () => {
    ctx.clock.advance(30_000);
    const body = good();
    expect((await adminLoginCall(ctx, body)).status).toBe(200);
    const again = await adminLoginCall(ctx, body);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('invalid_admin_credentials');
    // The previous step's code is within the ±1 window but older than the one used.
    const previous = totp(ADMIN_SECRET, ctx.clock.now().getTime() - 30_000);
    expect((await adminLoginCall(ctx, { ...body, accessCode: previous })).status).toBe(401);
    await ctx.handle.db.delete(schema.throttleEvents);
  });

  test('missing fields are 400 with the spec messages', async () => {
    const res = await adminLoginCall(ctx, { username: '', password: 'x', accessCode: '123456' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Username is required');
    const res2 = await adminLoginCall(ctx, { username: 'root', password: 'x' });
    expect(res2.status).toBe(400);
    expect(res2.body.error.param).toBe('accessCode');
  });

  test('the answer sets no cookie', async () => {
    ctx.clock.advance(30_000);
    const res = await adminLoginCall(ctx, good());
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});

describe('admin tokens are verified strictly', () => {
  test('alg none, a wrong key, another algorithm, a wrong audience, garbage and no token are 401', async () => {
    const token = await adminToken(ctx);
    const p = payloadOf(token);
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(p)}.`;
    const wrongKey = await adminJwt(new Uint8Array(32).fill(7)).sign({ sub: String(p.sub), jti: String(p.jti), exp: Number(p.exp), iat: false });
    const { jwt } = await import('@elysiajs/jwt');
    const hs512 = await jwt({ name: 'x', secret: ctx.deps.admin.jwtSecret, alg: 'HS512', aud: 'bpay-admin' }).decorator.x.sign({
      sub: String(p.sub),
      jti: String(p.jti),
      exp: Number(p.exp),
      iat: false,
    });
    const wrongAud = await adminJwt(ctx.deps.admin.jwtSecret).sign({
      sub: String(p.sub),
      jti: String(p.jti),
      exp: Number(p.exp),
      aud: 'bpay-consumer',
      iat: false,
    });
    const otherSub = await adminJwt(ctx.deps.admin.jwtSecret).sign({ sub: 'adm_other', jti: String(p.jti), exp: Number(p.exp), iat: false });
    const unknownJti = await adminJwt(ctx.deps.admin.jwtSecret).sign({ sub: String(p.sub), jti: 'not-issued', exp: Number(p.exp), iat: false });
    expect((await verify(token)).status).toBe(200);
    for (const bad of [none, wrongKey, hs512, wrongAud, otherSub, unknownJti, 'garbage', `${token}x`]) {
      const res = await verify(bad);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_admin_token');
    }
    expect((await adminCall(ctx, null, '/api/admin/auth/verify')).status).toBe(401);
    expect((await adminCall(ctx, null, '/api/admin/auth/verify', { headers: { authorization: `Basic ${token}` } })).status).toBe(401);
  });

  test('a token expires with the clock (15 minutes)', async () => {
    const token = await adminToken(ctx);
    ctx.clock.advance(15 * 60_000 - 1000);
    expect((await verify(token)).status).toBe(200);
    ctx.clock.advance(1000);
    expect((await verify(token)).status).toBe(401);
  });

  test('logout revokes the token on the server (other tokens stay valid)', async () => {
    const a = await adminToken(ctx);
    const b = await adminToken(ctx);
    const out = await adminCall(ctx, a, '/api/admin/auth/logout', { method: 'POST' });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });
    expect((await verify(a)).status).toBe(401);
    expect((await adminCall(ctx, a, '/api/admin/dashboard')).status).toBe(401);
    expect((await verify(b)).status).toBe(200);
    const [row] = await ctx.handle.db.select().from(schema.adminTokens).where(eq(schema.adminTokens.jti, String(payloadOf(a).jti)));
    expect(row?.revokedAt).not.toBeNull();
  });

  test('an admin token is not a consumer session', async () => {
    const token = await adminToken(ctx);
    const res = await call(ctx, '/api/auth/user', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    const cookieLike = await call(ctx, '/api/auth/user', { cookie: `bpay_session=${token}` });
    expect(cookieLike.status).toBe(401);
  });
});


describe('a consumer session cookie authorizes no admin route', () => {
  test.each(ADMIN_ROUTES)('$method $path → 401', async ({ method, path, body }) => {
    const { cookie, user } = await registerUser(ctx);
    // Even a user whose role is admin: admin routes read only the bearer token.
    await ctx.handle.db.update(schema.users).set({ role: 'admin' }).where(eq(schema.users.id, user.id));
    const res = await call(ctx, path, { method, cookie, ...(body !== undefined ? { body } : {}) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_admin_token');
  });

  test('nothing changed', async () => {
    const tier = await ctx.handle.db.query.subscriptionTiers.findFirst({ where: eq(schema.subscriptionTiers.id, 'tier_pro') });
    expect(tier?.displayName).not.toBe('X');
    expect(tier?.isActive).toBe(true);
    expect(await ctx.handle.db.select().from(schema.vendorSettings)).toEqual([]);
  });
});

describe('lockout without denial of service', () => {
  const wrong = { username: 'ops', password: 'wrong password!!', accessCode: '000000' };
  const right = (c: TestContext) => ({ username: 'ops', password: ADMIN_PASSWORD, accessCode: codeNow(c) });

  test('10 failures from 10 addresses lock the username for guessers only: the real admin still signs in', async () => {
    const c = await makeTestApp({ clock: ctx.clock });
    try {
      await makeAdmin(c, 'ops');
      for (let i = 0; i < MAX_ADMIN_FAILURES; i++) {
        expect((await adminLoginCall(c, wrong, { ip: `198.51.100.${i + 1}` })).status).toBe(401);
      }
      c.clock.advance(30_000);
      // A guess from a new address: 429 whether or not the password is right.
      const guess = await adminLoginCall(c, wrong, { ip: '198.51.100.50' });
      expect(guess.status).toBe(429);
      expect(guess.body.error.code).toBe('admin_locked');
      expect(Number(guess.headers.get('retry-after'))).toBe(ADMIN_LOCK_MS / 1000 - 30);
      const rightPasswordWrongCode = await adminLoginCall(c, { ...right(c), accessCode: '000000' }, { ip: '198.51.100.51' });
      expect(rightPasswordWrongCode.status).toBe(429);
      expect(rightPasswordWrongCode.body.error.code).toBe('admin_locked');
      // The admin, with the password and a current code, gets in from yet another address.
      const ok = await adminLoginCall(c, right(c), { ip: '198.51.100.52' });
      expect(ok.status).toBe(200);
      const actions = (await c.handle.db.select().from(schema.auditLog)).map((r) => r.action);
      expect(actions.filter((a) => a === 'admin.login_failed')).toHaveLength(MAX_ADMIN_FAILURES - 1 + 2);
      expect(actions.filter((a) => a === 'admin.login_locked')).toHaveLength(1);
      expect(actions.filter((a) => a === 'admin.login')).toHaveLength(1);
      // After the window, guesses are plain 401s again.
      c.clock.advance(ADMIN_LOCK_MS);
      expect((await adminLoginCall(c, wrong, { ip: '198.51.100.53' })).status).toBe(401);
    } finally {
      c.close();
    }
  });

  test('one address: 5 failures free, then growing delays; 10 in 15 minutes block the address for every username', async () => {
    const c = await makeTestApp({ clock: ctx.clock });
    try {
      expect(ADMIN_SIGN_IN_PER_USERNAME_ADDRESS).toMatchObject({ limit: 5, backoff: { baseMs: 60_000 } });
      expect(ADMIN_SIGN_IN_PER_ADDRESS).toMatchObject({ limit: 10, windowMs: 15 * 60_000 });
      await makeAdmin(c, 'ops');
      const ip = '192.0.2.80';
      for (let i = 0; i < 5; i++) expect((await adminLoginCall(c, wrong, { ip })).status).toBe(401);
      const early = await adminLoginCall(c, right(c), { ip });
      expect(early.status).toBe(429);
      expect(early.body.error.code).toBe('rate_limited');
      expect(Number(early.headers.get('retry-after'))).toBe(60);
      // Other usernames from that address are not delayed, until the address has had 10 failures.
      for (let i = 0; i < 5; i++) expect((await adminLoginCall(c, { ...wrong, username: `ghost${i}` }, { ip })).status).toBe(401);
      const blocked = await adminLoginCall(c, { ...wrong, username: 'ghost9' }, { ip });
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe('rate_limited');
      // Another address is not affected.
      expect((await adminLoginCall(c, right(c), { ip: '192.0.2.81' })).status).toBe(200);
    } finally {
      c.close();
    }
  });

  test('40 wrong sign-ins at once from 40 addresses: at most 10 are checked as failures, and the admin still gets in', async () => {
    const c = await makeTestApp({ clock: ctx.clock });
    try {
      await makeAdmin(c, 'ops');
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => adminLoginCall(c, wrong, { ip: `10.2.0.${i + 1}` })));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 401).length).toBe(MAX_ADMIN_FAILURES);
      expect(statuses.filter((s) => s === 429).length).toBe(40 - MAX_ADMIN_FAILURES);
      c.clock.advance(30_000);
      expect((await adminLoginCall(c, right(c), { ip: '10.2.1.1' })).status).toBe(200);
    } finally {
      c.close();
    }
    // Eleven argon2id checks and a hash on two shared cores: room for a loaded machine, not a speed target.
  }, 30_000);

  test('an unknown username locks the same way (the answers do not tell which names exist)', async () => {
    const c = await makeTestApp({ clock: ctx.clock });
    try {
      for (let i = 0; i < 10; i++) {
        const res = await adminLoginCall(c, { username: 'ghost', password: 'whatever pass', accessCode: '123456' }, { ip: `198.51.100.${i + 1}` });
        expect(res.status).toBe(401);
      }
      const locked = await adminLoginCall(c, { username: 'ghost', password: 'whatever pass', accessCode: '123456' }, { ip: '198.51.100.99' });
      expect(locked.status).toBe(429);
      expect(locked.body.error.code).toBe('admin_locked');
    } finally {
      c.close();
    }
  });
});

describe('the first admin at start', () => {
  test('without configuration: generated, printed once with an otpauth URI, and it can sign in', async () => {
    const c = await makeTestApp({ clock: ctx.clock });
    try {
      const log = memoryLogger();
      const created = await ensureFirstAdmin(c.deps, log, {});
      expect(created?.username).toBe('admin');
      expect(log.lines).toHaveLength(1);
      const f = log.lines[0]!.fields as { username: string; password: string; totpSecret: string; otpauthUri: string };
      expect(f.username).toBe('admin');
      expect(f.password.length).toBeGreaterThanOrEqual(20);
      expect(f.otpauthUri).toStartWith('otpauth://totp/');
      expect(f.otpauthUri).toContain(`secret=${f.totpSecret}`);
      const row = await c.handle.db.query.admins.findFirst();
      expect(row?.passwordHash).toStartWith('$argon2id$');
      expect(row?.totpSecret).not.toContain(f.totpSecret);
      // A second start prints nothing and creates nothing.
      expect(await ensureFirstAdmin(c.deps, log, {})).toBeNull();
      expect(log.lines).toHaveLength(1);
      expect(await c.handle.db.select().from(schema.admins)).toHaveLength(1);
      c.clock.advance(30_000);
      const res = await adminLoginCall(c, { username: 'admin', password: f.password, accessCode: totp(f.totpSecret, c.clock.now().getTime()) });
      expect(res.status).toBe(200);
    } finally {
      c.close();
    }
  });

  test('from BPAY_ADMIN_USERNAME / _PASSWORD / _TOTP_SECRET when all are set, printing no secret', async () => {
    const c = await makeTestApp({ clock: ctx.clock });
    try {
      const log = memoryLogger();
      const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
      await ensureFirstAdmin(c.deps, log, { username: 'Chief', password: 'chief password 1', totpSecret: secret });
      expect(JSON.stringify(log.lines)).not.toContain('chief password 1');
      expect(JSON.stringify(log.lines)).not.toContain(secret);
      c.clock.advance(30_000);
      const res = await adminLoginCall(c, { username: 'chief', password: 'chief password 1', accessCode: totp(secret, c.clock.now().getTime()) });
      expect(res.status).toBe(200);
      expect(res.body.admin.username).toBe('Chief');
    } finally {
      c.close();
    }
  });
});
