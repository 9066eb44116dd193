import { describe, expect, test } from 'bun:test';
import { and, desc, eq, sql } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { recordThrottle } from '../../lib/throttle';
import { hotp, totp, totpStep } from '../../lib/totp';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { login, me, registerUser } from '../../../test-support/world';
import { mailedText } from '../../../test-support/mailbox';
import { SIGN_IN_PER_ACCOUNT, SIGN_IN_PER_ACCOUNT_ADDRESS, SIGN_IN_PER_ADDRESS } from './rate-limit';
import { SIGN_IN_LINK_PER_ACCOUNT, SIGN_IN_LINK_PER_ADDRESS, SIGN_IN_LINK_TTL_MS, signInLinksMailed } from './sign-in-link';

/*
 * Issue 27 §2: past an account's daily cap of failed sign-ins, the right password from an address new to the account
 * mails a one-time sign-in link instead of being refused; the answer is the same for a wrong password, which still
 * counts; the link works once, for 15 minutes, only from the address that asked; the link path has its own limits.
 */

const PASSWORD = 'correct horse battery';
const OWNER_IP = '192.0.2.200';

/** The sign-in link mails to `to`, newest first, once those mailed after their answer are written. */
const links = async (ctx: TestContext, to: string) => {
  await signInLinksMailed();
  const o = schema.emailOutbox;
  return ctx.handle.db
    .select()
    .from(o)
    .where(and(eq(o.toAddress, to), eq(o.kind, 'sign_in_link')))
    .orderBy(desc(sql`rowid`));
};

/** The token of the newest sign-in link mailed to `to`. */
async function mailedLink(ctx: TestContext, to: string): Promise<string> {
  const [row] = await links(ctx, to);
  const m = row ? /\/sign-in-link\?token=([A-Za-z0-9_-]{43})/.exec(mailedText(ctx, row)) : null;
  if (!m) throw new Error(`no sign-in link was mailed to ${to}`);
  return m[1]!;
}

const useLink = (ctx: TestContext, token: string, ip: string, totpCode?: string) =>
  call(ctx, '/api/auth/sign-in-link', { method: 'POST', ip, body: { token, ...(totpCode ? { totpCode } : {}) } });

/** Fills the account's daily cap at once (the real path fills it in the first test). */
const fillCap = (ctx: TestContext, email: string) =>
  recordThrottle(ctx.handle.db, ctx.clock, [{ rule: SIGN_IN_PER_ACCOUNT, key: email.toLowerCase(), weight: SIGN_IN_PER_ACCOUNT.limit }]);

const events = (ctx: TestContext, scope: string, key: string) =>
  ctx.handle.db
    .select()
    .from(schema.throttleEvents)
    .where(and(eq(schema.throttleEvents.scope, scope), eq(schema.throttleEvents.key, key)));

