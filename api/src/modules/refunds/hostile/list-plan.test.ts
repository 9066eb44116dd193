import { afterAll, beforeAll, expect, test } from 'bun:test';
import { drizzle } from 'drizzle-orm/libsql';
import { eq } from 'drizzle-orm';
import { schema, firstRow } from '@bpay/db';
import type { AppDeps } from '../../../deps';
import { listRefunds } from '../objects';
import { paidIntent, prepare, refund, world, type Prepared } from '../../../../test-support/modules/refunds-hostile';

/*
 * Found in review (low/medium, scale), fixed: GET /api/v1/refunds?payment_intent=pi_… (and the dashboard's list, which the payment
 * page uses for one intent's history) searches refunds_merchant_idx (merchant_id, livemode) and filters every one of
 * the merchant's refunds by payment_intent_id, newest first: an intent whose refunds are old (or another merchant's
 * intent id, which matches nothing) reads the merchant's whole refund history. The query-plans test has no refunds case.
 */
let p: Prepared;
beforeAll(async () => { p = await prepare(); });
afterAll(() => p.template.close());

test("one intent's refunds are found through refunds_intent_idx, not by filtering the merchant's every refund", async () => {
  const { ctx } = await world(p);
  const pi = await paidIntent(p, ctx, '10.00', [100]);
  await refund(ctx, p.live.secretKey, { payment_intent: pi.id, amount: 100 });
  const captured: { sql: string; params: unknown[] }[] = [];
  const db = drizzle(ctx.handle.client, { schema, logger: { logQuery: (sql, params) => void captured.push({ sql, params }) } });
  const deps: AppDeps = { ...ctx.deps, db, readDb: db };
  const merchant = (await firstRow(ctx.handle.db, schema.merchants, eq(schema.merchants.id, p.live.id)))!;
  const list = await listRefunds(deps, merchant, true, { limit: 10, payment_intent: pi.id });
  expect(list.data.length).toBe(1);
  const plans: string[] = [];
  for (const c of captured.filter((c) => /from "refunds"/.test(c.sql))) {
    const res = await ctx.handle.client.execute({ sql: `EXPLAIN QUERY PLAN ${c.sql}`, args: c.params as never });
    plans.push(...res.rows.map((r) => String(r.detail)));
  }
  expect(plans.some((l) => l.includes('refunds_intent_idx (payment_intent_id=?'))).toBe(true);
  ctx.close();
});
