import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq } from 'drizzle-orm';
import { NOTICE_KINDS, schema, type NoticeKind } from '@bpay/db';
import { call, makeTestApp, TEST_ORIGIN, type TestContext } from '../../../test-support/app';
import { StreamReader } from '../../../test-support/sse';
import { login, registerUser } from '../../../test-support/world';
import type { NoticeFacts } from './kinds';
import { noticeListenerCount, notify } from './service';
import { MAX_NOTICE_STREAMS_PER_USER, openNoticeStreams } from './stream';

/*
 * The notification centre (issue 25): notify() records a notice and queues its mail as the user chose, in their
 * language; the consumer's routes list, count, read, choose mail and stream notices, each only the user's own.
 */

let ctx: TestContext;
let ada: { cookie: string; id: string; email: string };
let bob: { cookie: string; id: string; email: string };

const SPENT: NoticeFacts['bcard_spent'] = {
  bcardId: 'vc_1',
  bcardName: 'Shoes',
  merchant: 'Shoe Shop',
  amount: '40.00',
  returned: '10.00',
  transactionId: 'col_abc',
};

async function send<K extends NoticeKind>(userId: string, kind: K, facts: NoticeFacts[K]): Promise<string> {
  const id = await ctx.deps.db.transaction((tx) => notify(tx, ctx.deps, userId, kind, facts, ctx.clock.now()));
  if (!id) throw new Error('no notice');
  return id;
}

/** The notice mails (kind notice) queued for a user, newest first. */
/** Every mail of a user, whatever its kind. */
const mailsOfAnyKind = (userId: string) =>
  ctx.deps.db.select({ kind: schema.emailOutbox.kind }).from(schema.emailOutbox).where(eq(schema.emailOutbox.userId, userId));

const mailsOf = (userId: string) =>
  ctx.deps.db
    .select()
    .from(schema.emailOutbox)
    .where(and(eq(schema.emailOutbox.userId, userId), eq(schema.emailOutbox.kind, 'notice')))
    .orderBy(desc(schema.emailOutbox.createdAt), desc(schema.emailOutbox.id));

const setLanguage = (userId: string, language: string) =>
  ctx.deps.db.update(schema.users).set({ language }).where(eq(schema.users.id, userId));

beforeAll(async () => {
  ctx = await makeTestApp({ publicUrl: 'https://bpay.example' });
  const a = await registerUser(ctx);
  const b = await registerUser(ctx);
  ada = { cookie: a.cookie, id: a.user.id, email: a.email };
  bob = { cookie: b.cookie, id: b.user.id, email: b.email };
});
afterAll(() => ctx.close());

