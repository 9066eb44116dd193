import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, memoryLogger, type TestContext } from '../../../test-support/app';
import { login, me, registerUser } from '../../../test-support/world';
import { mailedToken } from '../../../test-support/email-change';
import { REAUTH_FAILURES } from '../auth/rate-limit';

/* Updating your own profile through PATCH /api/auth/user. Refused fields are in ../auth/auth.security.test.ts. */

const PASSWORD = 'correct horse battery';

describe('profile updates', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => ctx.close());

  test('phone and address: state upper-cased, country defaults to US', async () => {
    const u = await registerUser(ctx);
    const res = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie: u.cookie,
      body: { phoneNumber: '+1 (415) 555-0100', address: { line1: ' 1 Market St ', city: 'San Francisco', state: 'ca', postal_code: '94105' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.phoneNumber).toBe('+1 (415) 555-0100');
    expect(res.body.address).toEqual({ line1: '1 Market St', city: 'San Francisco', state: 'CA', postal_code: '94105', country: 'US' });
    const row = await ctx.handle.db.query.users.findFirst({ where: eq(schema.users.id, u.user.id) });
    expect(row?.addressState).toBe('CA');
    expect(row?.addressCountry).toBe('US');
    expect((await me(ctx, u.cookie)).body.address).toEqual(res.body.address);
  });

  test('names and country change at once; the e-mail once its link is followed: then the new one signs in, the old one not', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const res = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie: u.cookie,
      body: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', country: 'gb', currentPassword: PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', email: u.email, country: 'GB' });
    // Until the link mailed to the new address is followed, the old address stays the sign-in address.
    expect((await login(ctx, 'grace@example.com', PASSWORD, { ip: '198.51.100.9' })).status).toBe(401);
    expect((await login(ctx, u.email, PASSWORD, { ip: '198.51.100.9' })).status).toBe(200);
    const token = await mailedToken(ctx, 'grace@example.com', 'confirm-email');
    expect((await call(ctx, '/api/auth/email-change/confirm', { method: 'POST', body: { token } })).status).toBe(200);
    expect((await me(ctx, u.cookie)).body).toMatchObject({ firstName: 'Grace', email: 'grace@example.com', country: 'GB' });
    expect((await login(ctx, 'grace@example.com', PASSWORD, { ip: '198.51.100.9' })).status).toBe(200);
    expect((await login(ctx, u.email, PASSWORD, { ip: '198.51.100.9' })).status).toBe(401);
  });

  test('a blank name or phone clears it; an address with state omitted stores none', async () => {
    const u = await registerUser(ctx);
    const res = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie: u.cookie,
      body: { firstName: '  ', phoneNumber: '', address: { line1: '5 Rue', city: 'Paris', country: 'fr' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.firstName).toBeNull();
    expect(res.body.phoneNumber).toBeNull();
    expect(res.body.address).toEqual({ line1: '5 Rue', city: 'Paris', state: null, postal_code: null, country: 'FR' });
  });
});

