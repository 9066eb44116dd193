import { afterAll, beforeAll, expect, test } from 'bun:test';
import { call, interceptVendor, makeTestApp, type TestContext } from '../../../test-support/app';
import { addBankAccount, addCard, registerUser, setTier } from '../../../test-support/world';
import { BANK_EXPOSURE_CAP_CENTS } from '../funding-sources/bank-standing';

/*
 * AUDIT: the plan's cap on unsettled bank debits counts only bank_debits rows, which are written at finishCapture.
 * A second bcard recorded while the first is still holding its card shares sees $0 unsettled and passes too.
 */

let ctx: TestContext;
let release: () => void = () => {};
let firstHoldSeen: () => void = () => {};
const firstHold = new Promise<void>((r) => (firstHoldSeen = r));
const gate = new Promise<void>((r) => (release = r));
let holds = 0;

beforeAll(async () => {
  ctx = await makeTestApp({
    rateLimits: false,
    wrapVendor: (v) =>
      interceptVendor(v, async (method, _args, run) => {
        if (method === 'hold' && ++holds === 1) {
          firstHoldSeen();
          await gate; // the first bcard is still holding its card share
        }
        return run();
      }),
  });
});
afterAll(() => ctx.close());

test('two bcards in flight together cannot put more than the cap into unsettled bank debits', async () => {
  const u = await registerUser(ctx);
  await setTier(ctx, u.user.id, 'tier_free');
  const c = (await addCard(ctx, u.cookie)).id;
  const b = (await addBankAccount(ctx, u.cookie, '000000007777')).id;
  expect(BANK_EXPOSURE_CAP_CENTS.free).toBe(50_000);
  const body = { name: 'Split', balance: '600.00', fundingSources: [{ fundingSourceId: c, percentage: 50 }, { fundingSourceId: b, percentage: 50 }] };
  const first = call(ctx, '/api/virtual-cards', { method: 'POST', cookie: u.cookie, body }); // $300 from the bank
  await firstHold;
  const second = await call(ctx, '/api/virtual-cards', { method: 'POST', cookie: u.cookie, body }); // another $300
  release();
  const a = await first;
  expect(a.status, a.text).toBe(201);
  const settling = (await ctx.handle.client.execute({ sql: "SELECT coalesce(sum(amount_cents),0) AS s FROM bank_debits WHERE status = 'pending'", args: [] })).rows[0]!.s;
  // Expected: the second refused with bank_exposure_limit_reached; unsettled stays <= $500.
  expect(Number(settling)).toBeLessThanOrEqual(50_000);
  expect(second.body.error?.code, second.text).toBe('bank_exposure_limit_reached');
});