describe('notify()', () => {
  test('records one notice with its link, and one mail in English by default', async () => {
    const before = (await mailsOf(ada.id)).length;
    const id = await send(ada.id, 'bcard_spent', SPENT);
    expect(id).toStartWith('ntf_');
    const [row] = await ctx.deps.db.select().from(schema.notifications).where(eq(schema.notifications.id, id));
    expect(row).toMatchObject({ userId: ada.id, kind: 'bcard_spent', link: '/?tab=transactions&transaction=col_abc', readAt: null });
    const mails = await mailsOf(ada.id);
    expect(mails.length).toBe(before + 1);
    const mail = mails[0]!;
    expect(mail.toAddress).toBe(ada.email);
    expect(mail.subject).toBe('$40.00 spent at Shoe Shop');
    expect(mail.textBody).toContain('Your bcard Shoes paid $40.00 at Shoe Shop. The $10.00 left on it goes back to your sources.');
    expect(mail.textBody).toContain('https://bpay.example/?tab=transactions&transaction=col_abc');
    expect(mail.htmlBody).toContain('<html lang="en" dir="ltr">');
  });

  test('a user that does not exist gets nothing', async () => {
    const id = await ctx.deps.db.transaction((tx) => notify(tx, ctx.deps, 'usr_nobody', 'kyc_approved', {}, ctx.clock.now()));
    expect(id).toBeNull();
  });

  test('a notice written in a transaction that rolls back leaves neither notice nor mail', async () => {
    const notices = (await ctx.deps.db.select().from(schema.notifications).where(eq(schema.notifications.userId, bob.id))).length;
    const mails = (await mailsOf(bob.id)).length;
    await expect(
      ctx.deps.db.transaction(async (tx) => {
        await notify(tx, ctx.deps, bob.id, 'kyc_approved', {}, ctx.clock.now());
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect((await ctx.deps.db.select().from(schema.notifications).where(eq(schema.notifications.userId, bob.id))).length).toBe(notices);
    expect((await mailsOf(bob.id)).length).toBe(mails);
  });

  test("Arabic user: the mail is Arabic, right-to-left, its figures left-to-right", async () => {
    const u = await registerUser(ctx);
    await setLanguage(u.user.id, 'ar');
    await send(u.user.id, 'bank_debit_returned', {
      accountName: 'Chase Checking',
      last4: '6789',
      amount: '1250.50',
      reason: 'R01',
      owed: '12.00',
      transactionId: 'col_x',
    });
    const [mail] = await mailsOf(u.user.id);
    expect(mail!.subject).toBe('أعاد البنك خصم \u2066$1,250.50\u2069');
    expect(mail!.htmlBody).toContain('<html lang="ar" dir="rtl">');
    expect(mail!.htmlBody).toContain('<span dir="ltr">$1,250.50</span>');
    expect(mail!.htmlBody).toContain('<span dir="ltr">$12.00</span>');
    expect(mail!.htmlBody).toContain('رصيد غير كافٍ');
    expect(mail!.htmlBody).toContain('<bdi>Chase Checking</bdi>');
    // No isolate characters are left in the HTML: each became an element.
    expect(mail!.htmlBody).not.toMatch(/[\u2066-\u2069]/);
    expect(mail!.textBody).toContain('مرحبًا');
  });

  test('preferences decide the mail: a money kind turned off queues none, on again queues one; the notice is recorded either way', async () => {
    const u = await registerUser(ctx);
    const off = await call(ctx, '/api/notifications/preferences', { method: 'PUT', cookie: u.cookie, body: { email: { bcard_spent: false } } });
    expect(off.status).toBe(200);
    expect(off.body.find((p: { kind: string }) => p.kind === 'bcard_spent')).toMatchObject({ email: false, locked: false, group: 'bcards' });
    await send(u.user.id, 'bcard_spent', SPENT);
    expect(await mailsOf(u.user.id)).toHaveLength(0);
    // Another money kind keeps its default (on).
    await send(u.user.id, 'merchant_refund', { merchant: 'Shoe Shop', amount: '5.00', parts: [{ name: 'Visa', last4: '4242', amount: '5.15' }], transactionId: 'col_abc' });
    expect(await mailsOf(u.user.id)).toHaveLength(1);
    const on = await call(ctx, '/api/notifications/preferences', { method: 'PUT', cookie: u.cookie, body: { email: { bcard_spent: true } } });
    expect(on.status).toBe(200);
    await send(u.user.id, 'bcard_spent', SPENT);
    expect(await mailsOf(u.user.id)).toHaveLength(2);
    // Only differences from the defaults are stored.
    const [row] = await ctx.deps.db.select({ prefs: schema.users.noticeEmailPrefs }).from(schema.users).where(eq(schema.users.id, u.user.id));
    expect(row!.prefs).toEqual({});
    const list = await call(ctx, '/api/notifications', { cookie: u.cookie });
    expect(list.body.map((n: { kind: string }) => n.kind)).toEqual(['bcard_spent', 'merchant_refund', 'bcard_spent']);
  });

  test('security kinds are always mailed whatever is stored; sign-in and plan kinds are mailed by their own module, never twice', async () => {
    const u = await registerUser(ctx);
    // Even a stored "off" (written around the API) does not stop a security mail.
    await ctx.deps.db.update(schema.users).set({ noticeEmailPrefs: { password_changed: false } }).where(eq(schema.users.id, u.user.id));
    await send(u.user.id, 'password_changed', {});
    expect(await mailsOf(u.user.id)).toHaveLength(1);
    // sign_in, plan_charged and plan_renewal_failed: the notice is recorded, its mail is the module's own (the
    // sign-in notice; billing's receipt and plan notices), so notify() adds none.
    for (const [kind, facts] of [
      ['sign_in', { device: 'Chrome on macOS', ip: '198.51.100.4' }],
      ['plan_charged', { plan: 'Pro', amount: '9.99', kind: 'upgrade' }],
      ['plan_renewal_failed', { plan: 'Pro', amount: '9.99', reason: 'card_declined' }],
    ] as const) {
      await send(u.user.id, kind, facts as never);
      expect(await mailsOf(u.user.id)).toHaveLength(1);
    }
    const list = await call(ctx, '/api/notifications', { cookie: u.cookie });
    expect(list.body.map((n: { kind: string }) => n.kind)).toEqual(['plan_renewal_failed', 'plan_charged', 'sign_in', 'password_changed']);
  });

  test('a real sign-in sends exactly one mail (the sign-in notice), and none with Login Notifications off', async () => {
    const u = await registerUser(ctx);
    const before = (await mailsOfAnyKind(u.user.id)).length;
    const signIn = () => login(ctx, u.email, u.password);
    expect((await signIn()).status).toBe(200);
    const after = await mailsOfAnyKind(u.user.id);
    expect(after.length - before).toBe(1);
    expect(after.map((m) => m.kind)).toContain('sign_in_notice');
    expect((await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { loginNotifications: false } })).status).toBe(200);
    expect((await signIn()).status).toBe(200);
    expect((await mailsOfAnyKind(u.user.id)).length).toBe(after.length);
    // The notice itself is always shown.
    const list = await call(ctx, '/api/notifications', { cookie: u.cookie });
    expect(list.body.filter((n: { kind: string }) => n.kind === 'sign_in')).toHaveLength(2);
  });
});

describe('routes', () => {
  let adaNotice: string;
  beforeAll(async () => {
    adaNotice = await send(ada.id, 'bcard_declined', { bcardId: 'vc_1', bcardName: 'Shoes', merchant: 'Other Shop', amount: '12.00', reason: 'merchant_mismatch' });
  });

  test('list: newest first, in the reader\'s language of the moment, paged by cursor', async () => {
    const u = await registerUser(ctx);
    for (let i = 1; i <= 5; i++) await send(u.user.id, 'plan_charged', { plan: 'Pro', amount: `${i}.00`, kind: 'renewal' });
    const first = await call(ctx, '/api/notifications?limit=2', { cookie: u.cookie });
    expect(first.status).toBe(200);
    expect(first.body.map((n: { title: string }) => n.title)).toEqual(['Pro plan: $5.00 charged', 'Pro plan: $4.00 charged']);
    expect(first.body[0]).toMatchObject({ kind: 'plan_charged', link: '/plans', readAt: null, body: 'Your Pro plan renewed: $5.00 was charged.' });
    const cursor = first.headers.get('bpay-next-cursor')!;
    expect(cursor).toBeTruthy();
    const rest = await call(ctx, `/api/notifications?limit=10&cursor=${cursor}`, { cookie: u.cookie });
    expect(rest.body.map((n: { title: string }) => n.title)).toEqual(['Pro plan: $3.00 charged', 'Pro plan: $2.00 charged', 'Pro plan: $1.00 charged']);
    expect(rest.headers.get('bpay-next-cursor')).toBeNull();
    await setLanguage(u.user.id, 'ar');
    const ar = await call(ctx, '/api/notifications?limit=1', { cookie: u.cookie });
    expect(ar.body[0].body).toBe('جُدّدت خطتك \u2068Pro\u2069: خُصم \u2066$5.00\u2069.');
    // The screen may ask for its own language.
    const en = await call(ctx, '/api/notifications?limit=1&language=en', { cookie: u.cookie });
    expect(en.body[0].body).toBe('Your Pro plan renewed: $5.00 was charged.');
    expect((await call(ctx, '/api/notifications?language=fr', { cookie: u.cookie })).status).toBe(400);
  });

  test.each([
    { name: 'no session', path: '/api/notifications', method: 'GET', cookie: false, status: 401, code: 'unauthenticated' },
    { name: 'limit 0', path: '/api/notifications?limit=0', method: 'GET', cookie: true, status: 400, code: 'validation_error' },
    { name: 'limit 101', path: '/api/notifications?limit=101', method: 'GET', cookie: true, status: 400, code: 'validation_error' },
    { name: 'forged cursor', path: '/api/notifications?cursor=nope', method: 'GET', cookie: true, status: 400, code: 'validation_error' },
    { name: 'malformed id', path: '/api/notifications/%27%3B--/read', method: 'POST', cookie: true, status: 404, code: 'resource_not_found' },
    { name: 'unknown id', path: '/api/notifications/ntf_000000000000000000000000/read', method: 'POST', cookie: true, status: 404, code: 'resource_not_found' },
    { name: 'unread count, no session', path: '/api/notifications/unread-count', method: 'GET', cookie: false, status: 401, code: 'unauthenticated' },
    { name: 'stream, no session', path: '/api/notifications/stream', method: 'GET', cookie: false, status: 401, code: 'unauthenticated' },
  ])('$name: $status $code', async ({ path, method, cookie, status, code }) => {
    const res = await call(ctx, path, { method, cookie: cookie ? ada.cookie : undefined });
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  });

  test("another user's notice is 404 and stays unread", async () => {
    const res = await call(ctx, `/api/notifications/${adaNotice}/read`, { method: 'POST', cookie: bob.cookie });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'resource_not_found', param: 'id' });
    const [row] = await ctx.deps.db.select().from(schema.notifications).where(eq(schema.notifications.id, adaNotice));
    expect(row!.readAt).toBeNull();
    // Nor is it in Bob's list or count.
    const list = await call(ctx, '/api/notifications', { cookie: bob.cookie });
    expect(list.body.some((n: { id: string }) => n.id === adaNotice)).toBe(false);
  });

  test('unread count, mark one read (its first reading time stays), mark all read', async () => {
    const u = await registerUser(ctx);
    const one = await send(u.user.id, 'kyc_approved', {});
    await send(u.user.id, 'kyc_failed', { reason: 'document_expired' });
    await send(u.user.id, 'two_factor_enabled', {});
    const count = async () => (await call(ctx, '/api/notifications/unread-count', { cookie: u.cookie })).body.unread;
    expect(await count()).toBe(3);
    const read = await call(ctx, `/api/notifications/${one}/read`, { method: 'POST', cookie: u.cookie });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: one, kind: 'kyc_approved', title: 'Identity verified', link: '/kyc-verification' });
    expect(read.body.readAt).toBe(ctx.clock.now().toISOString());
    expect(await count()).toBe(2);
    ctx.clock.advance(60_000);
    const again = await call(ctx, `/api/notifications/${one}/read`, { method: 'POST', cookie: u.cookie });
    expect(again.body.readAt).toBe(read.body.readAt);
    const all = await call(ctx, '/api/notifications/read-all', { method: 'POST', cookie: u.cookie });
    expect(all.body).toEqual({ marked: 2 });
    expect(await count()).toBe(0);
    expect((await call(ctx, '/api/notifications/read-all', { method: 'POST', cookie: u.cookie })).body).toEqual({ marked: 0 });
    // Another user's unread notices are untouched by this user's "mark all".
    expect((await call(ctx, '/api/notifications/unread-count', { cookie: ada.cookie })).body.unread).toBeGreaterThan(0);
  });

  test('preferences: every kind listed with its group; security locked on; unknown kind and security off are 400 naming the kind, storing nothing', async () => {
    const u = await registerUser(ctx);
    const got = await call(ctx, '/api/notifications/preferences', { cookie: u.cookie });
    expect(got.status).toBe(200);
    expect(got.body.map((p: { kind: string }) => p.kind)).toEqual([...NOTICE_KINDS]);
    expect(got.body.every((p: { email: boolean }) => p.email)).toBe(true);
    expect(got.body.filter((p: { locked: boolean }) => p.locked).map((p: { kind: string }) => p.kind)).toEqual([
      'plan_charged',
      'plan_renewal_failed',
      'sign_in',
      'password_changed',
      'password_reset',
      'two_factor_enabled',
      'two_factor_disabled',
      'email_changed',
    ]);
    const unknown = await call(ctx, '/api/notifications/preferences', {
      method: 'PUT',
      cookie: u.cookie,
      body: { email: { bcard_spent: false, marketing: true } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'validation_error', param: 'email.marketing' });
    expect(unknown.body.error.message).toContain("'marketing'");
    const security = await call(ctx, '/api/notifications/preferences', {
      method: 'PUT',
      cookie: u.cookie,
      body: { email: { bcard_spent: false, password_changed: false } },
    });
    expect(security.status).toBe(400);
    expect(security.body.error).toMatchObject({ code: 'validation_error', param: 'email.password_changed' });
    expect(security.body.error.message).toContain('cannot be turned off');
    const signIn = await call(ctx, '/api/notifications/preferences', { method: 'PUT', cookie: u.cookie, body: { email: { sign_in: false } } });
    expect(signIn.status).toBe(400);
    expect(signIn.body.error.message).toContain('Login Notifications');
    // Nothing of the refused requests was stored (bcard_spent came in both).
    const after = await call(ctx, '/api/notifications/preferences', { cookie: u.cookie });
    expect(after.body.find((p: { kind: string }) => p.kind === 'bcard_spent').email).toBe(true);
    const notBool = await call(ctx, '/api/notifications/preferences', { method: 'PUT', cookie: u.cookie, body: { email: { bcard_spent: 'no' } } });
    expect(notBool.status).toBe(400);
  });
});

