import { Option, type Command } from 'commander';
import type { RefundReason } from '@bpay/sdk';
import { isJson, merchantClient, spin, type Ctx } from '../context';
import { formatDetails, formatMoney, formatTable, formatTime, parseIntFlag, parsePairs, printJson, UsageError, type Detail, type Int, type Io } from '../output';
import { collectList, listOptions, type ListFlags } from './list';

/*
 * `bpay refunds create|get|list`: a merchant's refunds of succeeded payment intents (POST/GET /api/v1/refunds). The
 * money goes back to the customer's funding sources in the proportions they paid; the API decides, the CLI shows.
 */

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const satisfies readonly RefundReason[];

/** The fields the tables show; the SDK's Refund type has these (structural typing). */
export interface RefundView {
  id: string;
  amount: Int;
  currency: string;
  status: string;
  reason: string | null;
  payment_intent: string;
  metadata: Record<string, string>;
  created: Int;
  failure_reason: string | null;
}

export function printRefund(io: Io, r: RefundView): void {
  const metadata = Object.entries(r.metadata ?? {});
  const rows: Detail[] = [
    ['ID', r.id],
    ['Amount', formatMoney(r.amount, r.currency)],
    ['Status', r.status],
    ['Payment intent', r.payment_intent],
    ['Reason', r.reason],
    ['Metadata', metadata.length ? metadata.map(([k, v]) => `${k}=${v}`).join(', ') : null],
    ...(r.failure_reason ? [['Failure', r.failure_reason] as Detail] : []),
    ['Created', formatTime(r.created)],
  ];
  io.out(formatDetails(rows));
  if (r.status === 'pending') io.out('\nThe processor has not answered yet: bpay finishes the refund and sends refund.updated.\n');
}

export const refundTable = (rows: readonly RefundView[]) =>
  formatTable(rows, [
    { header: 'ID', value: (r) => r.id },
    { header: 'Amount', value: (r) => formatMoney(r.amount, r.currency), align: 'right' },
    { header: 'Status', value: (r) => r.status },
    { header: 'Payment intent', value: (r) => r.payment_intent },
    { header: 'Reason', value: (r) => r.reason },
    { header: 'Created', value: (r) => formatTime(r.created) },
  ]);

/** A payment intent id as the API makes them (pi_…): anything else is a usage error before any request. */
export function parseIntentId(value: string, flag = '--payment-intent'): string {
  const id = value.trim();
  if (!/^pi_[A-Za-z0-9]+$/.test(id)) throw new UsageError(`${flag} takes a payment intent id (pi_…), got "${value}".`);
  return id;
}

/** Refund amounts are integer cents from 1 (a refund may be smaller than a payment's minimum). */
export const parseRefundAmount = (value: string) => parseIntFlag(value, '--amount', 1, 99_999_999);

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function registerRefunds(program: Command, ctx: Ctx): void {
  const refunds = program
    .command('refunds')
    .summary('Refund payments and list refunds')
    .description(
      'Refunds of succeeded payment intents (amounts in cents, as in the API). The money goes back to the ' +
        "customer's funding sources in the proportions they paid, with the matching part of bpay's fee.",
    );

  refunds
    .command('create')
    .summary('Refund a payment intent, in full or in part')
    .requiredOption('--payment-intent <id>', 'The succeeded payment intent to refund (pi_…)')
    .option('--amount <cents>', 'Refund only this much, in cents (default: everything not yet refunded)')
    .addOption(new Option('--reason <reason>', 'Why the payment is refunded').choices(REFUND_REASONS))
    .option('--metadata <key=value>', 'Metadata pair (repeat for more)', collect)
    .option('--idempotency-key <key>', 'Makes a retried command safe: the same key never refunds twice (default: a fresh key)')
    .addHelpText('after', '\nExamples:\n  bpay refunds create --payment-intent pi_123 --amount 500 --reason requested_by_customer\n  bpay refunds create --payment-intent pi_123   (everything not yet refunded)')
    .action(
      async (
        opts: { paymentIntent: string; amount?: string; reason?: RefundReason; metadata?: string[]; idempotencyKey?: string },
        cmd: Command,
      ) => {
        const payment_intent = parseIntentId(opts.paymentIntent);
        const amount = opts.amount !== undefined ? parseRefundAmount(opts.amount) : undefined;
        const metadata = opts.metadata ? parsePairs(opts.metadata, '--metadata') : undefined;
        if (opts.idempotencyKey !== undefined && !opts.idempotencyKey.trim()) throw new UsageError('--idempotency-key cannot be empty.');
        const { bpay } = merchantClient(ctx, cmd);
        const refund = await spin(ctx, cmd, 'Refunding', () =>
          bpay.refunds.create(
            {
              payment_intent,
              ...(amount !== undefined ? { amount } : {}),
              ...(opts.reason ? { reason: opts.reason } : {}),
              ...(metadata ? { metadata } : {}),
            },
            opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey.trim() } : undefined,
          ),
        );
        if (isJson(cmd)) printJson(ctx.io, refund);
        else printRefund(ctx.io, refund);
      },
    );

  refunds
    .command('get')
    .alias('retrieve')
    .summary('Show one refund')
    .argument('<id>', 'Refund id (re_…)')
    .action(async (id: string, _opts: Record<string, never>, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const refund = await spin(ctx, cmd, 'Loading', () => bpay.refunds.retrieve(id));
      if (isJson(cmd)) printJson(ctx.io, refund);
      else printRefund(ctx.io, refund);
    });

  listOptions(
    refunds
      .command('list')
      .summary('List refunds, newest first')
      .option('--payment-intent <id>', "Only this payment intent's refunds (pi_…)"),
  ).action(async (opts: ListFlags & { paymentIntent?: string }, cmd: Command) => {
    const payment_intent = opts.paymentIntent !== undefined ? parseIntentId(opts.paymentIntent) : undefined;
    const { bpay } = merchantClient(ctx, cmd);
    const { items, more } = await spin(ctx, cmd, 'Loading', () =>
      collectList(opts, (limit) => bpay.refunds.list({ limit, ...(payment_intent ? { payment_intent } : {}) })),
    );
    if (isJson(cmd)) return printJson(ctx.io, items);
    if (items.length === 0) return ctx.io.out(payment_intent ? `No refunds of ${payment_intent}.\n` : 'No refunds.\n');
    ctx.io.out(refundTable(items));
    if (more) ctx.io.out(`(more: --limit ${items.length * 2} or --all)\n`);
  });
}
