// Hostile review of issue 26 part 1: a bank debit returned while its bcard was still unused. The return moves the
// share to receivable:<user> and starts the bcard's cancel, whose refund gives that part back to the receivable: nothing
// is owed in the end. While the cancel is still running, that amount must not be repayable (else it is paid twice and
// the receivable ends positive: bpay owing the consumer with no way to pay it back).
import { expect, test } from 'bun:test';
import { sweepMoney } from '../../boot';
import { call, interceptVendor, makeTestApp, type TestContext } from '../../../test-support/app';
import { addBankAccount, addCard, BANK_RETURNS_R01, makePremium, registerUser } from '../../../test-support/world';
import { ledgerBalance } from '../../../test-support/money-invariants';
import { SIM_ACH_SETTLEMENT_MS } from '../../vendors/simulated-bank';
import { VendorUnavailableError } from '../../vendors/types';
import { ledgerTotal } from '../ledger/service';

test('an unused bcard whose debit came back: its amount is not repayable while the bcard is being canceled', async () => {
  const gate = { refunds: false };
  const ctx: TestContext = await makeTestApp({
    rateLimits: false,
    wrapVendor: (v) =>
      interceptVendor(v, async (m, _args, run) => {
        if ((m === 'refund' || m === 'deactivateCard') && !gate.refunds) throw new VendorUnavailableError('the processor is away');
        return run();
      }),
  });
  const u = await registerUser(ctx);
  await makePremium(ctx, u.user.id);
  const card = (await addCard(ctx, u.cookie)).id;
  const bank = (await addBankAccount(ctx, u.cookie, BANK_RETURNS_R01)).id;
  const made = await call(ctx, '/api/virtual-cards', {
    method: 'POST',
    cookie: u.cookie,
    body: { name: 'Unused', balance: '100.00', fundingSources: [{ fundingSourceId: card, percentage: 50 }, { fundingSourceId: bank, percentage: 50 }] },
  });
  expect(made.status, made.text).toBe(201);
  ctx.clock.advance(SIM_ACH_SETTLEMENT_MS);
  await sweepMoney(ctx.deps);
  // The return moved the share to the receivable; the cancel that gives it back is waiting for the processor.
  expect(await ledgerBalance(ctx, `receivable:${u.user.id}`)).toBeLessThan(0);
  const r = (await call(ctx, '/api/receivables', { cookie: u.cookie })).body;
  expect(r.repayable).toBe('0.00');
  const paid = await call(ctx, '/api/receivables/payments', {
    method: 'POST',
    cookie: u.cookie,
    body: { fundingSourceId: card, amount: r.owed },
    headers: { 'idempotency-key': 'k1' },
  });
  expect([paid.status, paid.body.error?.code], paid.text).toEqual([400, 'repayment_exceeds_owed']);
  expect(paid.body.error.message).toContain("is cleared by a bcard's refund still on its way");
  expect(await ledgerBalance(ctx, `receivable:${u.user.id}`)).toBeLessThan(0);
  // The processor is back: the cancel's refund clears it; nothing was paid twice.
  gate.refunds = true;
  ctx.clock.advance(10 * 60_000);
  await sweepMoney(ctx.deps);
  expect(await ledgerBalance(ctx, `receivable:${u.user.id}`)).toBe(0);
  expect(await ledgerTotal(ctx.deps.db)).toBe(0);
  ctx.close();
});
