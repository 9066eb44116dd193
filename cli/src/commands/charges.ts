import type { Command } from 'commander';
import type { ChargeAllocation, RefundAllocation } from '@bpay/sdk';
import { isJson, merchantClient, spin, type Ctx } from '../context';
import { formatDetails, formatMoney, formatTable, formatTime, printJson, type Detail, type Int, type Io } from '../output';
import { collectList, listOptions, type ListFlags } from './list';
import { parseIntentId } from './refunds';

/*
 * `bpay charges get|list` and the split `bpay pi get` prints (issue 28 §2): a paid intent's charge (ch_…) and its
 * allocations, one per funding share of the consumer's bcard (funding type, brand and last 4, never more), and how
 * much of each refund went back to each share.
 */

const FUNDING_WORDS: Record<string, string> = {
  credit: 'Credit card',
  debit: 'Debit card',
  prepaid: 'Prepaid card',
  bank_account: 'Bank account',
};
const SHARE_STATUS_WORDS: Record<string, string> = {
  succeeded: 'Succeeded',
  pending: 'Pending (bank debit settling)',
  failed: 'Returned by the bank',
};
const REFUND_SHARE_STATUS_WORDS: Record<string, string> = {
  succeeded: 'Refunded',
  pending: 'Pending',
  failed: 'Refused',
};

/** `Visa •••• 4242`, `Bank •••• 6789`: what the merchant may know of a share's card or account. */
export function sourceLabel(a: { funding: string; brand: string | null; last4: string }): string {
  const name = a.funding === 'bank_account' ? 'Bank' : a.brand ? a.brand.charAt(0).toUpperCase() + a.brand.slice(1) : 'Card';
  return `${name} •••• ${a.last4}`;
}

/** A charge's split: one row per share, in the order the shares were collected. */
export const allocationTable = (rows: readonly ChargeAllocation[], currency: string) =>
  formatTable(rows, [
    { header: 'Source', value: (a) => sourceLabel(a) },
    { header: 'Funding', value: (a) => FUNDING_WORDS[a.funding] ?? a.funding },
    { header: 'Amount', value: (a) => formatMoney(a.amount, currency), align: 'right' },
    { header: 'Refunded', value: (a) => formatMoney(a.amount_refunded, currency), align: 'right' },
    { header: 'Status', value: (a) => SHARE_STATUS_WORDS[a.status] ?? a.status },
  ]);

/** A refund's split: how much went back to each share. */
export const refundAllocationTable = (rows: readonly RefundAllocation[], currency: string) =>
  formatTable(rows, [
    { header: 'Source', value: (a) => sourceLabel(a) },
    { header: 'Funding', value: (a) => FUNDING_WORDS[a.funding] ?? a.funding },
    { header: 'Back', value: (a) => formatMoney(a.amount, currency), align: 'right' },
    { header: 'Status', value: (a) => REFUND_SHARE_STATUS_WORDS[a.status] ?? a.status },
  ]);

/** The fields `charges get` shows; the SDK's Charge has these (structural typing). */
export interface ChargeView {
  id: string;
  amount: Int;
  amount_captured: Int;
  amount_refunded: Int;
  currency: string;
  status: string;
  payment_intent: string;
  livemode: boolean;
  created: Int;
  payment_method_details: { bcard: { last4: string } };
  allocations: ChargeAllocation[];
}

export function printCharge(io: Io, ch: ChargeView): void {
  const rows: Detail[] = [
    ['ID', ch.id],
    ['Amount', formatMoney(ch.amount, ch.currency)],
    ['Captured', formatMoney(ch.amount_captured, ch.currency)],
    ['Refunded', formatMoney(ch.amount_refunded, ch.currency)],
    ['Status', ch.status],
    ['Payment intent', ch.payment_intent],
    ['Bcard', `•••• ${ch.payment_method_details.bcard.last4}`],
    ['Mode', ch.livemode ? 'production' : 'sandbox'],
    ['Created', formatTime(ch.created)],
  ];
  io.out(formatDetails(rows));
  printSplit(io, ch.allocations, ch.currency);
}

/** "Funded by" and the shares' table (nothing when there are none). */
export function printSplit(io: Io, allocations: readonly ChargeAllocation[], currency: string): void {
  if (allocations.length === 0) return;
  io.out(`\nFunded by (${allocations.length} ${allocations.length === 1 ? 'source' : 'sources'}):\n`);
  io.out(allocationTable(allocations, currency));
}

/** Each refund with its split, newest first. */
export function printRefundSplits(
  io: Io,
  refunds: ReadonlyArray<{ id: string; amount: Int; currency: string; status: string; allocations?: readonly RefundAllocation[] }>,
): void {
  for (const r of refunds) {
    io.out(`\nRefund ${r.id}: ${formatMoney(r.amount, r.currency)} (${r.status})\n`);
    if (r.allocations && r.allocations.length > 0) io.out(refundAllocationTable(r.allocations, r.currency));
  }
}

export const chargeTable = (rows: readonly ChargeView[]) =>
  formatTable(rows, [
    { header: 'ID', value: (c) => c.id },
    { header: 'Amount', value: (c) => formatMoney(c.amount, c.currency), align: 'right' },
    { header: 'Refunded', value: (c) => formatMoney(c.amount_refunded, c.currency), align: 'right' },
    { header: 'Status', value: (c) => c.status },
    { header: 'Sources', value: (c) => c.allocations.map(sourceLabel).join(', ') },
    { header: 'Created', value: (c) => formatTime(c.created) },
  ]);

export function registerCharges(program: Command, ctx: Ctx): void {
  const charges = program
    .command('charges')
    .summary("Show paid payments' charges and how each was funded")
    .description(
      "A paid payment intent's charge (ch_…, its latest_charge), with the split of the consumer's bcard: one row per " +
        'funding share (funding type, brand and last 4 digits, amount, amount refunded, status).',
    );

  charges
    .command('get')
    .alias('retrieve')
    .summary('Show one charge and its split')
    .argument('<id>', 'Charge id (ch_…)')
    .action(async (id: string, _opts: Record<string, never>, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const ch = await spin(ctx, cmd, 'Loading', () => bpay.charges.retrieve(id));
      if (isJson(cmd)) printJson(ctx.io, ch);
      else printCharge(ctx.io, ch);
    });

  listOptions(
    charges
      .command('list')
      .summary('List charges, newest first')
      .option('--payment-intent <id>', "Only this payment intent's charge (pi_…)"),
  ).action(async (opts: ListFlags & { paymentIntent?: string }, cmd: Command) => {
    const payment_intent = opts.paymentIntent !== undefined ? parseIntentId(opts.paymentIntent) : undefined;
    const { bpay } = merchantClient(ctx, cmd);
    const { items, more } = await spin(ctx, cmd, 'Loading', () =>
      collectList(opts, (limit) => bpay.charges.list({ limit, ...(payment_intent ? { payment_intent } : {}) })),
    );
    if (isJson(cmd)) return printJson(ctx.io, items);
    if (items.length === 0) return ctx.io.out(payment_intent ? `No charge for ${payment_intent}.\n` : 'No charges.\n');
    ctx.io.out(chargeTable(items));
    if (more) ctx.io.out(`(more: --limit ${items.length * 2} or --all)\n`);
  });
}