describe('GET /api/notifications/stream', () => {
  async function open(cookie: string, lastEventId?: string) {
    const abort = new AbortController();
    const res = await ctx.app.handle(
      new Request(`${TEST_ORIGIN}/api/notifications/stream`, {
        headers: { cookie, origin: TEST_ORIGIN, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal: abort.signal,
      }),
    );
    expect(res.status).toBe(200);
    const s = new StreamReader(res, abort);
    await s.until(() => s.frames.some((f) => f.comment === 'connected'));
    return s;
  }

  test('sends a notice written after it opened (not before, not another user\'s), then resumes from Last-Event-ID', async () => {
    const u = await registerUser(ctx);
    await send(u.user.id, 'kyc_approved', {}); // before: never sent
    const listeners = noticeListenerCount();
    const s = await open(u.cookie);
    expect(s.response.headers.get('content-type')).toStartWith('text/event-stream');
    expect(noticeListenerCount()).toBe(listeners + 1);
    await send(bob.id, 'bcard_spent', SPENT);
    const first = await send(u.user.id, 'bcard_spent', SPENT);
    await s.until(() => s.events().length === 1);
    const [frame] = s.events();
    expect(frame).toMatchObject({ id: first, event: 'notice' });
    expect(JSON.parse(frame!.data!)).toMatchObject({ id: first, kind: 'bcard_spent', title: '$40.00 spent at Shoe Shop', readAt: null });
    await s.disconnect();
    // Closed: no listener left behind.
    const end = Date.now() + 2000;
    while (noticeListenerCount() !== listeners && Date.now() < end) await Bun.sleep(5);
    expect(noticeListenerCount()).toBe(listeners);

    // Written while disconnected; the reconnect says the last one it got.
    const missed1 = await send(u.user.id, 'bcard_expired', { bcardId: 'vc_2', bcardName: 'Gift', returned: '25.00', parts: [{ name: 'Visa', last4: '4242', amount: '25.00' }], transactionId: 'col_2' });
    const missed2 = await send(u.user.id, 'merchant_refund', { merchant: 'Shoe Shop', amount: '5.00', parts: [], transactionId: 'col_abc' });
    const again = await open(u.cookie, first);
    await again.until(() => again.events().length === 2);
    expect(again.events().map((f) => f.id)).toEqual([missed1, missed2]);
    expect(JSON.parse(again.events()[0]!.data!).body).toBe('Your bcard Gift expired. $25.00 went back to your sources: Visa •••• 4242: $25.00.');
    const live = await send(u.user.id, 'password_changed', {});
    await again.until(() => again.events().length === 3);
    expect(again.events()[2]!.id).toBe(live);
    await again.cancel();
  });

  test("another user's notice id as Last-Event-ID resumes nothing of theirs: only what is new", async () => {
    const u = await registerUser(ctx);
    const bobs = await send(bob.id, 'kyc_approved', {});
    const s = await open(u.cookie, bobs);
    await s.quiet(100);
    expect(s.events()).toEqual([]);
    const mine = await send(u.user.id, 'kyc_approved', {});
    await s.until(() => s.events().length === 1);
    expect(s.events()[0]!.id).toBe(mine);
    await s.cancel();
  });

  test(`at most ${MAX_NOTICE_STREAMS_PER_USER} open streams per account: the next is 429 until one closes, and closed ones are given back`, async () => {
    const u = await registerUser(ctx);
    // Opened in parallel: the count is taken before any await, so they cannot all slip under the cap.
    const tries = await Promise.all(
      Array.from({ length: MAX_NOTICE_STREAMS_PER_USER + 3 }, () =>
        ctx.app.handle(new Request(`${TEST_ORIGIN}/api/notifications/stream`, { headers: { cookie: u.cookie, origin: TEST_ORIGIN }, signal: new AbortController().signal })),
      ),
    );
    const ok = tries.filter((r) => r.status === 200);
    const refused = tries.filter((r) => r.status === 429);
    expect(ok).toHaveLength(MAX_NOTICE_STREAMS_PER_USER);
    expect(refused).toHaveLength(3);
    expect((await refused[0]!.json()).error).toMatchObject({ code: 'rate_limited' });
    expect(openNoticeStreams(ctx.deps, u.user.id)).toBe(MAX_NOTICE_STREAMS_PER_USER);
    // Another account is not affected.
    const other = await open(bob.cookie);
    // One closes: one more may open.
    await ok[0]!.body!.cancel();
    expect(openNoticeStreams(ctx.deps, u.user.id)).toBe(MAX_NOTICE_STREAMS_PER_USER - 1);
    const again = await open(u.cookie);
    await again.cancel();
    for (const r of ok.slice(1)) await r.body!.cancel();
    await other.cancel();
    expect(openNoticeStreams(ctx.deps, u.user.id)).toBe(0);
  });

  test('a stream whose session ended (signed out) sends one error and ends', async () => {
    const u = await registerUser(ctx);
    const s = await open(u.cookie);
    await call(ctx, '/api/auth/logout', { method: 'POST', cookie: u.cookie });
    await send(u.user.id, 'kyc_approved', {});
    await s.until(() => s.closed, 3000);
    const error = s.frames.find((f) => f.event === 'error');
    expect(JSON.parse(error!.data!).error.code).toBe('unauthenticated');
    expect(s.events()).toEqual([]);
  });
});
