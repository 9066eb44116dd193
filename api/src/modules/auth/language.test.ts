import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { me, registerUser } from '../../../test-support/world';

/* Each user's language (issue 25): kept from sign-up, changed by the switch, and the language of bpay's mail. */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp({ rateLimits: false });
});
afterAll(() => ctx.close());

const stored = async (userId: string) => (await ctx.deps.db.query.users.findFirst({ where: eq(schema.users.id, userId) }))!.language;

describe('the language kept per user', () => {
  test('sign-up stores the language signed up in (English when none is sent); the user model shows it', async () => {
    const ar = await registerUser(ctx, { language: 'ar' });
    expect(ar.user.language).toBe('ar');
    expect(await stored(ar.user.id)).toBe('ar');
    expect((await me(ctx, ar.cookie)).body.language).toBe('ar');
    const en = await registerUser(ctx);
    expect(en.user.language).toBe('en');
    expect((await call(ctx, '/api/auth/session', { cookie: en.cookie })).body.user.language).toBe('en');
  });

  test('an unknown language at sign-up is 400 naming the field, and no account is made', async () => {
    const email = `fr-${Date.now()}@example.com`;
    const res = await call(ctx, '/api/auth/register', {
      method: 'POST',
      body: { email, password: 'correct horse battery', language: 'fr' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'language' });
    expect(await ctx.deps.db.query.users.findFirst({ where: eq(schema.users.email, email) })).toBeUndefined();
  });

  test('the switch changes it; an unknown code is 400 naming the field and changes nothing (not even the rest of the patch)', async () => {
    const u = await registerUser(ctx);
    const switched = await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { language: 'ar' } });
    expect(switched.status).toBe(200);
    expect(switched.body.language).toBe('ar');
    expect(await stored(u.user.id)).toBe('ar');
    for (const bad of ['fr', 'AR', '', 7, null]) {
      const res = await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { language: bad, firstName: 'Changed' } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_error', param: 'language' });
    }
    expect(await stored(u.user.id)).toBe('ar');
    expect((await me(ctx, u.cookie)).body.firstName).toBe('Ada');
    expect((await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { language: 'en' } })).body.language).toBe('en');
  });
});

describe('mail in the user\'s language', () => {
  const resetMail = async (email: string) => {
    expect((await call(ctx, '/api/auth/password-reset', { method: 'POST', body: { email } })).status).toBe(200);
    return (await ctx.deps.db.query.emailOutbox.findFirst({
      where: and(eq(schema.emailOutbox.toAddress, email), eq(schema.emailOutbox.kind, 'password_reset')),
    }))!;
  };

  test('Arabic: Arabic words, right-to-left HTML, the link and the figures left-to-right', async () => {
    const u = await registerUser(ctx, { language: 'ar', firstName: 'ليلى' });
    const mail = await resetMail(u.email);
    expect(mail.subject).toBe('إعادة تعيين كلمة مرور bpay');
    expect(mail.textBody).toContain('مرحبًا ليلى،');
    expect(mail.textBody).toContain('\u206630\u2069 دقيقة');
    expect(mail.htmlBody).toContain('<html lang="ar" dir="rtl">');
    expect(mail.htmlBody).toContain('<bdi dir="ltr">30</bdi>');
    expect(mail.htmlBody).toMatch(/<p dir="ltr"><a href="http[^"]+\/reset-password\?token=/);
    expect(mail.textBody).not.toContain('Reset');
  });

  test('English: English words, no direction marks in the text', async () => {
    const u = await registerUser(ctx, { language: 'en' });
    const mail = await resetMail(u.email);
    expect(mail.subject).toBe('Reset your bpay password');
    expect(mail.textBody).toContain('expires in 30 minutes');
    expect(mail.textBody).not.toMatch(/[\u2066-\u2069]/);
    expect(mail.htmlBody).toContain('<html lang="en" dir="ltr">');
  });

  test('a switch changes the language of the next mail', async () => {
    const u = await registerUser(ctx, { language: 'en' });
    await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { language: 'ar' } });
    expect((await resetMail(u.email)).subject).toBe('إعادة تعيين كلمة مرور bpay');
  });
});
