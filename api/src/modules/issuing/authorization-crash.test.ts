import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { TestClock } from '../../lib/clock';
import { call, interceptVendor, makeTestApp, type TestContext, type VendorMethod } from '../../../test-support/app';
import { addCard, CARDS_OK, registerUser, type TestCardDetails } from '../../../test-support/world';
import { moneyReport, moneyViolations } from '../../../test-support/money-invariants';
import { startSmtpServer, type TestSmtpServer } from '../../../test-support/smtp-server';
import { smtpTransport, type MailTransport } from '../email/transport';
import { LEASE_MS, outboxMessageId, startMailWorker } from '../email/worker';
import { LEASE_MS as COLLECTION_LEASE_MS } from '../bcards/saga';

/*
 * Issue 27: a bcard authorized at a shop over the card network (issue 24), and the process dies right after the
 * authorization commits: before the purchase's remainder goes back to the sources, and before any worker sent the
 * user's notice by mail. The authorization, its notice and the notice's mail were written in one transaction, so a
 * new process over the same database tells the user once: one notice of each kind, each mail sent once. A process
 * that dies after the mail server accepted a message but before bpay recorded it sends it again after restart under
 * the SAME Message-ID (at-least-once, with a stable id, as a webhook event keeps its id).
 */

let smtp: TestSmtpServer;
const cleanup: Array<() => void> = [];
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp.close();
});
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
  smtp.received.length = 0;
});

class CrashError extends Error {
  override name = 'CrashError';
}

const FROM = 'bpay <no-reply@bpay.test>';
const rows = async (ctx: TestContext, sql: string, args: Array<string | number> = []) =>
  (await ctx.handle.client.execute({ sql, args })).rows.map((r) => Object.fromEntries(Object.entries(r)));
const messageIdOf = (raw: string) => /^Message-ID:\s*(\S+)/im.exec(raw)?.[1] ?? null;

/** A user with two cards, a $50.00 bcard split over them, and its details (all before any crash is armed). */
async function bcardReady(ctx: TestContext) {
  const u = await registerUser(ctx, { firstName: 'Ada', lastName: 'Lovelace' });
  const a = await addCard(ctx, u.cookie, CARDS_OK[0]);
  const b = await addCard(ctx, u.cookie, CARDS_OK[2]);
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: u.cookie,
    body: { name: 'Shoes', balance: '50.00', fundingSources: [{ fundingSourceId: a.id, percentage: 60 }, { fundingSourceId: b.id, percentage: 40 }] },
  });
  expect(made.status, made.text).toBe(201);
  const d = await call(ctx, `/api/virtual-cards/${made.body.id}/checkout-details`, { cookie: u.cookie });
  const card: TestCardDetails = { number: d.body.cardNumber, exp_month: d.body.expiryMonth, exp_year: d.body.expiryYear, cvc: d.body.cvv };
  return { userId: u.user.id as string, cookie: u.cookie, bcardId: made.body.id as string, card };
}

function authorize(ctx: TestContext, card: TestCardDetails, amount: number) {
  return call(ctx, '/api/simulator/authorizations', {
    method: 'POST',
    origin: null,
    body: {
      card_number: card.number,
      exp_month: card.exp_month,
      exp_year: card.exp_year,
      cvc: card.cvc,
      amount,
      currency: 'usd',
      merchant: { name: 'Corner Shoes', url: 'https://www.corner-shoes.example/checkout', city: 'Springfield', category: 'shoe_stores' },
    },
  });
}

/** Runs the real mail worker (its timer) until the user's outbox has nothing pending, then stops it. */
async function mailUntilQuiet(ctx: TestContext, userId: string) {
  const worker = startMailWorker(ctx.deps, { intervalMs: 5 });
  try {
    for (let i = 0; i < 600; i++) {
      const [p] = await rows(ctx, "SELECT count(*) AS n FROM email_outbox WHERE user_id = ? AND status = 'pending'", [userId]);
      if (Number(p!.n) === 0) return;
      await Bun.sleep(10);
    }
    throw new Error('the mail worker did not empty the outbox');
  } finally {
    worker.stop();
  }
}

