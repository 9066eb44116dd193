import { Option, type Command } from 'commander';
import { isJson, merchantClient, spin, type Ctx } from '../context';
import {
  formatDetails,
  formatMoney,
  formatTable,
  formatTime,
  parseCents,
  parsePairs,
  parsePaymentAmount,
  printJson,
  UsageError,
  type Detail,
  type Int,
  type Io,
} from '../output';

const row = (k: string, v: Detail[1]): Detail => [k, v];
import { collectList, listOptions, type ListFlags } from './list';
import { printRefundSplits, printSplit } from './charges';

/** An intent a bcard paid or authorized: it has a charge, with the split that funded it. */
const PAID_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'requires_capture']);

/** The fields the tables show; the SDK's PaymentIntent type has these and more (structural typing). */
export interface IntentView {
  id: string;
  amount: Int;
  amount_capturable: Int;
  amount_received: Int;
  currency: string;
  status: string;
  capture_method: string;
  created: Int;
  description: string | null;
  metadata: Record<string, string>;
  livemode: boolean;
  payment_method: string | null;
  last_payment_error: Record<string, unknown> | null;
  canceled_at: Int | null;
  cancellation_reason: string | null;
}

export function printIntent(io: Io, pi: IntentView): void {
  const err = pi.last_payment_error;
  const errText = err ? [err.message, err.decline_code ?? err.code].filter((v) => typeof v === 'string' && v).join(' — ') : null;
  const metadata = Object.entries(pi.metadata ?? {});
  io.out(
    formatDetails([
      row('ID', pi.id),
      ['Amount', formatMoney(pi.amount, pi.currency)],
      ['Status', pi.status],
      ['Capture method', pi.capture_method],
      ...(Number(pi.amount_capturable) > 0 ? [row('Capturable', formatMoney(pi.amount_capturable, pi.currency))] : []),
      ['Received', formatMoney(pi.amount_received, pi.currency)],
      ['Description', pi.description],
      ['Metadata', metadata.length ? metadata.map(([k, v]) => `${k}=${v}`).join(', ') : null],
      ['Payment method', pi.payment_method],
      ...(errText ? [row('Last error', errText)] : []),
      ...(pi.canceled_at ? [row('Canceled', `${formatTime(pi.canceled_at)}${pi.cancellation_reason ? ` (${pi.cancellation_reason})` : ''}`)] : []),
      ['Mode', pi.livemode ? 'production' : 'sandbox'],
      ['Created', formatTime(pi.created)],
    ]),
  );
}

export const intentTable = (rows: readonly IntentView[]) =>
  formatTable(rows, [
    { header: 'ID', value: (p) => p.id },
    { header: 'Amount', value: (p) => formatMoney(p.amount, p.currency), align: 'right' },
    { header: 'Status', value: (p) => p.status },
    { header: 'Description', value: (p) => (p.description && p.description.length > 40 ? `${p.description.slice(0, 39)}…` : p.description) },
    { header: 'Created', value: (p) => formatTime(p.created) },
  ]);