describe('sign-in link past the account cap', () => {
  test('110 wrong passwords from 22 addresses, then the right one from a new address: a link, once, that signs in', async () => {
    const ctx = await makeTestApp();
    try {
      const { email } = await registerUser(ctx, { password: PASSWORD });
      const answers: { status: number; code: string }[] = [];
      for (let a = 0; a < 22; a++) {
        for (let i = 0; i < 5; i++) {
          const res = await login(ctx, email, `wrong-${a}-${i}`, { ip: `198.51.100.${a + 1}` });
          answers.push({ status: res.status, code: res.body.error.code });
        }
      }
      // The first 100 are checked as always; past the cap the wrong ones get the link answer (and no mail).
      expect(answers.slice(0, 100).every((a) => a.status === 401 && a.code === 'invalid_credentials')).toBe(true);
      expect(answers.slice(100).every((a) => a.status === 401 && a.code === 'sign_in_link_sent')).toBe(true);
      expect(await links(ctx, email)).toEqual([]);

      // The owner on a new device: the same answer, and this time a link in the outbox.
      const owner = await login(ctx, email, PASSWORD, { ip: OWNER_IP });
      expect(owner.status).toBe(401);
      expect(owner.cookie).toBeNull();
      expect(owner.body.error).toMatchObject({ type: 'authentication_error', code: 'sign_in_link_sent' });
      expect(owner.body.error.message).toContain('If the password is right, a one-time sign-in link is on its way');
      const mails = await links(ctx, email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe('Your bpay sign-in link');
      expect(mails[0]!.textBody).toContain(`Address: ${OWNER_IP}`);
      expect(mails[0]!.textBody).toContain('expires in 15 minutes');
      // A guess from yet another new address gets exactly the same answer: nothing tells right from wrong.
      const guess = await login(ctx, email, 'another guess', { ip: '198.51.100.99' });
      expect(guess.status).toBe(owner.status);
      const { request_id: _a, ...guessError } = guess.body.error;
      const { request_id: _b, ...ownerError } = owner.body.error;
      expect(guessError).toEqual(ownerError);
      expect(guess.headers.get('retry-after')).toBe(owner.headers.get('retry-after'));
      expect(await links(ctx, email)).toHaveLength(1);

      // Only the hash is stored.
      const token = await mailedLink(ctx, email);
      const [row] = await ctx.handle.db.select().from(schema.signInLinks);
      expect(row!.tokenHash).not.toContain(token);
      expect(JSON.stringify(row)).not.toContain(token);

      const used = await useLink(ctx, token, OWNER_IP);
      expect(used.status).toBe(200);
      expect(used.body.email).toBe(email);
      expect(used.cookie).not.toBeNull();
      expect((await me(ctx, used.cookie)).status).toBe(200);
      // A normal sign-in: the in-app notice is there.
      const notices = await ctx.handle.db.select().from(schema.notifications);
      expect(notices.some((n) => n.kind === 'sign_in')).toBe(true);

      const again = await useLink(ctx, token, OWNER_IP);
      expect(again.status).toBe(400);
      expect(again.body.error).toMatchObject({ code: 'sign_in_link_used', param: 'token' });
      expect(again.cookie).toBeNull();

      // The address is known now: the password alone gets in from it, the cap still full.
      const next = await login(ctx, email, PASSWORD, { ip: OWNER_IP });
      expect(next.status).toBe(200);
      // Anywhere else it is still the link.
      expect((await login(ctx, email, PASSWORD, { ip: '192.0.2.201' })).body.error.code).toBe('sign_in_link_sent');
    } finally {
      ctx.close();
    }
   }, 120_000); // 110 argon2 checks one after another: slow on a loaded machine

  test('the link works only from the address that asked (an IPv6 /64), is not used up elsewhere, and in the user\'s language', async () => {
    const ctx = await makeTestApp();
    try {
      const { email } = await registerUser(ctx, { password: PASSWORD, language: 'ar', firstName: 'Layla' });
      await fillCap(ctx, email);
      expect((await login(ctx, email, PASSWORD, { ip: '2001:db8:5:6::1' })).body.error.code).toBe('sign_in_link_sent');
      const [mail] = await links(ctx, email);
      expect(mail!.subject).toBe('رابط تسجيل الدخول إلى bpay');
      expect(mail!.textBody).toContain('مرحبًا Layla،');
      const token = await mailedLink(ctx, email);

      for (const ip of ['198.51.100.50', '2001:db8:5:7::1']) {
        const elsewhere = await useLink(ctx, token, ip);
        expect(elsewhere.status).toBe(403);
        expect(elsewhere.body.error).toMatchObject({ type: 'permission_error', code: 'sign_in_link_other_network' });
        expect(elsewhere.body.error.message).toContain('works only on the network it was asked from');
        expect(elsewhere.cookie).toBeNull();
      }
      const [row] = await ctx.handle.db.select().from(schema.signInLinks);
      expect(row!.usedAt).toBeNull();
      // Another address in the same /64 is the same network.
      const home = await useLink(ctx, token, '2001:db8:5:6::abcd');
      expect(home.status).toBe(200);
      expect(home.cookie).not.toBeNull();
    } finally {
      ctx.close();
    }
  });

  test('the link expires after 15 minutes', async () => {
    const ctx = await makeTestApp();
    try {
      expect(SIGN_IN_LINK_TTL_MS).toBe(15 * 60_000);
      const { email } = await registerUser(ctx, { password: PASSWORD });
      await fillCap(ctx, email);
      await login(ctx, email, PASSWORD, { ip: OWNER_IP });
      const first = await mailedLink(ctx, email);
      ctx.clock.advance(SIGN_IN_LINK_TTL_MS - 1000);
      await login(ctx, email, PASSWORD, { ip: OWNER_IP });
      const second = await mailedLink(ctx, email);
      expect(second).not.toBe(first);
      ctx.clock.advance(1000);
      const late = await useLink(ctx, first, OWNER_IP);
      expect(late.status).toBe(400);
      expect(late.body.error).toMatchObject({ code: 'sign_in_link_expired', param: 'token' });
      expect(late.cookie).toBeNull();
      // The newer one still has its time.
      expect((await useLink(ctx, second, OWNER_IP)).status).toBe(200);
      expect((await useLink(ctx, 'A'.repeat(43), OWNER_IP)).body.error.code).toBe('sign_in_link_invalid');
    } finally {
      ctx.close();
    }
  });

  test('a password changed after the link was sent makes it useless', async () => {
    const ctx = await makeTestApp();
    try {
      const { email, cookie } = await registerUser(ctx, { password: PASSWORD });
      await fillCap(ctx, email);
      await login(ctx, email, PASSWORD, { ip: OWNER_IP });
      const token = await mailedLink(ctx, email);
      const changed = await call(ctx, '/api/auth/user', {
        method: 'PATCH',
        cookie,
        body: { password: 'analytical engine notes', currentPassword: PASSWORD },
      });
      expect(changed.status).toBe(200);
      const res = await useLink(ctx, token, OWNER_IP);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('sign_in_link_invalid');
    } finally {
      ctx.close();
    }
  });

  test('one link used by many requests at once signs in exactly once', async () => {
    const ctx = await makeTestApp();
    try {
      const { email } = await registerUser(ctx, { password: PASSWORD });
      await fillCap(ctx, email);
      await login(ctx, email, PASSWORD, { ip: OWNER_IP });
      const token = await mailedLink(ctx, email);
      const answers = await Promise.all(Array.from({ length: 8 }, () => useLink(ctx, token, OWNER_IP)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.error.code).toBe('sign_in_link_used');
      expect(await ctx.handle.db.select().from(schema.sessions)).toHaveLength(2); // registration's and the link's
    } finally {
      ctx.close();
    }
  });

  test('wrong passwords past the cap still count against the address and the pair; a right one is counted the same', async () => {
    const ctx = await makeTestApp();
    try {
      const { email } = await registerUser(ctx, { password: PASSWORD });
      await fillCap(ctx, email);
      const ip = '198.51.100.60';
      const pairKey = `${email.toLowerCase()}|${ip}`;
      for (let i = 1; i <= 3; i++) {
        expect((await login(ctx, email, `wrong-${i}`, { ip })).body.error.code).toBe('sign_in_link_sent');
        expect(await events(ctx, SIGN_IN_PER_ADDRESS.scope, ip)).toHaveLength(i);
        expect(await events(ctx, SIGN_IN_PER_ACCOUNT_ADDRESS.scope, pairKey)).toHaveLength(i);
      }
      // The right password is counted exactly like a wrong one until its link is used (else the counts would tell).
      expect((await login(ctx, email, PASSWORD, { ip })).body.error.code).toBe('sign_in_link_sent');
      expect(await events(ctx, SIGN_IN_PER_ACCOUNT_ADDRESS.scope, pairKey)).toHaveLength(4);
      expect(await events(ctx, SIGN_IN_LINK_PER_ADDRESS.scope, ip)).toHaveLength(4);
      // Using the link is a success from that address: the pair's delays start over.
      expect((await useLink(ctx, await mailedLink(ctx, email), ip)).status).toBe(200);
      expect(await events(ctx, SIGN_IN_PER_ACCOUNT_ADDRESS.scope, pairKey)).toHaveLength(0);
    } finally {
      ctx.close();
    }
  });

  test('link requests per address: 5 an hour over all accounts, then a clear 429 that is not counted as a failure', async () => {
    const ctx = await makeTestApp();
    try {
      expect(SIGN_IN_LINK_PER_ADDRESS).toMatchObject({ limit: 5, windowMs: 3600_000 });
      const a = await registerUser(ctx, { password: PASSWORD });
      const b = await registerUser(ctx, { password: PASSWORD });
      await fillCap(ctx, a.email);
      await fillCap(ctx, b.email);
      const ip = '198.51.100.70';
      // In parallel, 4 to each account: exactly 5 are checked.
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => login(ctx, i % 2 ? a.email : b.email, i < 2 ? PASSWORD : `guess-${i}`, { ip })),
      );
      expect(answers.filter((r) => r.status === 401 && r.body.error.code === 'sign_in_link_sent')).toHaveLength(5);
      const limited = answers.filter((r) => r.status === 429);
      expect(limited).toHaveLength(3);
      for (const r of limited) {
        expect(r.body.error).toMatchObject({ type: 'rate_limit_error', code: 'sign_in_link_rate_limited' });
        expect(r.body.error.message).toMatch(/^Too many sign-in link requests from this network\. Try again in \d+ minutes?\.$/);
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // Only the checked ones count as failures of the address.
      expect(await events(ctx, SIGN_IN_PER_ADDRESS.scope, ip)).toHaveLength(5);
      // Another address is not affected; an hour later this one has room again.
      expect((await login(ctx, a.email, 'x', { ip: '198.51.100.71' })).body.error.code).toBe('sign_in_link_sent');
      ctx.clock.advance(3600_000);
      expect((await login(ctx, a.email, 'y', { ip })).body.error.code).toBe('sign_in_link_sent');
      await signInLinksMailed();
    } finally {
      ctx.close();
    }
  });

  test('a right password is answered before its link is written: the answer costs the database what a wrong one does', async () => {
    // A right password mailing its link before answering took two more commits (each an fsync) than a wrong one: a
    // guesser past the cap could tell a right password by the answer's time alone.
    const ctx = await makeTestApp();
    try {
      const { email } = await registerUser(ctx, { password: PASSWORD });
      await fillCap(ctx, email);
      const cost = async (password: string, ip: string) => {
        const before = { ...ctx.handle.stats };
        const res = await login(ctx, email, password, { ip });
        const after = { ...ctx.handle.stats };
        expect(res.body.error.code).toBe('sign_in_link_sent');
        return { commits: after.commits - before.commits, units: after.units - before.units, statements: after.statements - before.statements };
      };
      const wrong = await cost('a wrong guess', '198.51.100.90');
      const right = await cost(PASSWORD, '198.51.100.91');
      expect(right).toEqual(wrong);
      // The link is mailed all the same, just after the answer.
      expect(await links(ctx, email)).toHaveLength(1);
    } finally {
      ctx.close();
    }
  });

  test('past the cap with a two-factor code, a right password costs the database what a wrong one does', async () => {
    // The right password of an account with two-factor on went on to the code's counted check (one commit, an fsync)
    // before the same 429 a wrong one got at once: its time said the password was right.
    const ctx = await makeTestApp();
    try {
      const u = await registerUser(ctx, { password: PASSWORD });
      const setup = await call(ctx, '/api/auth/2fa/setup', { method: 'POST', cookie: u.cookie });
      const secret: string = setup.body.secret;
      expect((await call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: u.cookie, body: { code: totp(secret, ctx.clock.now().getTime()) } })).status).toBe(200);
      await fillCap(ctx, u.email);
      const wrongCode = String((Number(totp(secret, ctx.clock.now().getTime())) + 500_000) % 1_000_000).padStart(6, '0');
      const cost = async (email: string, password: string, ip: string) => {
        const before = { ...ctx.handle.stats };
        const res = await login(ctx, email, password, { ip, totpCode: wrongCode });
        const after = { ...ctx.handle.stats };
        expect(res.status).toBe(429);
        expect(res.body.error.code).toBe('account_sign_in_limited');
        return { commits: after.commits - before.commits, units: after.units - before.units, statements: after.statements - before.statements };
      };
      const wrong = await cost(u.email, 'a wrong guess', '198.51.100.92');
      const right = await cost(u.email, PASSWORD, '198.51.100.93');
      expect(right).toEqual(wrong);
    } finally {
      ctx.close();
    }
  });

  test('links mailed per account: at most 3 an hour, also at once from many addresses; past that the same answer and no mail', async () => {
    const ctx = await makeTestApp();
    try {
      expect(SIGN_IN_LINK_PER_ACCOUNT).toMatchObject({ limit: 3, windowMs: 3600_000 });
      const { email } = await registerUser(ctx, { password: PASSWORD });
      await fillCap(ctx, email);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => login(ctx, email, PASSWORD, { ip: `198.51.100.${80 + i}` })),
      );
      for (const r of answers) {
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe('sign_in_link_sent');
      }
      expect(await links(ctx, email)).toHaveLength(3);
      expect(await ctx.handle.db.select().from(schema.signInLinks)).toHaveLength(3);
      ctx.clock.advance(3600_000);
      await login(ctx, email, PASSWORD, { ip: OWNER_IP });
      expect(await links(ctx, email)).toHaveLength(4);
    } finally {
      ctx.close();
    }
  });

  test('with two-factor on, the link still needs the code (and is not used up without it)', async () => {
    const ctx = await makeTestApp();
    try {
      const now = () => ctx.clock.now().getTime();
      const u = await registerUser(ctx, { password: PASSWORD });
      const setup = await call(ctx, '/api/auth/2fa/setup', { method: 'POST', cookie: u.cookie });
      const secret: string = setup.body.secret;
      expect((await call(ctx, '/api/auth/2fa/confirm', { method: 'POST', cookie: u.cookie, body: { code: totp(secret, now()) } })).status).toBe(200);
      await fillCap(ctx, u.email);
      ctx.clock.advance(60_000);
      expect((await login(ctx, u.email, PASSWORD, { ip: OWNER_IP })).body.error.code).toBe('sign_in_link_sent');
      const token = await mailedLink(ctx, u.email);

      const noCode = await useLink(ctx, token, OWNER_IP);
      expect(noCode.status).toBe(401);
      expect(noCode.body.error).toMatchObject({ code: 'two_factor_required', param: 'totpCode' });
      const step = totpStep(now());
      const near = new Set([hotp(secret, step - 1), hotp(secret, step), hotp(secret, step + 1)]);
      const wrong = ['000000', '111111', '222222'].find((c) => !near.has(c))!;
      const bad = await useLink(ctx, token, OWNER_IP, wrong);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_two_factor_code');
      const ok = await useLink(ctx, token, OWNER_IP, totp(secret, now()));
      expect(ok.status).toBe(200);
      expect(ok.cookie).not.toBeNull();
    } finally {
      ctx.close();
    }
  });
});