describe('a bcard authorized at a shop, and the process dies right after it commits', () => {
  test('after restart the remainder goes back once, and the user gets each notice once and each mail once', async () => {
    const clock = new TestClock();
    const state = { armed: false, crashed: false, calls: [] as VendorMethod[] };
    let victim: TestContext | null = null;
    // No mail transport: this process sends nothing. Armed, its first processor call (after the authorization's
    // commit, settling the bcard: its deactivation, then the remainder's refunds) is where it dies.
    const first = await makeTestApp({
      clock,
      wrapVendor: (v) => ({
        ...interceptVendor(v, async <T,>(method: VendorMethod, _a: unknown[], run: () => Promise<T>): Promise<T> => {
          if (state.crashed) throw new CrashError('the process is gone');
          if (!state.armed) return run();
          state.calls.push(method);
          state.crashed = true;
          victim!.handle.close();
          throw new CrashError(`crashed before ${method}`);
        }),
        // The simulated network finds its bcard by number through the simulator (no processor call).
        ...(v.checkIssuedCard ? { checkIssuedCard: v.checkIssuedCard.bind(v) } : {}),
      }),
    });
    victim = first;
    const s = await bcardReady(first);
    state.armed = true;
    // The network's answer leaves once the spend commits; the remainder's refund runs on after it (issuing's
    // `background` settle), and the process dies there.
    const auth = await authorize(first, s.card, 3000);
    expect(auth.status, auth.text).toBe(201);
    expect(auth.body.approved).toBe(true);
    for (let i = 0; i < 200 && !state.crashed; i++) await Bun.sleep(10);
    expect(state.crashed).toBe(true);
    // The first processor call after the commit: the used card's deactivation, before the remainder's refunds.
    expect(state.calls).toEqual(['deactivateCard']);

    const transport = smtpTransport(smtp.url);
    const second = await makeTestApp({ dir: first.dir, clock, mail: { transport, from: FROM } });
    cleanup.push(() => {
      transport.close();
      second.close();
    });
    // The authorization committed whole: recorded, spent, its notice and mail queued.
    expect(await rows(second, 'SELECT decision, amount_cents FROM issuer_authorizations')).toEqual([{ decision: 'approved', amount_cents: 3000 }]);
    const spent = await rows(second, "SELECT id FROM notifications WHERE user_id = ? AND kind = 'bcard_spent'", [s.userId]);
    expect(spent).toHaveLength(1);

    // The sweep (after the dead worker's lease) gives the remainder back; the mail worker sends what is queued.
    clock.advance(COLLECTION_LEASE_MS + 1);
    for (let i = 0; i < 5; i++) if ((await sweepMoney(second.deps)).recovered === 0) break;
    await mailUntilQuiet(second, s.userId);

    const report = await moneyReport(second);
    expect(moneyViolations(report)).toEqual([]);
    const bcard = report.bcards.find((b) => b.id === s.bcardId)!;
    expect(bcard).toMatchObject({ spent: 3000, ledger: 0 });

    // Each notice of the user once; each of the user's mails sent once, under its outbox row's Message-ID.
    const kinds = (await rows(second, 'SELECT kind FROM notifications WHERE user_id = ? ORDER BY seq', [s.userId])).map((n) => String(n.kind));
    expect(kinds.filter((k) => k === 'bcard_spent')).toHaveLength(1);
    expect(new Set(kinds).size).toBe(kinds.length);
    const outbox = await rows(second, 'SELECT id, status FROM email_outbox WHERE user_id = ? ORDER BY created_at, id', [s.userId]);
    expect(outbox.every((m) => m.status === 'sent')).toBe(true);
    const ids = smtp.received.map((m) => messageIdOf(m.raw));
    expect([...ids].sort()).toEqual(outbox.map((m) => outboxMessageId(String(m.id), second.deps.publicUrl)).sort());
    // The spend's mail is among them.
    const [spendMail] = await rows(second, "SELECT id FROM email_outbox WHERE user_id = ? AND subject LIKE '%Corner Shoes%'", [s.userId]);
    expect(spendMail).toBeDefined();

    // A later sweep and worker run change nothing, send nothing.
    const before = smtp.received.length;
    clock.advance(LEASE_MS + COLLECTION_LEASE_MS);
    await sweepMoney(second.deps);
    await mailUntilQuiet(second, s.userId);
    await Bun.sleep(30);
    expect(smtp.received).toHaveLength(before);
    expect(await rows(second, 'SELECT count(*) AS n FROM notifications WHERE user_id = ?', [s.userId])).toEqual([{ n: kinds.length }]);
  });

  test('a mail the server accepted before the process died is sent again after restart, under the same Message-ID', async () => {
    const clock = new TestClock();
    const smtpT = smtpTransport(smtp.url);
    let crashedOn = null as string | null;
    let victim: TestContext | null = null;
    // The server accepts the message; the process dies before recording it as sent.
    const dying: MailTransport = {
      async send(m) {
        await smtpT.send(m);
        if (crashedOn === null) {
          crashedOn = m.messageId ?? '';
          victim!.handle.close();
          throw new CrashError('the process is gone');
        }
      },
      close: () => smtpT.close(),
    };
    const first = await makeTestApp({ clock });
    const s = await bcardReady(first);
    const auth = await authorize(first, s.card, 5000);
    expect(auth.status, auth.text).toBe(201);
    expect(auth.body.approved).toBe(true);
    const [spendMail] = await rows(first, "SELECT id FROM email_outbox WHERE user_id = ? AND subject LIKE '%Corner Shoes%'", [s.userId]);
    expect(spendMail).toBeDefined();
    // Everything else of the user's is already sent: only the spend's mail is left for the dying worker.
    await first.handle.client.execute({ sql: "UPDATE email_outbox SET status = 'sent' WHERE user_id = ? AND id != ?", args: [s.userId, String(spendMail!.id)] });
    first.handle.close();

    const dyingApp = await makeTestApp({ dir: first.dir, clock, mail: { transport: dying, from: FROM } });
    victim = dyingApp;
    const worker = startMailWorker(dyingApp.deps, { intervalMs: 5 });
    await smtp.waitFor(1, 5000);
    for (let i = 0; i < 100 && crashedOn === null; i++) await Bun.sleep(10);
    worker.stop();
    const expectedId = outboxMessageId(String(spendMail!.id), dyingApp.deps.publicUrl);
    expect(crashedOn).toBe(expectedId);

    const transport = smtpTransport(smtp.url);
    const next = await makeTestApp({ dir: first.dir, clock, mail: { transport, from: FROM } });
    cleanup.push(() => {
      transport.close();
      smtpT.close();
      next.close();
    });
    // The dead worker's lease holds it until it runs out; then it goes again.
    clock.advance(LEASE_MS + 1);
    await mailUntilQuiet(next, s.userId);
    expect(smtp.received.map((m) => messageIdOf(m.raw))).toEqual([expectedId, expectedId]);
    expect(await rows(next, 'SELECT status FROM email_outbox WHERE id = ?', [String(spendMail!.id)])).toEqual([{ status: 'sent' }]);
  });
});
