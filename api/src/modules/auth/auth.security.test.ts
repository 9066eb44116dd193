import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type CallResult, type TestContext } from '../../../test-support/app';
import { login, me, registerUser } from '../../../test-support/world';
import {
  DEFAULT_REGISTRATION_LIMIT,
  SIGN_IN_PER_ACCOUNT,
  SIGN_IN_PER_ACCOUNT_ADDRESS,
  SIGN_IN_PER_ADDRESS,
} from './rate-limit';

/*
 * The security rules of sign-up, sign-in and sessions, each proven through the HTTP API on a fresh database.
 * Validation tables for the same endpoints are in auth.routes.test.ts, two-factor sign-in in two-factor.test.ts,
 * profile updates in ../users/profile.test.ts.
 */

const PASSWORD = 'correct horse battery';

/** Parses one Set-Cookie header into its value and attributes (attribute names lower-cased). */
function parseSetCookie(header: string | null): { name: string; value: string; attrs: Map<string, string> } {
  expect(header).not.toBeNull();
  const [pair, ...rest] = header!.split(';').map((s) => s.trim());
  const [name, ...v] = pair!.split('=');
  const attrs = new Map<string, string>();
  for (const a of rest) {
    const [k, ...val] = a.split('=');
    attrs.set(k!.toLowerCase(), val.join('='));
  }
  return { name: name!, value: v.join('='), attrs };
}

const withoutRequestId = (res: CallResult) => {
  const { request_id: _ignored, ...rest } = res.body.error as Record<string, unknown>;
  return rest;
};

describe('session cookie attributes', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => ctx.close());

  test('register and login set HttpOnly, SameSite=Lax, Path=/, a lifetime, and no Secure over http', async () => {
    const reg = await call(ctx, '/api/auth/register', { method: 'POST', body: { email: 'cookie@example.com', password: PASSWORD } });
    const log = await login(ctx, 'cookie@example.com', PASSWORD);
    for (const res of [reg, log]) {
      expect(res.status).toBeLessThan(300);
      const c = parseSetCookie(res.headers.get('set-cookie'));
      expect(c.name).toBe('bpay_session');
      expect(c.value).toMatch(/^[A-Za-z0-9_-]{32,}$/);
      expect(c.attrs.has('httponly')).toBe(true);
      expect(c.attrs.get('samesite')).toBe('Lax');
      expect(c.attrs.get('path')).toBe('/');
      expect(Number(c.attrs.get('max-age'))).toBe(14 * 24 * 3600);
      expect(c.attrs.has('secure')).toBe(false);
      expect(c.attrs.has('domain')).toBe(false);
    }
  });

  test('the token in the cookie is not what the database stores', async () => {
    const { cookie, user } = await registerUser(ctx);
    const token = cookie.split('=')[1]!;
    const rows = await ctx.handle.db.select().from(schema.sessions).where(eq(schema.sessions.userId, user.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).not.toContain(token);
    expect(rows[0]!.id).toMatch(/^[0-9a-f]{64}$/);
  });

  test('https: the cookie is __Host-bpay_session (Secure, Path=/, no Domain), and only that name is read', async () => {
    const https = await makeTestApp({ publicUrl: 'https://bpay.example' });
    try {
      const origin = 'https://bpay.example';
      const reg = await call(https, '/api/auth/register', { method: 'POST', origin, body: { email: 'secure@example.com', password: PASSWORD } });
      const log = await login(https, 'secure@example.com', PASSWORD, { origin });
      expect(log.cookie).toMatch(/^__Host-bpay_session=[A-Za-z0-9_-]{32,}$/);
      // The session works under its own name ...
      expect((await me(https, log.cookie)).status).toBe(200);
      // ... and not under the plain name a subdomain or an http page could plant.
      const token = log.cookie!.split('=')[1]!;
      expect((await me(https, `bpay_session=${token}`)).status).toBe(401);
      const out = await call(https, '/api/auth/logout', { method: 'POST', origin, cookie: log.cookie });
      for (const res of [reg, log, out]) {
        expect(res.status).toBeLessThan(300);
        const c = parseSetCookie(res.headers.get('set-cookie'));
        expect(c.name).toBe('__Host-bpay_session');
        expect(c.attrs.has('secure')).toBe(true);
        expect(c.attrs.get('path')).toBe('/');
        expect(c.attrs.has('domain')).toBe(false);
        expect(c.attrs.has('httponly')).toBe(true);
        expect(c.attrs.get('samesite')).toBe('Lax');
      }
      // Sign-out ended the session.
      expect((await me(https, log.cookie)).status).toBe(401);
    } finally {
      https.close();
    }
  });

  test('plain-http loopback install: the cookie stays bpay_session, and a __Host- one is not read', async () => {
    const log = await login(ctx, 'cookie@example.com', PASSWORD);
    expect(log.cookie).toMatch(/^bpay_session=/);
    expect((await me(ctx, log.cookie)).status).toBe(200);
    const token = log.cookie!.split('=')[1]!;
    expect((await me(ctx, `__Host-bpay_session=${token}`)).status).toBe(401);
  });
});