/** `MM/YY` or `MM/YYYY` into the API's exp_month and exp_year (four digits). */
export function parseExpiry(value: string): { exp_month: number; exp_year: number } {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(value);
  const month = m ? Number(m[1]) : NaN;
  if (!m || month < 1 || month > 12) throw new UsageError(`--exp takes MM/YY (got "${value}").`);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  return { exp_month: month, exp_year: year };
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function registerPaymentIntents(program: Command, ctx: Ctx): void {
  const pis = program
    .command('payment-intents')
    .alias('pi')
    .summary('Create, confirm, capture, cancel and list payment intents')
    .description('Payment intents of the merchant behind the key (amounts in cents, as in the API).');

  pis
    .command('create')
    .summary('Create a payment intent')
    .requiredOption('--amount <cents>', 'Amount in cents, 50 to 99999999 (2000 = $20.00)')
    .option('--currency <code>', 'Currency', 'usd')
    .option('--description <text>', 'Description shown in the dashboard')
    .option('--metadata <key=value>', 'Metadata pair (repeat for more)', collect)
    .addOption(new Option('--capture-method <method>', 'automatic, or manual to authorize now and capture later').choices(['automatic', 'manual']))
    .action(async (opts: { amount: string; currency: string; description?: string; metadata?: string[]; captureMethod?: 'automatic' | 'manual' }, cmd: Command) => {
      const amount = parsePaymentAmount(opts.amount, '--amount');
      const metadata = opts.metadata ? parsePairs(opts.metadata, '--metadata') : undefined;
      const { bpay } = merchantClient(ctx, cmd);
      const pi = await spin(ctx, cmd, 'Creating the payment intent', () =>
        bpay.paymentIntents.create({
          amount,
          currency: opts.currency,
          ...(opts.description !== undefined ? { description: opts.description } : {}),
          ...(metadata ? { metadata } : {}),
          ...(opts.captureMethod ? { capture_method: opts.captureMethod } : {}),
        }),
      );
      if (isJson(cmd)) printJson(ctx.io, pi);
      else printIntent(ctx.io, pi);
    });

  pis
    .command('update')
    .summary('Change a payment intent before it is paid')
    .description(
      'Changes amount, description, metadata or capture method while no payment has started on the intent. Metadata ' +
        'is merged: --metadata key=value sets a key, --metadata key= removes it; --clear-metadata removes every key.',
    )
    .argument('<id>', 'Payment intent id (pi_…)')
    .option('--amount <cents>', 'New amount in cents, 50 to 99999999')
    .option('--description <text>', 'New description ("" removes it)')
    .option('--metadata <key=value>', 'Set a metadata key (key= removes it; repeat for more)', collect)
    .option('--clear-metadata', 'Remove every metadata key')
    .addOption(new Option('--capture-method <method>', 'automatic or manual').choices(['automatic', 'manual']))
    .action(
      async (
        id: string,
        opts: { amount?: string; description?: string; metadata?: string[]; clearMetadata?: boolean; captureMethod?: 'automatic' | 'manual' },
        cmd: Command,
      ) => {
        if (opts.clearMetadata && opts.metadata) throw new UsageError('Give --metadata or --clear-metadata, not both.');
        const params = {
          ...(opts.amount !== undefined ? { amount: parsePaymentAmount(opts.amount, '--amount') } : {}),
          ...(opts.description !== undefined ? { description: opts.description } : {}),
          ...(opts.metadata ? { metadata: parsePairs(opts.metadata, '--metadata') } : {}),
          ...(opts.clearMetadata ? { metadata: '' as const } : {}),
          ...(opts.captureMethod ? { capture_method: opts.captureMethod } : {}),
        };
        if (Object.keys(params).length === 0) {
          throw new UsageError('Nothing to update: give --amount, --description, --metadata, --clear-metadata or --capture-method.');
        }
        const { bpay } = merchantClient(ctx, cmd);
        const pi = await spin(ctx, cmd, 'Updating the payment intent', () => bpay.paymentIntents.update(id, params));
        if (isJson(cmd)) printJson(ctx.io, pi);
        else printIntent(ctx.io, pi);
      },
    );

  pis
    .command('get')
    .alias('retrieve')
    .summary('Show one payment intent; when paid, how it was funded and how each refund went back')
    .argument('<id>', 'Payment intent id (pi_…)')
    .action(async (id: string, _opts: Record<string, never>, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const pi = await spin(ctx, cmd, 'Loading', () => bpay.paymentIntents.retrieve(id));
      if (isJson(cmd)) return printJson(ctx.io, pi);
      printIntent(ctx.io, pi);
      if (!PAID_STATUSES.has(pi.status)) return;
      // The split (issue 28 §2): the intent's charge and its refunds, each with its allocations.
      const [charge, refunds] = await spin(ctx, cmd, 'Loading the split', () =>
        Promise.all([bpay.charges.list({ payment_intent: pi.id, limit: 1 }).firstPage(), bpay.refunds.list({ payment_intent: pi.id }).toArray(100)]),
      );
      const ch = charge.data[0];
      if (ch) printSplit(ctx.io, ch.allocations, ch.currency);
      printRefundSplits(ctx.io, refunds);
    });

  listOptions(pis.command('list').summary('List payment intents, newest first')).action(async (opts: ListFlags, cmd: Command) => {
    const { bpay } = merchantClient(ctx, cmd);
    const { items, more } = await spin(ctx, cmd, 'Loading', () => collectList(opts, (limit) => bpay.paymentIntents.list({ limit })));
    if (isJson(cmd)) return printJson(ctx.io, items);
    if (items.length === 0) return ctx.io.out('No payment intents.\n');
    ctx.io.out(intentTable(items));
    if (more) ctx.io.out(`(more: --limit ${items.length * 2} or --all)\n`);
  });

  pis
    .command('confirm')
    .summary('Confirm (pay) a payment intent with a bcard')
    .argument('<id>', 'Payment intent id')
    .option('--payment-method <bcard>', 'A bcard id issued for this merchant')
    .option('--card <number>', 'A bcard number (with --exp and --cvc)')
    .option('--exp <MM/YY>', 'Expiry of --card')
    .option('--cvc <cvc>', 'CVC of --card')
    .action(async (id: string, opts: { paymentMethod?: string; card?: string; exp?: string; cvc?: string }, cmd: Command) => {
      const byCard = opts.card !== undefined || opts.exp !== undefined || opts.cvc !== undefined;
      if (opts.paymentMethod && byCard) throw new UsageError('Give either --payment-method or --card/--exp/--cvc, not both.');
      if (!opts.paymentMethod && !byCard) throw new UsageError('Give --payment-method <bcard id>, or --card <number> --exp <MM/YY> --cvc <cvc>.');
      let body: { payment_method: string } | { payment_method_data: { type: 'card'; card: { number: string; exp_month: number; exp_year: number; cvc: string } } };
      if (opts.paymentMethod) body = { payment_method: opts.paymentMethod };
      else {
        if (!opts.card || !opts.exp || !opts.cvc) throw new UsageError('--card needs --exp <MM/YY> and --cvc <cvc>.');
        if (!/^\d{3,4}$/.test(opts.cvc)) throw new UsageError('--cvc takes 3 or 4 digits.');
        body = { payment_method_data: { type: 'card', card: { number: opts.card.replace(/[\s-]/g, ''), ...parseExpiry(opts.exp), cvc: opts.cvc } } };
      }
      const { bpay } = merchantClient(ctx, cmd);
      const pi = await spin(ctx, cmd, 'Confirming', () => bpay.paymentIntents.confirm(id, body));
      if (isJson(cmd)) printJson(ctx.io, pi);
      else printIntent(ctx.io, pi);
    });

  pis
    .command('capture')
    .summary('Capture an authorized payment intent (capture method manual)')
    .argument('<id>', 'Payment intent id')
    .option('--amount <cents>', 'Capture less than authorized; the rest goes back')
    .action(async (id: string, opts: { amount?: string }, cmd: Command) => {
      const amount = opts.amount !== undefined ? parseCents(opts.amount, '--amount') : undefined;
      const { bpay } = merchantClient(ctx, cmd);
      const pi = await spin(ctx, cmd, 'Capturing', () => bpay.paymentIntents.capture(id, amount !== undefined ? { amount_to_capture: amount } : {}));
      if (isJson(cmd)) printJson(ctx.io, pi);
      else printIntent(ctx.io, pi);
    });

  pis
    .command('cancel')
    .summary('Cancel a payment intent (an authorized bcard is refunded)')
    .argument('<id>', 'Payment intent id')
    .addOption(new Option('--reason <reason>', 'Cancellation reason').choices(['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned']))
    .action(async (id: string, opts: { reason?: 'duplicate' | 'fraudulent' | 'requested_by_customer' | 'abandoned' }, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const pi = await spin(ctx, cmd, 'Canceling', () => bpay.paymentIntents.cancel(id, opts.reason ? { cancellation_reason: opts.reason } : {}));
      if (isJson(cmd)) printJson(ctx.io, pi);
      else printIntent(ctx.io, pi);
    });
}
