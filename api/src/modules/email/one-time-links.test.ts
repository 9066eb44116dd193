import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { changeEmail } from '../../../test-support/email-change';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { plainBody, startSmtpServer, type TestSmtpServer } from '../../../test-support/smtp-server';
import { registerUser } from '../../../test-support/world';
import { ONE_TIME_LINK_PAGES, serveWebApp } from '../../static-files';
import { ONE_TIME_TOKEN_PLACEHOLDER } from './outbox';
import { MailSendError, smtpTransport, type MailTransport } from './transport';
import { RETRY_DELAYS_MS, sendDueEmails } from './worker';

/*
 * Issue 27 audit: a one-time link (a password reset, a sign-in link, an e-mail change's links) is never kept usable in
 * the outbox. The stored bodies hold a placeholder, the token is sealed beside them until the mail worker sends the
 * message (with the working link, on every resend too), and the write that records the send drops it; the admin
 * outbox never shows it. The pages such a link opens are answered with Referrer-Policy: no-referrer.
 */

const PASSWORD = 'correct horse battery';
const ANY_TOKEN = /token=[A-Za-z0-9_-]{43}/;

let smtp: TestSmtpServer;
let ctx: TestContext;
beforeAll(async () => {
  smtp = await startSmtpServer();
  ctx = await makeTestApp({ rateLimits: false, mail: { transport: smtpTransport(smtp.url), from: 'bpay <no-reply@bpay.test>' } });
  await makeAdmin(ctx);
});
afterAll(async () => {
  ctx.deps.mail.transport?.close();
  ctx.close();
  await smtp.close();
});
beforeEach(() => {
  smtp.received.length = 0;
});

const resetRow = async (userId: string) =>
  (await ctx.deps.db.query.emailOutbox.findFirst({
    where: and(eq(schema.emailOutbox.userId, userId), eq(schema.emailOutbox.kind, 'password_reset')),
  }))!;

async function askReset(): Promise<{ userId: string; email: string }> {
  const u = await registerUser(ctx, { password: PASSWORD });
  expect((await call(ctx, '/api/auth/password-reset', { method: 'POST', body: { email: u.email } })).status).toBe(200);
  return { userId: u.user.id, email: u.email };
}

/** The token of the reset link in the `n`-th mail received (0 first), checked to be the same in the HTML part. */
function mailedToken(n = 0): string {
  const body = plainBody(smtp.received[n]!.raw);
  expect(body).not.toContain(ONE_TIME_TOKEN_PLACEHOLDER);
  const tokens = [...body.matchAll(/reset-password\?token=([A-Za-z0-9_-]{43})/g)].map((m) => m[1]!);
  // The plain text and the HTML twin's link (its href and its words).
  expect(tokens.length).toBeGreaterThanOrEqual(2);
  expect(new Set(tokens).size).toBe(1);
  return tokens[0]!;
}

const tokenWorks = async (token: string) =>
  (await call(ctx, '/api/auth/password-reset/check', { method: 'POST', body: { token } })).status === 200;