describe('cross-site writes', () => {
  let ctx: TestContext;
  let cookie: string;
  beforeAll(async () => {
    ctx = await makeTestApp();
    ({ cookie } = await registerUser(ctx, { email: 'victim@example.com', password: PASSWORD }));
  });
  afterAll(() => ctx.close());

  test.each([
    ['Origin of another site', { origin: 'https://evil.example' }],
    ['Origin that only starts like ours', { origin: 'http://localhost:3000.evil.example' }],
    ['Origin of another port', { origin: 'http://localhost:3001' }],
    ['Origin "null" (sandboxed frame)', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site without Origin', { origin: null, headers: { 'sec-fetch-site': 'cross-site' } }],
    ['Sec-Fetch-Site: cross-site with our Origin', { headers: { 'sec-fetch-site': 'cross-site' } }],
  ] as const)('%s is refused with 403 and changes nothing', async (_name, opts) => {
    const headers = 'headers' in opts ? { ...opts.headers } : undefined;
    const origin = 'origin' in opts ? opts.origin : undefined;
    const patch = await call(ctx, '/api/auth/user', { method: 'PATCH', cookie, body: { firstName: 'Mallory' }, origin, headers });
    expect(patch.status).toBe(403);
    expect(patch.body.error).toMatchObject({ type: 'permission_error', code: 'cross_site_request' });

    const out = await call(ctx, '/api/auth/logout', { method: 'POST', cookie, origin, headers });
    expect(out.status).toBe(403);
    expect(out.headers.get('set-cookie')).toBeNull();

    const reg = await call(ctx, '/api/auth/register', { method: 'POST', body: { email: 'csrf@example.com', password: PASSWORD }, origin, headers });
    expect(reg.status).toBe(403);
    expect(reg.cookie).toBeNull();

    const signIn = await call(ctx, '/api/auth/login', { method: 'POST', body: { email: 'victim@example.com', password: PASSWORD }, origin, headers });
    expect(signIn.status).toBe(403);
    expect(signIn.cookie).toBeNull();

    // Nothing happened: the session still works and the name is unchanged.
    const after = await me(ctx, cookie);
    expect(after.status).toBe(200);
    expect(after.body.firstName).toBe('Ada');
    expect(await ctx.handle.db.query.users.findFirst({ where: eq(schema.users.emailNormalized, 'csrf@example.com') })).toBeUndefined();
  });

  test('same-origin writes are allowed', async () => {
    const res = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie,
      body: { lastName: 'Byron' },
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(res.status).toBe(200);
    expect(res.body.lastName).toBe('Byron');
  });

  test('writes without an Origin header (non-browser clients) are allowed', async () => {
    const res = await call(ctx, '/api/auth/user', { method: 'PATCH', cookie, origin: null, body: { lastName: 'King' } });
    expect(res.status).toBe(200);
    expect(res.body.lastName).toBe('King');
    const signIn = await login(ctx, 'victim@example.com', PASSWORD, { ip: '192.0.2.50', origin: null });
    expect(signIn.status).toBe(200);
  });

  test('GETs are not affected', async () => {
    for (const opts of [{ origin: 'https://evil.example' }, { headers: { 'sec-fetch-site': 'cross-site' } }]) {
      expect((await call(ctx, '/api/auth/user', { cookie, ...opts })).status).toBe(200);
      expect((await call(ctx, '/api/subscription/tiers', opts)).status).toBe(200);
      expect((await call(ctx, '/api/subscription/benefits', { cookie, ...opts })).status).toBe(200);
    }
  });
});

describe('sign-in throttling: no lockout of the owner', () => {
  const failures = (ctx: TestContext, scope: string) =>
    ctx.handle.db.select().from(schema.throttleEvents).where(eq(schema.throttleEvents.scope, scope));

  test('wrong passwords from one address do not lock the account for its owner elsewhere', async () => {
    const ctx = await makeTestApp();
    try {
      const { email } = await registerUser(ctx, { password: PASSWORD });
      const attacker = '198.51.100.66';
      const answers = [];
      for (let i = 1; i <= 10; i++) answers.push((await login(ctx, email, `wrong-${i}`, { ip: attacker })).status);
      expect(answers.slice(0, SIGN_IN_PER_ACCOUNT_ADDRESS.limit)).toEqual(Array(SIGN_IN_PER_ACCOUNT_ADDRESS.limit).fill(401));
      expect(answers.slice(SIGN_IN_PER_ACCOUNT_ADDRESS.limit).every((s) => s === 429)).toBe(true);
      // The owner, from an address the account never used, still gets in with the right password.
      const owner = await login(ctx, email, PASSWORD, { ip: '192.0.2.10' });
      expect(owner.status).toBe(200);
      expect(owner.cookie).not.toBeNull();
    } finally {
      ctx.close();
    }
  });

  test('one account from one address: 5 failures free, then growing delays (1, 2, 4 minutes), reset by a success', async () => {
    const ctx = await makeTestApp();
    try {
      expect(SIGN_IN_PER_ACCOUNT_ADDRESS).toMatchObject({ limit: 5, backoff: { baseMs: 60_000, maxMs: 3_600_000 } });
      const { email } = await registerUser(ctx, { password: PASSWORD });
      const a = '198.51.100.20';
      for (let i = 1; i <= 5; i++) expect((await login(ctx, email, `wrong-${i}`, { ip: a })).status).toBe(401);
      for (const delaySeconds of [60, 120, 240]) {
        const early = await login(ctx, email, PASSWORD, { ip: a });
        expect(early.status).toBe(429);
        // It says what is limited: this account, from this network (not every account, not everywhere).
        expect(early.body.error).toMatchObject({
          type: 'rate_limit_error',
          code: 'account_network_limited',
          message: `Too many failed sign-ins to this account from this network. Try again in ${delaySeconds / 60} minute${delaySeconds === 60 ? '' : 's'}.`,
        });
        expect(Number(early.headers.get('retry-after'))).toBe(delaySeconds);
        expect(early.cookie).toBeNull();
        ctx.clock.advance(delaySeconds * 1000);
        expect((await login(ctx, email, 'still wrong', { ip: a })).status).toBe(401);
      }
      // Another address is not slowed down by this pair's delays.
      expect((await login(ctx, email, 'wrong elsewhere', { ip: '198.51.100.21' })).status).toBe(401);
      // After the next delay the right password gets in, and the delays start over.
      ctx.clock.advance(480_000);
      expect((await login(ctx, email, PASSWORD, { ip: a })).status).toBe(200);
      expect(await failures(ctx, SIGN_IN_PER_ACCOUNT_ADDRESS.scope).then((r) => r.filter((e) => e.key.endsWith(`|${a}`)))).toEqual([]);
      expect((await login(ctx, email, 'wrong again', { ip: a })).status).toBe(401);
      expect((await login(ctx, email, PASSWORD, { ip: a })).status).toBe(200);
    } finally {
      ctx.close();
    }
  });

  test('60 wrong passwords at once from one address: exactly 5 are checked, the rest wait', async () => {
    const ctx = await makeTestApp();
    try {
      const { email } = await registerUser(ctx, { password: PASSWORD });
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => login(ctx, email, `wrong-${i}`, { ip: '198.51.100.9' })));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(SIGN_IN_PER_ACCOUNT_ADDRESS.limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(60 - SIGN_IN_PER_ACCOUNT_ADDRESS.limit);
      for (const a of answers.filter((x) => x.status === 429)) expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      // A refused attempt is not a failure: exactly the checked ones are counted.
      expect(await failures(ctx, SIGN_IN_PER_ACCOUNT.scope)).toHaveLength(SIGN_IN_PER_ACCOUNT_ADDRESS.limit);
    } finally {
      ctx.close();
    }
  });

  test('a distributed burst: at most 100 guesses a day are answered for one account; then new addresses get only the link answer', async () => {
    const ctx = await makeTestApp();
    try {
      expect(SIGN_IN_PER_ACCOUNT).toMatchObject({ limit: 100, windowMs: 24 * 3600_000 });
      // Registered from the default test address, which is therefore known to the account.
      const { email } = await registerUser(ctx, { password: PASSWORD });
      const burst = 130;
      const answers = await Promise.all(
        Array.from({ length: burst }, (_, i) => login(ctx, email, `guess-${i}`, { ip: `10.1.${Math.floor(i / 200)}.${i % 200}` })),
      );
      const codes = answers.map((a) => `${a.status} ${a.body.error.code}`);
      expect(codes.filter((c) => c === '401 invalid_credentials')).toHaveLength(SIGN_IN_PER_ACCOUNT.limit);
      // Past the cap a new address learns nothing of its guess (sign-in-link.ts): the same answer, right or wrong.
      expect(codes.filter((c) => c === '401 sign_in_link_sent')).toHaveLength(burst - SIGN_IN_PER_ACCOUNT.limit);
      // A new address with the right password is not let in by it (the account has no two-factor code to prove
      // more): the same answer, and a one-time link mailed to the account (sign-in-link.test.ts).
      const stranger = await login(ctx, email, PASSWORD, { ip: '192.0.2.99' });
      expect(stranger.status).toBe(401);
      expect(stranger.body.error.code).toBe('sign_in_link_sent');
      expect(stranger.cookie).toBeNull();
      // The owner on a known address gets in.
      const owner = await login(ctx, email, PASSWORD);
      expect(owner.status).toBe(200);
      expect(owner.cookie).not.toBeNull();
      // A day later the cap has room again.
      ctx.clock.advance(24 * 3600_000 + 1000);
      expect((await login(ctx, email, PASSWORD, { ip: '192.0.2.99' })).status).toBe(200);
    } finally {
      ctx.close();
    }
  });

  test('twelve successful sign-ins from one address leave no failure behind (an address is not blocked by its own successes)', async () => {
    const ctx = await makeTestApp();
    try {
      const { email } = await registerUser(ctx, { password: PASSWORD });
      for (let i = 0; i < 12; i++) expect((await login(ctx, email, PASSWORD, { ip: '198.51.100.11' })).status).toBe(200);
      for (const rule of [SIGN_IN_PER_ADDRESS, SIGN_IN_PER_ACCOUNT_ADDRESS, SIGN_IN_PER_ACCOUNT]) {
        expect(await failures(ctx, rule.scope)).toEqual([]);
      }
    } finally {
      ctx.close();
    }
  });

  test('10 failures from one address over 10 unknown e-mails block that address for 15 minutes, not others', async () => {
    const ctx = await makeTestApp();
    try {
      expect(SIGN_IN_PER_ADDRESS).toMatchObject({ limit: 10, windowMs: 15 * 60_000 });
      const { email } = await registerUser(ctx, { password: PASSWORD });
      const attacker = '192.0.2.66';
      for (let i = 1; i <= 10; i++) {
        const res = await login(ctx, `nobody-${i}@example.com`, 'guess', { ip: attacker });
        expect(res.status).toBe(401);
      }
      const eleventh = await login(ctx, 'nobody-11@example.com', 'guess', { ip: attacker });
      expect(eleventh.status).toBe(429);
      expect(eleventh.body.error).toMatchObject({ code: 'rate_limited', message: 'Too many failed sign-in attempts from this network. Try again in 15 minutes.' });
      expect(Number(eleventh.headers.get('retry-after'))).toBe(900);
      // Even a right password from that address waits.
      expect((await login(ctx, email, PASSWORD, { ip: attacker })).status).toBe(429);
      // Another address gets through: for unknown e-mails an ordinary 401, for a real account a session.
      expect((await login(ctx, 'nobody-11@example.com', 'guess', { ip: '192.0.2.67' })).status).toBe(401);
      const other = await login(ctx, email, PASSWORD, { ip: '192.0.2.67' });
      expect(other.status).toBe(200);
      expect(other.cookie).not.toBeNull();
      ctx.clock.advance(15 * 60_000);
      expect((await login(ctx, email, PASSWORD, { ip: attacker })).status).toBe(200);
    } finally {
      ctx.close();
    }
  });
});

