/**
 * Issue 27, a clock that jumps, across a restart: a process started after the system clock was set back begins from
 * the mark the money sweep left (clock_marks), not from the earlier system time, so a bcard cannot outlive its time
 * by the step.
 */
import { expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { boot, sweepMoney } from './boot';
import { parseEnv } from './env';
import { TestClock } from './lib/clock';
import { call, makeTestApp, memoryLogger } from '../test-support/app';
import { addCard, registerUser } from '../test-support/world';

const MINUTE = 60_000;

test('a restart on a system clock set back an hour carries on from the last mark: the bcard still expires on time', async () => {
  const clock = new TestClock();
  const t0 = clock.now().getTime();
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
  const expiresAt = new Date(res.body.expiresAt as string).getTime();
  // Twenty minutes in, the sweep leaves its mark; then the process stops and the system clock is set back an hour.
  clock.advance(20 * MINUTE);
  await sweepMoney(ctx.deps);
  const mark = await ctx.deps.db.query.clockMarks.findFirst();
  expect(mark?.atMs).toBe(t0 + 20 * MINUTE);
  ctx.handle.close();
  const restarted = new TestClock(t0 + 20 * MINUTE - 60 * MINUTE);

  const log = memoryLogger();
  const booted = await boot(
    parseEnv({
      BPAY_DATABASE_URL: `file:${join(ctx.dir, 'test.db')}`,
      BPAY_SESSION_SECRET: 'test-session-secret-test-session-secret',
      BPAY_UPLOADS_DIR: join(ctx.dir, 'uploads'),
      BPAY_WEBHOOK_WORKER: 'off',
      BPAY_ADMIN_USERNAME: 'root',
      BPAY_ADMIN_PASSWORD: 'a long admin password',
      BPAY_ADMIN_TOTP_SECRET: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    }),
    log,
    restarted,
  );
  try {
    // bpay's time starts at the mark, not an hour before it, while the system clock reads as it is (for TOTP).
    expect(restarted.now().getTime()).toBeGreaterThanOrEqual(t0 + 20 * MINUTE);
    expect(restarted.system().getTime()).toBe(t0 - 40 * MINUTE);
    const status = async () => (await booted.deps.db.query.bcards.findFirst({ where: (t, { eq }) => eq(t.id, bcardId) }))?.status;
    expect(await status()).toBe('active');
    // Ten and a half real minutes later the bcard's 30 minutes are over by bpay's time (running 1.5 % slow while ahead):
    // within one sweep interval of its time it is no longer active. From the system clock it would live an hour more.
    restarted.advance(10.5 * MINUTE);
    expect(restarted.now().getTime()).toBeGreaterThan(expiresAt);
    expect(restarted.now().getTime() - expiresAt).toBeLessThan(30_000);
    await sweepMoney(booted.deps);
    expect(await status()).not.toBe('active');
    // The mark only ever rises: this process's sweep wrote a later one.
    const after = await booted.deps.db.query.clockMarks.findFirst();
    expect(after!.atMs).toBeGreaterThanOrEqual(expiresAt);
  } finally {
    booted.stop();
    rmSync(ctx.dir, { recursive: true, force: true });
  }
});

test('a mark more than a day ahead of the system clock is not followed, and said', async () => {
  const { holdClockAtMark, writeClockMark, CLOCK_MARK_MAX_AHEAD_MS } = await import('./boot');
  const ahead = new TestClock(Date.UTC(2027, 0, 15));
  const ctx = await makeTestApp({ clock: new TestClock() });
  try {
    await writeClockMark(ctx.deps.db, ahead);
    const log = memoryLogger();
    const clock = new TestClock(Date.UTC(2027, 0, 15) - CLOCK_MARK_MAX_AHEAD_MS - MINUTE);
    expect(await holdClockAtMark(ctx.deps.db, clock, log)).toBeNull();
    expect(clock.now().getTime()).toBe(clock.system().getTime());
    expect(log.lines.some((l) => l.level === 'error' && l.msg.startsWith('the last clock mark is more than a day ahead'))).toBe(true);
    // A day back or less is followed; a lower mark never lowers the one kept.
    const nearer = new TestClock(Date.UTC(2027, 0, 14, 12));
    expect(await holdClockAtMark(ctx.deps.db, nearer, memoryLogger())).toBe(Date.UTC(2027, 0, 15));
    expect(nearer.now().getTime()).toBe(Date.UTC(2027, 0, 15));
    await writeClockMark(ctx.deps.db, new TestClock(Date.UTC(2026, 0, 1)));
    expect((await ctx.deps.db.query.clockMarks.findFirst())!.atMs).toBe(Date.UTC(2027, 0, 15));
  } finally {
    ctx.close();
  }
});
