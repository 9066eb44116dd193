import { Argument, type Command } from 'commander';
import { BpayCardError, type Bpay } from '@bpay/sdk';
import { isLiveKey } from '../config';
import { isJson, merchantClient, type Ctx } from '../context';
import { CliError, formatMoney, parsePaymentAmount, printJson, UsageError } from '../output';
import type { IntentView } from './payment-intents';
import type { RefundView } from './refunds';

/*
 * `bpay trigger <event>`: makes, in sandbox, the objects whose changes cause that event, through the public API
 * only — exactly what a merchant's integration would do — so the event reaches webhook endpoints and `bpay listen`.
 */

/** A Luhn-valid card that is not a bcard: bpay's sandbox declines it (card_error). */
export const DECLINED_CARD = '4000000000000002';

type Step = (line: string) => void;
interface Outcome {
  payment_intent: IntentView;
  test_bcard?: string;
  refund?: RefundView;
  error?: { type: string; code: string | undefined; decline_code: string | undefined; message: string };
}

async function intent(bpay: Bpay, amount: number, step: Step, manual = false): Promise<IntentView> {
  const pi = await bpay.paymentIntents.create({
    amount,
    currency: 'usd',
    description: 'bpay trigger',
    metadata: { source: 'bpay trigger' },
    ...(manual ? { capture_method: 'manual' as const } : {}),
  });
  step(`payment intent ${pi.id} created (${formatMoney(pi.amount, pi.currency)}${manual ? ', capture manual' : ''})`);
  return pi;
}

async function payWithTestBcard(bpay: Bpay, pi: IntentView, step: Step): Promise<Outcome> {
  const card = await bpay.testHelpers.bcards.create({ amount: Number(pi.amount) });
  step(`test bcard ${card.id} issued for ${formatMoney(card.limit, card.currency)}`);
  const done = await bpay.paymentIntents.confirm(pi.id, { payment_method: card.id });
  step(`payment intent ${done.id} confirmed: ${done.status}`);
  return { payment_intent: done, test_bcard: card.id };
}

/** A share of a split sandbox test bcard: `source` is one of the sandbox's magic test sources (README "Sandbox"). */
interface Allocation {
  amount: number;
  source: string;
}

/** `amount` in two shares (the first takes the odd cent), on these two magic test sources. */
export function twoShares(amount: number, first: string, second: string): Allocation[] {
  const half = Math.floor(amount / 2);
  return [
    { amount: amount - half, source: first },
    { amount: half, source: second },
  ];
}

async function splitTestBcard(bpay: Bpay, amount: number, allocations: Allocation[], step: Step) {
  const card = await bpay.testHelpers.bcards.create({ amount, allocations });
  step(`test bcard ${card.id} collected from ${allocations.map((a) => `${a.source} (${formatMoney(a.amount, 'usd')})`).join(' and ')}`);
  return card;
}