describe('registrations per address', () => {
  test('a parallel burst from one address: exactly 5 accounts an hour are created; other addresses are not affected', async () => {
    const ctx = await makeTestApp({ registrationLimit: DEFAULT_REGISTRATION_LIMIT });
    try {
      expect(DEFAULT_REGISTRATION_LIMIT.perAddressPerHour).toBe(5);
      const register = (i: number, ip: string) =>
        call(ctx, '/api/auth/register', { method: 'POST', ip, body: { email: `burst-${ip.replaceAll(':', '-')}-${i}@example.com`, password: PASSWORD } });
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => register(i, '198.51.100.77')));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused).toHaveLength(35);
      for (const a of refused) {
        expect(a.body.error).toMatchObject({ type: 'rate_limit_error', code: 'registration_rate_limited' });
        expect(Number(a.headers.get('retry-after'))).toBe(3600);
        expect(a.cookie).toBeNull();
      }
      expect(await ctx.handle.db.select().from(schema.users)).toHaveLength(5);
      // An IPv6 client is limited by its /64, whatever address in it it picks.
      const v6 = await Promise.all(Array.from({ length: 8 }, (_, i) => register(i, `2001:db8:1:2::${i + 1}`)));
      expect(v6.filter((a) => a.status === 201)).toHaveLength(5);
      expect((await register(0, '198.51.100.78')).status).toBe(201);
      ctx.clock.advance(3600_000);
      expect((await register(99, '198.51.100.77')).status).toBe(201);
    } finally {
      ctx.close();
    }
  });

  test('a weak password is refused before it costs any of the allowance', async () => {
    const ctx = await makeTestApp({ registrationLimit: { perAddressPerHour: 1 } });
    try {
      const weak = await call(ctx, '/api/auth/register', { method: 'POST', body: { email: 'w@example.com', password: 'password' } });
      expect(weak.status).toBe(400);
      expect(weak.body.error).toMatchObject({ code: 'weak_password', param: 'password', details: { reason: 'topTen' } });
      expect(weak.body.error.message).toContain('heavily used password');
      expect(weak.body.error.message).toContain('A few unrelated words');
      expect((await call(ctx, '/api/auth/register', { method: 'POST', body: { email: 'w@example.com', password: PASSWORD } })).status).toBe(201);
    } finally {
      ctx.close();
    }
  });
});

