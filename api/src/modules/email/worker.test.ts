import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { makeTestApp, type TestContext } from '../../../test-support/app';
import { startSmtpServer, type TestSmtpServer } from '../../../test-support/smtp-server';
import { enqueueEmail } from './outbox';
import { smtpTransport } from './transport';
import { LEASE_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS, sendDueEmails } from './worker';

let smtp: TestSmtpServer;
const contexts: TestContext[] = [];
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
});
afterEach(() => {
  for (const c of contexts.splice(0)) {
    c.deps.mail.transport?.close();
    c.close();
  }
  smtp.received.length = 0;
  smtp.refuseNext(0, 451);
});

async function appWithSmtp(url = smtp.url): Promise<TestContext> {
  const ctx = await makeTestApp({ mail: { transport: smtpTransport(url), from: 'bpay <no-reply@bpay.test>' } });
  contexts.push(ctx);
  return ctx;
}

async function queue(ctx: TestContext, to = 'ada@example.com', subject = 'Hello'): Promise<string> {
  return enqueueEmail(ctx.deps.db, ctx.clock.now(), { kind: 'sign_in_notice', userId: null, to, subject, text: 'Line one\nhttp://localhost:3000/x' });
}

const row = (ctx: TestContext, id: string) => ctx.deps.db.query.emailOutbox.findFirst({ where: eq(schema.emailOutbox.id, id) });

describe('the mail worker', () => {
  test('sends a due message through SMTP and marks it sent', async () => {
    const ctx = await appWithSmtp();
    const id = await queue(ctx, 'grace@example.com', 'Your receipt');
    const run = await sendDueEmails(ctx.deps);
    expect(run).toEqual({ claimed: 1, sent: 1, retrying: 0, failed: 0 });
    expect(smtp.received).toHaveLength(1);
    const got = smtp.received[0]!;
    expect(got.to).toEqual(['grace@example.com']);
    expect(got.from).toBe('no-reply@bpay.test');
    expect(got.raw).toContain('Subject: Your receipt');
    expect(got.raw).toContain('Line one');
    const r = await row(ctx, id);
    expect(r?.status).toBe('sent');
    expect(r?.attempts).toBe(1);
    expect(r?.sentAt?.getTime()).toBe(ctx.clock.now().getTime());
    // Sent once: a second run finds nothing.
    expect((await sendDueEmails(ctx.deps)).claimed).toBe(0);
  });

  test('a 451 answer is retried after the backoff, and sent then', async () => {
    const ctx = await appWithSmtp();
    const id = await queue(ctx);
    smtp.refuseNext(1, 451, 'Greylisted, try later');
    expect(await sendDueEmails(ctx.deps)).toMatchObject({ claimed: 1, retrying: 1 });
    let r = await row(ctx, id);
    expect(r?.status).toBe('pending');
    expect(r?.attempts).toBe(1);
    expect(r?.lastError).toContain('451');
    expect(r?.nextAttemptAt.getTime()).toBe(ctx.clock.now().getTime() + RETRY_DELAYS_MS[0]);
    expect(r?.leaseUntil).toBeNull();
    // Not due yet.
    ctx.clock.advance(RETRY_DELAYS_MS[0] - 1000);
    expect((await sendDueEmails(ctx.deps)).claimed).toBe(0);
    ctx.clock.advance(1000);
    expect(await sendDueEmails(ctx.deps)).toMatchObject({ claimed: 1, sent: 1 });
    r = await row(ctx, id);
    expect(r?.status).toBe('sent');
    expect(r?.attempts).toBe(2);
    expect(r?.lastError).toBeNull();
    expect(smtp.received).toHaveLength(1);
  });

  test('the waits grow (1 min, 5, 30, 2 h, 6 h) and the message fails after MAX_ATTEMPTS', async () => {
    const ctx = await appWithSmtp();
    const id = await queue(ctx);
    smtp.refuseNext(100, 421, 'Service not available');
    for (let i = 0; i < MAX_ATTEMPTS - 1; i++) {
      expect(await sendDueEmails(ctx.deps)).toMatchObject({ claimed: 1, retrying: 1 });
      const r = await row(ctx, id);
      expect(r!.nextAttemptAt.getTime() - ctx.clock.now().getTime()).toBe(RETRY_DELAYS_MS[i]!);
      ctx.clock.advance(RETRY_DELAYS_MS[i]!);
    }
    expect(await sendDueEmails(ctx.deps)).toMatchObject({ claimed: 1, failed: 1 });
    const r = await row(ctx, id);
    expect(r?.status).toBe('failed');
    expect(r?.attempts).toBe(MAX_ATTEMPTS);
    ctx.clock.advance(24 * 3600_000);
    expect((await sendDueEmails(ctx.deps)).claimed).toBe(0);
  });

  test('a 5xx answer fails the message at once: the server refused it for good', async () => {
    const ctx = await appWithSmtp();
    const id = await queue(ctx);
    smtp.refuseNext(1, 550, 'No such user');
    expect(await sendDueEmails(ctx.deps)).toMatchObject({ claimed: 1, failed: 1 });
    const r = await row(ctx, id);
    expect(r?.status).toBe('failed');
    expect(r?.lastError).toContain('550');
  });

  test('no server listening: the connection error is retried', async () => {
    const closed = await startSmtpServer();
    const url = closed.url;
    await closed.close();
    const ctx = await appWithSmtp(url);
    const id = await queue(ctx);
    expect(await sendDueEmails(ctx.deps)).toMatchObject({ claimed: 1, retrying: 1 });
    const r = await row(ctx, id);
    expect(r?.status).toBe('pending');
    expect(r?.lastError).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
  });

  test('two workers at once send each message exactly once (the lease)', async () => {
    const ctx = await appWithSmtp();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await queue(ctx, `u${i}@example.com`, `Message ${i}`));
    const [a, b] = await Promise.all([sendDueEmails(ctx.deps), sendDueEmails(ctx.deps)]);
    expect(a!.claimed + b!.claimed).toBe(8);
    expect(a!.sent + b!.sent).toBe(8);
    expect(smtp.received).toHaveLength(8);
    expect(new Set(smtp.received.map((m) => m.to[0])).size).toBe(8);
  });

  test('a leased message is left alone until its lease runs out (a worker that died mid-send)', async () => {
    const ctx = await appWithSmtp();
    const id = await queue(ctx);
    const leaseUntil = new Date(ctx.clock.now().getTime() + LEASE_MS);
    await ctx.deps.db.update(schema.emailOutbox).set({ leaseUntil }).where(eq(schema.emailOutbox.id, id));
    expect((await sendDueEmails(ctx.deps)).claimed).toBe(0);
    ctx.clock.advance(LEASE_MS);
    expect(await sendDueEmails(ctx.deps)).toMatchObject({ claimed: 1, sent: 1 });
  });

  test('without an SMTP server nothing is claimed: messages stay pending', async () => {
    const ctx = await makeTestApp();
    contexts.push(ctx);
    const id = await queue(ctx);
    expect((await sendDueEmails(ctx.deps)).claimed).toBe(0);
    expect((await row(ctx, id))?.status).toBe('pending');
  });
});