/** The fixtures, in the order `bpay trigger --help` lists them. */
export const FIXTURES: Record<string, { about: string; run: (bpay: Bpay, amount: number, step: Step) => Promise<Outcome> }> = {
  'payment_intent.created': {
    about: 'creates a payment intent',
    run: async (bpay, amount, step) => ({ payment_intent: await intent(bpay, amount, step) }),
  },
  'payment_intent.succeeded': {
    about: 'creates a payment intent and pays it with a fresh test bcard',
    run: async (bpay, amount, step) => payWithTestBcard(bpay, await intent(bpay, amount, step), step),
  },
  'payment_intent.failed': {
    about: `creates a payment intent and confirms it with a declined card (${DECLINED_CARD})`,
    run: async (bpay, amount, step) => {
      const pi = await intent(bpay, amount, step);
      try {
        await bpay.paymentIntents.confirm(pi.id, {
          payment_method_data: { type: 'card', card: { number: DECLINED_CARD, exp_month: 12, exp_year: new Date().getUTCFullYear() + 1, cvc: '123' } },
        });
      } catch (e) {
        // The decline is the point: anything else is a real failure.
        if (!(e instanceof BpayCardError)) throw e;
        step(`confirmation declined as expected: ${e.declineCode ?? e.code ?? e.type} (${e.message})`);
        const after = await bpay.paymentIntents.retrieve(pi.id);
        return { payment_intent: after, error: { type: e.type, code: e.code, decline_code: e.declineCode, message: e.message } };
      }
      throw new Error(`The sandbox accepted ${DECLINED_CARD}; expected a decline.`);
    },
  },
  'payment_intent.canceled': {
    about: 'creates a payment intent and cancels it',
    run: async (bpay, amount, step) => {
      const pi = await intent(bpay, amount, step);
      const done = await bpay.paymentIntents.cancel(pi.id, { cancellation_reason: 'requested_by_customer' });
      step(`payment intent ${done.id} canceled`);
      return { payment_intent: done };
    },
  },
  'payment_intent.amount_capturable_updated': {
    about: 'creates a manual-capture payment intent and authorizes it with a test bcard (capture it later)',
    run: async (bpay, amount, step) => payWithTestBcard(bpay, await intent(bpay, amount, step, true), step),
  },
  'charge.refunded': {
    about: 'pays a payment intent with a fresh test bcard, then refunds it in full (refund.created and refund.updated too)',
    run: async (bpay, amount, step) => {
      const paid = await payWithTestBcard(bpay, await intent(bpay, amount, step), step);
      const refund = await bpay.refunds.create({ payment_intent: paid.payment_intent.id, reason: 'requested_by_customer' });
      step(`refund ${refund.id} of ${formatMoney(refund.amount, refund.currency)}: ${refund.status}`);
      if (refund.status === 'failed') {
        throw new CliError(`The refund ${refund.id} failed${refund.failure_reason ? ` (${refund.failure_reason})` : ''}; charge.refunded was not sent.`);
      }
      if (refund.status === 'pending') {
        // The processor has not answered: bpay's money sweep finishes the refund, and charge.refunded comes then.
        throw new CliError(`The refund ${refund.id} is still pending; charge.refunded will be sent when bpay finishes it.`);
      }
      const after = await bpay.paymentIntents.retrieve(paid.payment_intent.id);
      step(`payment intent ${after.id}: ${formatMoney(after.amount_refunded, after.currency)} refunded`);
      return { ...paid, payment_intent: after, refund };
    },
  },
  'refund.updated': {
    about:
      'pays with a test bcard split between tok_visa and tok_refundFail, then refunds in full: the refund is refused for the ' +
      'tok_refundFail share and partly succeeds, failure_reason naming it (refund.updated; charge.refunded for what went back)',
    run: async (bpay, amount, step) => {
      const pi = await intent(bpay, amount, step);
      const card = await splitTestBcard(bpay, amount, twoShares(amount, 'tok_visa', 'tok_refundFail'), step);
      const paid = await bpay.paymentIntents.confirm(pi.id, { payment_method: card.id });
      step(`payment intent ${paid.id} confirmed: ${paid.status}`);
      const refund = await bpay.refunds.create({ payment_intent: paid.id, reason: 'requested_by_customer' });
      step(`refund ${refund.id} of ${formatMoney(refund.amount, refund.currency)}: ${refund.status}`);
      if (!refund.failure_reason) {
        throw new CliError(`The refund ${refund.id} is ${refund.status} with no share refused; expected tok_refundFail's share to be refused.`);
      }
      step(`failure_reason: ${refund.failure_reason}`);
      const after = await bpay.paymentIntents.retrieve(paid.id);
      return { payment_intent: after, test_bcard: card.id, refund };
    },
  },
  'capture.failed': {
    about:
      'creates a payment intent, then a test bcard split between tok_visa and tok_captureFail: the capture fails, every share ' +
      'is released and no bcard is issued (402 processing_error; the intent stays requires_payment_method, no payment event)',
    run: async (bpay, amount, step) => {
      const pi = await intent(bpay, amount, step);
      try {
        await splitTestBcard(bpay, amount, twoShares(amount, 'tok_visa', 'tok_captureFail'), step);
      } catch (e) {
        if (!(e instanceof BpayCardError)) throw e;
        step(`test bcard refused as expected: ${e.code ?? e.type} on ${e.param ?? 'the split'} (${e.message})`);
        const after = await bpay.paymentIntents.retrieve(pi.id);
        return { payment_intent: after, error: { type: e.type, code: e.code, decline_code: e.declineCode, message: e.message } };
      }
      throw new Error('The sandbox issued a bcard from tok_captureFail; expected the capture to fail.');
    },
  },
};

export function registerTrigger(program: Command, ctx: Ctx): void {
  const names = Object.keys(FIXTURES);
  program
    .command('trigger')
    .summary('Cause an event in sandbox (payment_intent.succeeded, …)')
    .description('Create, in sandbox, the objects that cause an event, through the API as an integration would. Sandbox keys only.')
    .addArgument(new Argument('<event>', 'Event to cause').choices(names))
    .option('--amount <cents>', 'Amount of the payment intent, in cents (50 to 99999999)', '2000')
    .addHelpText('after', `\nSupported events:\n${names.map((n) => `  ${n.padEnd(42)} ${FIXTURES[n]!.about}`).join('\n')}`)
    .action(async (event: string, opts: { amount: string }, cmd: Command) => {
      const amount = parsePaymentAmount(opts.amount, '--amount');
      const { bpay, settings } = merchantClient(ctx, cmd);
      if (isLiveKey(settings.apiKey!)) {
        throw new CliError('trigger works in sandbox only: use a sandbox key (sk_test_…), not a production key (sk_live_…).');
      }
      const fixture = FIXTURES[event];
      if (!fixture) throw new UsageError(`Unknown event ${event}. Supported: ${names.join(', ')}.`);
      const json = isJson(cmd);
      const step: Step = (line) => {
        if (!json) ctx.io.out(`  ${line}\n`);
      };
      if (!json) ctx.io.out(`Triggering ${event}\n`);
      // Each step prints a line as it finishes: that is the progress (no spinner to interleave with it).
      const outcome = await fixture.run(bpay, amount, step);
      if (json) printJson(ctx.io, { event, ...outcome });
      else ctx.io.out(`Trigger succeeded: ${event} sent to your endpoints and running listeners.\n`);
    });
}
