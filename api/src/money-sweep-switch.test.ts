/**
 * BPAY_MONEY_SWEEP=off holds the money sweep while an operator reconciles a restored backup with a real processor
 * (the sweep would otherwise refund an expired bcard that was spent after the backup was taken).
 */
import { expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { boot } from './boot';
import { parseEnv } from './env';
import { TestClock } from './lib/clock';
import { call, makeTestApp, memoryLogger } from '../test-support/app';
import { addCard, registerUser } from '../test-support/world';

test('with the sweep off an expired bcard stays as it is at start; on, it is refunded', async () => {
  const clock = new TestClock();
  const ctx = await makeTestApp({ clock });
  const { cookie } = await registerUser(ctx);
  const source = await addCard(ctx, cookie);
  const res = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie,
    body: { name: 'Groceries', balance: '50.00', fundingSources: [{ fundingSourceId: source.id, percentage: 100 }] },
  });
  expect(res.status).toBe(201);
  const bcardId = res.body.id as string;
  ctx.handle.close();
  clock.advance(31 * 60_000);

  const envFor = (sweep: 'on' | 'off') =>
    parseEnv({
      BPAY_DATABASE_URL: `file:${join(ctx.dir, 'test.db')}`,
      BPAY_SESSION_SECRET: 'test-session-secret-test-session-secret',
      BPAY_UPLOADS_DIR: join(ctx.dir, 'uploads'),
      BPAY_WEBHOOK_WORKER: 'off',
      BPAY_MONEY_SWEEP: sweep,
      BPAY_ADMIN_USERNAME: 'root',
      BPAY_ADMIN_PASSWORD: 'a long admin password',
      BPAY_ADMIN_TOTP_SECRET: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    });
  const statusOf = async (b: Awaited<ReturnType<typeof boot>>) =>
    (await b.deps.db.query.bcards.findFirst({ where: (t, { eq }) => eq(t.id, bcardId) }))?.status;

  try {
    const log = memoryLogger();
    const held = await boot(envFor('off'), log, clock);
    expect(await statusOf(held)).toBe('active');
    expect(log.lines.some((l) => l.level === 'warn' && l.msg.startsWith('BPAY_MONEY_SWEEP=off'))).toBe(true);
    held.stop();

    const swept = await boot(envFor('on'), memoryLogger(), clock);
    expect(await statusOf(swept)).not.toBe('active');
    swept.stop();
  } finally {
    rmSync(ctx.dir, { recursive: true, force: true });
  }
});