describe('changing e-mail or password needs the current password', () => {
  let ctx: TestContext;
  const log = memoryLogger();
  beforeAll(async () => {
    ctx = await makeTestApp({ log });
  });
  afterAll(() => ctx.close());

  const patch = (cookie: string, body: Record<string, unknown>) => call(ctx, '/api/auth/user', { method: 'PATCH', cookie, body });
  const notifications = () => log.lines.filter((l) => l.msg === 'account notification');

  test('a new e-mail without or with a wrong current password is refused and changes nothing', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const missing = await patch(u.cookie, { email: 'taken-over@example.com', firstName: 'Mallory' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'current_password_required', param: 'currentPassword' });
    const wrong = await patch(u.cookie, { email: 'taken-over@example.com', currentPassword: 'guess guess' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_current_password', param: 'currentPassword' });
    expect((await me(ctx, u.cookie)).body).toMatchObject({ email: u.email, firstName: 'Ada' });
    // Other fields need no password.
    expect((await patch(u.cookie, { firstName: 'Augusta' })).status).toBe(200);
  });

  test('wrong current passwords are counted: 40 at once, at most 5 checked, then 429 with Retry-After', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => patch(u.cookie, { email: `x${i}@example.com`, currentPassword: `guess ${i}` })),
    );
    expect(answers.filter((a) => a.status === 400).length).toBeLessThanOrEqual(REAUTH_FAILURES.limit);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(40 - REAUTH_FAILURES.limit);
    expect(refused[0]!.body.error.code).toBe('verification_rate_limited');
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right password waits for the delay.
    expect((await patch(u.cookie, { email: 'mine@example.com', currentPassword: PASSWORD })).status).toBe(429);
    expect((await me(ctx, u.cookie)).body.email).toBe(u.email);
  });

  test('a new e-mail with the current password: a link to the new address, then, once followed, a notice to the old (no password in the log)', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const res = await patch(u.cookie, { email: 'new.address@example.com', currentPassword: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(u.email);
    const mails = () => ctx.deps.db.query.emailOutbox.findMany({ where: eq(schema.emailOutbox.userId, u.user.id) });
    expect((await mails()).map((m) => ({ kind: m.kind, to: m.toAddress, status: m.status }))).toEqual([
      { kind: 'email_change_confirm', to: 'new.address@example.com', status: 'pending' },
    ]);
    const token = await mailedToken(ctx, 'new.address@example.com', 'confirm-email');
    expect((await call(ctx, '/api/auth/email-change/confirm', { method: 'POST', body: { token } })).status).toBe(200);
    const sent = (await mails()).filter((m) => m.kind === 'email_changed');
    expect(sent.map((m) => ({ kind: m.kind, to: m.toAddress, status: m.status }))).toEqual([
      { kind: 'email_changed', to: u.email, status: 'pending' },
    ]);
    expect(sent[0]!.textBody).toContain('n***@example.com');
    expect(sent[0]!.textBody).not.toContain('new.address@example.com');
    // Another letter case of the same address is no change: applied at once, and no mail.
    const recased = await patch(u.cookie, { email: 'New.Address@example.com', currentPassword: PASSWORD });
    expect(recased.status).toBe(200);
    expect(recased.body.email).toBe('New.Address@example.com');
    // A refused change (taken address) queues nothing.
    const before = (await mails()).length;
    const other = await registerUser(ctx, { password: PASSWORD });
    expect((await patch(u.cookie, { email: other.email, currentPassword: PASSWORD })).status).toBe(409);
    expect(await mails()).toHaveLength(before);
    expect(JSON.stringify(log.lines)).not.toContain(PASSWORD);
  });

  test('a new password: must be strong, needs the current one, ends the other sessions, and is announced', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const other = (await login(ctx, u.email, PASSWORD, { ip: '198.51.100.31' })).cookie!;
    expect((await patch(u.cookie, { password: 'new strong passphrase' })).body.error.code).toBe('current_password_required');
    const weak = await patch(u.cookie, { password: 'qwerty', currentPassword: PASSWORD });
    expect(weak.status).toBe(400);
    expect(weak.body.error).toMatchObject({ code: 'weak_password', param: 'password', details: { reason: 'topTen' } });
    const ownName = await patch(u.cookie, { password: 'AdaLovelace1', currentPassword: PASSWORD });
    expect(ownName.body.error.code).toBe('weak_password');

    const before = notifications().length;
    const NEW = 'brass lantern meadow';
    const ok = await patch(u.cookie, { password: NEW, currentPassword: PASSWORD });
    expect(ok.status).toBe(200);
    expect((await me(ctx, u.cookie)).status).toBe(200);
    expect((await me(ctx, other)).status).toBe(401);
    expect((await login(ctx, u.email, PASSWORD, { ip: '198.51.100.32' })).status).toBe(401);
    expect((await login(ctx, u.email, NEW, { ip: '198.51.100.32' })).status).toBe(200);
    expect(notifications().slice(before).map((l) => l.fields)).toEqual([{ kind: 'password_changed', userId: u.user.id, to: u.email }]);
    expect(JSON.stringify(log.lines)).not.toContain(NEW);
  });
});