describe('one-time links in the outbox', () => {
  test('a reset mail is stored without its token, mailed with the working link, and kept without it once sent', async () => {
    const { userId } = await askReset();
    const queued = await resetRow(userId);
    expect(queued.textBody).toContain(`/reset-password?token=${ONE_TIME_TOKEN_PLACEHOLDER}`);
    expect(queued.htmlBody).toContain(ONE_TIME_TOKEN_PLACEHOLDER);
    expect(JSON.stringify({ text: queued.textBody, html: queued.htmlBody })).not.toMatch(ANY_TOKEN);
    expect(queued.sealedToken).toMatch(/^v1\./);

    expect(await sendDueEmails(ctx.deps)).toMatchObject({ sent: 1 });
    const token = mailedToken();
    expect(await tokenWorks(token)).toBe(true);

    const sent = await resetRow(userId);
    expect(sent.status).toBe('sent');
    expect(sent.sealedToken).toBeNull();
    expect(JSON.stringify(sent)).not.toContain(token);
    expect(sent.textBody).toContain(ONE_TIME_TOKEN_PLACEHOLDER);

    // The admin outbox: the placeholder, never the token.
    const page = await adminCall(ctx, await adminToken(ctx), '/api/email-outbox');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain(token);
    expect(page.text).not.toMatch(ANY_TOKEN);
    const shown = page.body.messages.find((m: { id: string }) => m.id === sent.id);
    expect(shown.text).toContain(ONE_TIME_TOKEN_PLACEHOLDER);
  });

  test('an admin never sees the token of a message not yet sent either', async () => {
    const { userId } = await askReset();
    const row = await resetRow(userId);
    expect(row.status).toBe('pending');
    const page = await adminCall(ctx, await adminToken(ctx), '/api/email-outbox');
    expect(page.body.messages.some((m: { id: string }) => m.id === row.id)).toBe(true);
    expect(page.text).not.toMatch(ANY_TOKEN);
    await sendDueEmails(ctx.deps);
  });

  test('a resend after a crash (the server took the message, bpay did not record it) mails the same working link', async () => {
    const { userId } = await askReset();
    const real = ctx.deps.mail.transport!;
    let crashes = 1;
    // The server accepts the message, then the answer is lost: the worker must send it again, link and Message-ID alike.
    const lossy: MailTransport = {
      async send(message) {
        await real.send(message);
        if (crashes-- > 0) throw new MailSendError('connection lost after DATA', false);
      },
      close: () => {},
    };
    ctx.deps.mail.transport = lossy;
    try {
      expect(await sendDueEmails(ctx.deps)).toMatchObject({ retrying: 1 });
      const waiting = await resetRow(userId);
      expect(waiting.status).toBe('pending');
      expect(waiting.sealedToken).not.toBeNull();
      ctx.clock.advance(RETRY_DELAYS_MS[0]);
      expect(await sendDueEmails(ctx.deps)).toMatchObject({ sent: 1 });
    } finally {
      ctx.deps.mail.transport = real;
    }
    expect(smtp.received).toHaveLength(2);
    const [first, second] = [mailedToken(0), mailedToken(1)];
    expect(second).toBe(first);
    const messageId = (raw: string) => /^Message-ID: (.+)$/im.exec(raw)?.[1]?.trim();
    expect(messageId(smtp.received[1]!.raw)).toBe(messageId(smtp.received[0]!.raw)!);
    expect(await tokenWorks(first)).toBe(true);
    expect((await resetRow(userId)).sealedToken).toBeNull();
  });

  test('a message that fails for good keeps no token', async () => {
    const { userId } = await askReset();
    smtp.refuseNext(1, 550, 'No such mailbox');
    expect(await sendDueEmails(ctx.deps)).toMatchObject({ failed: 1 });
    const row = await resetRow(userId);
    expect(row.status).toBe('failed');
    expect(row.sealedToken).toBeNull();
  });

  test("an e-mail change's confirm and revert links are sealed the same way, and work", async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const newEmail = `moved-${Date.now()}@example.com`;
    // changeEmail reads the confirm link as mailed (the sealed token put back, as the worker does) and follows it.
    expect((await changeEmail(ctx, u.cookie, newEmail, PASSWORD)).status).toBe(200);
    const rows = await ctx.deps.db.query.emailOutbox.findMany({ where: eq(schema.emailOutbox.userId, u.user.id) });
    const linked = rows.filter((r) => r.kind === 'email_change_confirm' || r.kind === 'email_changed');
    expect(linked.map((r) => r.kind).sort()).toEqual(['email_change_confirm', 'email_changed']);
    for (const r of linked) {
      expect(r.sealedToken).not.toBeNull();
      expect(`${r.textBody}${r.htmlBody}`).not.toMatch(ANY_TOKEN);
      expect(r.textBody).toContain(ONE_TIME_TOKEN_PLACEHOLDER);
    }
    await sendDueEmails(ctx.deps);
    const mails = smtp.received.map((m) => plainBody(m.raw)).join('\n');
    expect(mails).toMatch(/\/confirm-email\?token=[A-Za-z0-9_-]{43}/);
    expect(mails).toMatch(/\/revert-email\?token=[A-Za-z0-9_-]{43}/);
    for (const r of await ctx.deps.db.query.emailOutbox.findMany({ where: eq(schema.emailOutbox.userId, u.user.id) })) {
      expect(r.sealedToken).toBeNull();
    }
  });
});

describe('Referrer-Policy on the pages a one-time link opens', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bpay-referrer-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const policy = (path: string) => serveWebApp(dir, new Request(`http://localhost${path}`)).headers.get('referrer-policy');

  test('no-referrer on /reset-password, /sign-in-link, /confirm-email and /revert-email, with their token', () => {
    for (const page of ONE_TIME_LINK_PAGES) {
      expect({ page, policy: policy(`${page}?token=${'a'.repeat(43)}`) }).toEqual({ page, policy: 'no-referrer' });
      expect({ page, policy: policy(`${page}/`) }).toEqual({ page, policy: 'no-referrer' });
    }
    expect([...ONE_TIME_LINK_PAGES].sort()).toEqual(['/confirm-email', '/reset-password', '/revert-email', '/sign-in-link']);
  });

  test('other pages keep the browser default', () => {
    for (const path of ['/', '/dashboard', '/login', '/checkout']) expect(policy(path)).toBeNull();
  });
});