describe('account enumeration', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => ctx.close());

  test('unknown e-mail and wrong password get the same status and body', async () => {
    const { email } = await registerUser(ctx, { password: PASSWORD });
    const unknown = await login(ctx, 'nobody@example.com', PASSWORD, { ip: '198.51.100.1' });
    const wrong = await login(ctx, email, 'not the password', { ip: '198.51.100.2' });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(withoutRequestId(unknown)).toEqual(withoutRequestId(wrong));
    expect(withoutRequestId(wrong)).toEqual({ type: 'authentication_error', code: 'invalid_credentials', message: 'Invalid email or password.' });
    expect(unknown.body.error.request_id).not.toBe(wrong.body.error.request_id);
    const headerNames = (r: CallResult) => [...r.headers.keys()].filter((k) => k !== 'request-id').sort();
    expect(headerNames(unknown)).toEqual(headerNames(wrong));
    expect(unknown.cookie).toBeNull();
    expect(wrong.cookie).toBeNull();
  });
});

describe('e-mail uniqueness ignores letter case', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => ctx.close());

  test('register A@X.com after a@x.com is 409 email_taken', async () => {
    await registerUser(ctx, { email: 'a@x.com' });
    const res = await call(ctx, '/api/auth/register', { method: 'POST', body: { email: 'A@X.com', password: PASSWORD } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'email_taken', param: 'email' });
    expect(res.cookie).toBeNull();
    const rows = await ctx.handle.db.select().from(schema.users).where(eq(schema.users.emailNormalized, 'a@x.com'));
    expect(rows).toHaveLength(1);
  });

  test("PATCH email to another user's address in another case is 409, and nothing changes", async () => {
    await registerUser(ctx, { email: 'owner@example.com' });
    const other = await registerUser(ctx, { email: 'other@example.com' });
    const res = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie: other.cookie,
      body: { email: 'OWNER@Example.com', firstName: 'Changed', currentPassword: other.password },
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'email_taken', param: 'email' });
    const after = await me(ctx, other.cookie);
    expect(after.body.email).toBe('other@example.com');
    expect(after.body.firstName).toBe('Ada');
  });

  test('changing your own e-mail to another case of itself is allowed', async () => {
    const u = await registerUser(ctx, { email: 'self@example.com' });
    const res = await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { email: 'Self@Example.com' } });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('Self@Example.com');
  });
});

