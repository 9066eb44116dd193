import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { postCard, registerUser } from '../../../test-support/world';

/*
 * The words bpay writes about a transaction (issue 25 item 5) are written when read, in the reader's language: the
 * same rows read in English by an English reader and in Arabic after the switch, and a payer's own description as
 * written.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await makeTestApp({ rateLimits: false });
});
afterAll(() => ctx.close());

type Tx = { id: string; description: string; failureMessage: string | null };

describe('server-made text in the reader\'s language', () => {
  test('descriptions and failure reasons: English for en, Arabic for ar, from the same stored rows', async () => {
    const u = await registerUser(ctx, { language: 'en' });
    const s1 = (await postCard(ctx, u.cookie, '4242424242424242')).body.id;
    const s2 = (await postCard(ctx, u.cookie, '5555555555554444')).body.id;
    const split = [
      { fundingSourceId: s1, percentage: 50 },
      { fundingSourceId: s2, percentage: 50 },
    ];
    const made = await call(ctx, '/api/virtual-cards', { method: 'POST', cookie: u.cookie, body: { name: 'Two', balance: '10.00', fundingSources: split } });
    expect(made.status, made.text).toBe(201);
    ctx.clock.advance(60_000);
    const paid = await call(ctx, '/api/process-payment', { method: 'POST', cookie: u.cookie, body: { amount: '3.50', merchant: 'Acme Books', splits: split } });
    expect(paid.status, paid.text).toBe(200);
    ctx.clock.advance(60_000);
    const own = await call(ctx, '/api/process-payment', {
      method: 'POST',
      cookie: u.cookie,
      body: { amount: '2.00', merchant: 'Tea House', description: 'Green tea for the office', splits: split },
    });
    expect(own.status, own.text).toBe(200);
    ctx.clock.advance(60_000);
    const failed = await call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: u.cookie,
      body: { name: 'Too big', balance: '9900.00', fundingSources: [{ fundingSourceId: s1, percentage: 100 }] },
    });
    expect(failed.status).toBe(402);

    /** Read as the account's language says, or as a screen in `screen` asks (?language=). */
    const read = async (screen?: 'en' | 'ar') => {
      const q = screen ? `language=${screen}` : '';
      const list = (await call(ctx, `/api/transactions?${q}`, { cookie: u.cookie })).body as Tx[];
      const byId = (id: string) => list.find((t) => t.id === id)!;
      return {
        unused: byId(made.body.transactionId),
        spent: byId(paid.body.transaction.id),
        own: byId(own.body.transaction.id),
        failed: list.find((t) => t.failureMessage !== null)!,
        detail: (await call(ctx, `/api/transactions/${paid.body.transaction.id}?${q}`, { cookie: u.cookie })).body as Tx,
        csv: (await call(ctx, `/api/transactions/export.csv?${q}`, { cookie: u.cookie })).text,
      };
    };

    const en = await read();
    expect(en.unused.description).toBe('bcard funded from 2 sources');
    expect(en.spent.description).toBe('Purchase at Acme Books');
    expect(en.detail.description).toBe('Purchase at Acme Books');
    expect(en.own.description).toBe('Green tea for the office');
    expect(en.failed.failureMessage).toMatch(/^Insufficient funds: .+ \(•••• 4242\) needs \$[0-9.]+, has \$[0-9.]+\. Need \$[0-9.]+ in total\.$/);
    expect(en.csv).toContain('bcard funded from 2 sources');

    expect((await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { language: 'ar' } })).status).toBe(200);
    const ar = await read();
    expect(ar.unused.description).toBe('بطاقة bcard مموّلة من مصدرين');
    expect(ar.spent.description).toBe('شراء لدى \u2068Acme Books\u2069');
    expect(ar.detail.description).toBe(ar.spent.description);
    // A payer's own words are not bpay's to translate.
    expect(ar.own.description).toBe('Green tea for the office');
    expect(ar.failed.failureMessage).toStartWith('الرصيد غير كافٍ: ');
    expect(ar.failed.failureMessage).toMatch(/يحتاج \u2066\$[0-9.]+\u2069 ولديه \u2066\$[0-9.]+\u2069/);
    expect(ar.csv).toContain('بطاقة bcard مموّلة من مصدرين');
    expect(ar.csv).not.toContain('funded from');

    // A screen in another language than the account's (a browser that remembers English while the account says
    // Arabic, or the other way) gets bpay's words in the screen's language; the account's stays as it was.
    expect(await read('en')).toEqual(en);
    expect((await call(ctx, '/api/auth/user', { method: 'PATCH', cookie: u.cookie, body: { language: 'en' } })).status).toBe(200);
    expect(await read('ar')).toEqual(ar);
    expect((await call(ctx, '/api/auth/session', { cookie: u.cookie })).body.user.language).toBe('en');
  });

  test('an unknown screen language is a 400 naming the parameter, on every read that takes one', async () => {
    const u = await registerUser(ctx, { language: 'en' });
    for (const path of ['/api/transactions?language=fr', '/api/transactions/export.csv?language=AR', '/api/transactions/tx_none?language=', '/api/receivables?language=de', '/api/notifications?language=fr']) {
      const res = await call(ctx, path, { cookie: u.cookie });
      expect(res.status, path).toBe(400);
      expect(res.body.error, path).toMatchObject({ code: 'validation_error', param: 'language', message: 'language must be one of: en, ar.' });
    }
  });
});
