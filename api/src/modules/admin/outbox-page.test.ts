import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type CallOptions, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { smtpTransport } from '../email/transport';

/*
 * GET /api/email-outbox holds password reset links: a signed-in admin may read it, and on a local install (no SMTP,
 * loopback public URL, no proxy) so may a request from the machine itself. Nobody else.
 */

const PATH = '/api/email-outbox';

async function withResetMail(ctx: TestContext): Promise<string> {
  const u = await registerUser(ctx);
  const res = await call(ctx, '/api/auth/password-reset', { method: 'POST', body: { email: u.email } });
  if (res.status !== 200) throw new Error(res.text);
  return u.email;
}

describe('a local install (no SMTP, localhost public URL)', () => {
  let ctx: TestContext;
  let email: string;
  beforeAll(async () => {
    ctx = await makeTestApp({ publicUrl: 'http://localhost:3000' });
    email = await withResetMail(ctx);
  });
  afterAll(() => ctx.close());

  test('its own browser (loopback peer and Host) reads the messages, links included', async () => {
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const res = await call(ctx, PATH, { ip, headers: { host: 'localhost:3000' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body.access).toBe('local');
      expect(res.body.smtpConfigured).toBe(false);
      const reset = res.body.messages.find((m: { kind: string }) => m.kind === 'password_reset');
      expect(reset).toMatchObject({ to: email, status: 'pending', subject: 'Reset your bpay password', attempts: 0 });
      expect(reset.text).toMatch(/http:\/\/localhost:3000\/reset-password\?token=[A-Za-z0-9_-]{43}/);
    }
  });

  const refused: Array<{ name: string; opts: CallOptions }> = [
    { name: 'another machine', opts: { ip: '203.0.113.9' } },
    { name: 'a private-network neighbour', opts: { ip: '192.168.1.20' } },
    { name: 'a loopback peer behind a proxy (X-Forwarded-For)', opts: { ip: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.9' } } },
    { name: 'a loopback peer behind a proxy (Forwarded)', opts: { ip: '127.0.0.1', headers: { forwarded: 'for=203.0.113.9' } } },
    { name: 'a loopback peer behind a proxy (X-Real-IP)', opts: { ip: '127.0.0.1', headers: { 'x-real-ip': '203.0.113.9' } } },
    { name: 'a loopback peer asked for another host name', opts: { ip: '127.0.0.1', headers: { host: 'pay.example.com' } } },
  ];
  for (const r of refused) {
    test(`refused: ${r.name}`, async () => {
      const res = await call(ctx, PATH, r.opts);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('outbox_forbidden');
      expect(res.text).not.toContain('reset-password');
    });
  }

  test('refused: a signed-in consumer from another machine, and a bad bearer token even from this one', async () => {
    const u = await registerUser(ctx);
    expect((await call(ctx, PATH, { cookie: u.cookie, ip: '203.0.113.9' })).status).toBe(403);
    const bad = await call(ctx, PATH, { ip: '127.0.0.1', headers: { authorization: 'Bearer not-a-token' } });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('invalid_admin_token');
  });

  test('a signed-in admin reads it from anywhere', async () => {
    await makeAdmin(ctx);
    const token = await adminToken(ctx);
    const res = await adminCall(ctx, token, PATH, { ip: '203.0.113.9' });
    expect(res.status).toBe(200);
    expect(res.body.access).toBe('admin');
    expect(res.body.messages.length).toBeGreaterThan(0);
    expect((await adminCall(ctx, token, `${PATH}?limit=0`)).status).toBe(400);
  });
});

describe('not a local install', () => {
  test('a public URL that is not localhost: even a loopback request is refused', async () => {
    const ctx = await makeTestApp({ publicUrl: 'https://pay.example.com' });
    try {
      await withResetMail(ctx);
      const res = await call(ctx, PATH, { ip: '127.0.0.1', origin: 'https://pay.example.com' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('outbox_forbidden');
    } finally {
      ctx.close();
    }
  });

  test('an SMTP server configured: the mail goes there, and the page is for admins only', async () => {
    const ctx = await makeTestApp({ publicUrl: 'http://localhost:3000', mail: { transport: smtpTransport('smtp://127.0.0.1:9') } });
    try {
      const res = await call(ctx, PATH, { ip: '127.0.0.1' });
      expect(res.status).toBe(403);
      await makeAdmin(ctx);
      const admin = await adminCall(ctx, await adminToken(ctx), PATH);
      expect(admin.status).toBe(200);
      expect(admin.body.smtpConfigured).toBe(true);
    } finally {
      ctx.deps.mail.transport?.close();
      ctx.close();
    }
  });
});