describe('mass assignment', () => {
  let ctx: TestContext;
  let user: Awaited<ReturnType<typeof registerUser>>;
  beforeAll(async () => {
    ctx = await makeTestApp();
    user = await registerUser(ctx);
  });
  afterAll(() => ctx.close());

  test.each([
    ['role', { role: 'admin' }],
    ['tierId', { tierId: 'tier_premium' }],
    ['isKycVerified', { isKycVerified: true }],
    ['kycStatus', { kycStatus: 'verified' }],
    ['twoFactorEnabled', { twoFactorEnabled: false }],
    ['id', { id: 'usr_someone_else' }],
    ['passwordHash', { passwordHash: 'x' }],
    ['role', { firstName: 'Eve', role: 'admin' }],
  ] as const)('PATCH with %s is 400 naming it, and changes nothing', async (field, body) => {
    const res = await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: user.cookie, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: field });

    const row = await ctx.handle.db.query.users.findFirst({ where: eq(schema.users.id, user.user.id) });
    expect(row?.role).toBe('user');
    expect(row?.kycStatus).toBe('unverified');
    expect(row?.firstName).toBe('Ada');
    const profile = await me(ctx, user.cookie);
    expect(profile.body).toMatchObject({ id: user.user.id, role: 'user', isKycVerified: false, firstName: 'Ada' });
    const benefits = await call(ctx, '/api/subscription/benefits', { cookie: user.cookie });
    expect(benefits.body.currentTier).toBe('free');
    expect(benefits.body.benefits.isKycVerified).toBe(false);
  });
});

describe('sessions', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => ctx.close());

  test('sign-out deletes the session on the server and clears the cookie', async () => {
    const { cookie, user } = await registerUser(ctx);
    expect((await me(ctx, cookie)).status).toBe(200);
    const out = await call(ctx, '/api/auth/logout', { method: 'POST', cookie });
    expect(out.status).toBe(200);
    const cleared = parseSetCookie(out.headers.get('set-cookie'));
    expect(cleared.name).toBe('bpay_session');
    expect(cleared.value).toBe('');
    expect(cleared.attrs.get('max-age')).toBe('0');
    expect(cleared.attrs.get('path')).toBe('/');
    // The old cookie, replayed, no longer works anywhere.
    const replay = await me(ctx, cookie);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('unauthenticated');
    expect((await call(ctx, '/api/subscription/benefits', { cookie })).status).toBe(401);
    const rows = await ctx.handle.db.select().from(schema.sessions).where(eq(schema.sessions.userId, user.id));
    expect(rows).toHaveLength(0);
  });

  test('sign-out ends only that session', async () => {
    const { email, cookie: first } = await registerUser(ctx, { password: PASSWORD });
    const second = (await login(ctx, email, PASSWORD)).cookie!;
    await call(ctx, '/api/auth/logout', { method: 'POST', cookie: first });
    expect((await me(ctx, first)).status).toBe(401);
    expect((await me(ctx, second)).status).toBe(200);
  });

  test('every sign-in gets a fresh session id', async () => {
    const { email, cookie: atRegister } = await registerUser(ctx, { password: PASSWORD });
    const a = await login(ctx, email, PASSWORD);
    const b = await login(ctx, email, PASSWORD);
    expect(a.cookie).not.toBeNull();
    expect(b.cookie).not.toBeNull();
    expect(new Set([atRegister, a.cookie, b.cookie]).size).toBe(3);
    // Without presenting an old cookie, sign-ins are independent (two devices).
    for (const c of [atRegister, a.cookie, b.cookie]) expect((await me(ctx, c)).status).toBe(200);
  });

  test('signing in while presenting an old cookie invalidates the old one', async () => {
    const { email, cookie: old } = await registerUser(ctx, { password: PASSWORD });
    const res = await login(ctx, email, PASSWORD, { cookie: old });
    expect(res.status).toBe(200);
    expect(res.cookie).not.toBe(old);
    expect((await me(ctx, old)).status).toBe(401);
    expect((await me(ctx, res.cookie)).status).toBe(200);
  });

  test('a session expires after its lifetime', async () => {
    const { cookie } = await registerUser(ctx);
    ctx.clock.advance(14 * 24 * 3600_000 - 1000);
    expect((await me(ctx, cookie)).status).toBe(200);
    ctx.clock.advance(2000);
    expect((await me(ctx, cookie)).status).toBe(401);
  });
});
