import { createHmac } from 'node:crypto';
import type { Command } from 'commander';
import { Bpay, BpayAuthenticationError, BpayError, BpayInvalidRequestError, BpayPermissionError } from '@bpay/sdk';
import { merchantClient, type Ctx } from '../context';
import { UsageError } from '../output';
import { parseEventList } from './events';

/*
 * `bpay listen`: the merchant's events as they happen (the SDK's events.stream over server-sent events), forwarded
 * to a local URL and signed exactly as bpay signs real deliveries, with a local secret that stays the same from run
 * to run so it can live in the local app's configuration.
 */

/**
 * The local signing secret: `whsec_` + the first 32 hex characters of HMAC-SHA256(api key, "bpay-cli-listen").
 * Stable for a key (every run, every machine), different for every key, and reveals nothing about the key.
 */
export function listenSecret(apiKey: string): string {
  return `whsec_${createHmac('sha256', apiKey).update('bpay-cli-listen').digest('hex').slice(0, 32)}`;
}

/** Waits before reconnecting: 1 s, 2 s, 4 s … capped at 30 s, shortened at random by up to 20 %. */
export const reconnectDelay = (attempt: number) => Math.round(Math.min(30_000, 1000 * 2 ** attempt) * (1 - Math.random() * 0.2));

const FORWARD_TIMEOUT_MS = 10_000;

interface StreamedEvent {
  id: string;
  type: string;
}

/** Errors that reconnecting cannot fix: a bad key or a bad filter. */
const isFatal = (e: unknown) => e instanceof BpayAuthenticationError || e instanceof BpayPermissionError || e instanceof BpayInvalidRequestError;

export function registerListen(program: Command, ctx: Ctx): void {
  program
    .command('listen')
    .summary('Forward your events to a local URL, signed like real webhooks')
    .description(
      'Receive the merchant\'s events as they happen and POST each one to --forward-to with its JSON body, ' +
        '`Content-Type: application/json` and a `Bpay-Signature` header made with a local signing secret. The secret is ' +
        'derived from the API key, so it is the same every run: put it in your app\'s configuration once. ' +
        '`bpay events resend <id>` reaches a running listener too. Reconnects by itself; Ctrl-C stops it.',
    )
    .option('--forward-to <url>', 'Local URL to POST every event to (http://localhost:4242/webhooks)')
    .option('--events <types>', 'Comma-separated event types to forward (default: all)')
    .option('--print-secret', 'Print the signing secret and exit')
    .addHelpText('after', '\nExample:\n  bpay listen --forward-to http://localhost:4242/webhooks --events payment_intent.succeeded,payment_intent.failed')
    .action(async (opts: { forwardTo?: string; events?: string; printSecret?: boolean }, cmd: Command) => {
      const { bpay, settings } = merchantClient(ctx, cmd);
      const secret = listenSecret(settings.apiKey!);
      if (opts.printSecret) {
        ctx.io.out(`${secret}\n`);
        return;
      }
      if (!opts.forwardTo) throw new UsageError('listen needs --forward-to <url> (or --print-secret).');
      let target: URL;
      try {
        target = new URL(opts.forwardTo);
      } catch {
        throw new UsageError(`--forward-to is not a URL: ${opts.forwardTo}`);
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new UsageError('--forward-to must be an http(s) URL.');
      const events = opts.events ? parseEventList(opts.events) : undefined;
      const url = target.toString();

      const stop = new AbortController();
      const onSigint = () => stop.abort();
      process.once('SIGINT', onSigint);
      process.once('SIGTERM', onSigint);

      const forward = async (event: StreamedEvent) => {
        const body = JSON.stringify(event);
        const signature = Bpay.webhooks.generateTestHeader({ payload: body, secret });
        ctx.io.out(`--> ${event.type} [${event.id}]\n`);
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'user-agent': 'bpay-cli-listen',
              // `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the SDK signs as the server does.
              [Bpay.webhooks.SIGNATURE_HEADER]: signature,
              // The same value under Stripe's name, as the server's deliveries carry it: a receiver written for Stripe
              // verifies with stripe.webhooks.constructEvent unchanged.
              'stripe-signature': signature,
            },
            body,
            redirect: 'manual',
            signal: AbortSignal.any([stop.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
          });
          await res.body?.cancel().catch(() => {});
          ctx.io.out(`<-- [${res.status}] POST ${url}\n`);
        } catch (e) {
          if (stop.signal.aborted) return;
          ctx.io.out(`<-- [error] POST ${url}: ${e instanceof Error ? e.message : String(e)}\n`);
        }
      };

      try {
        let attempt = 0;
        let announced = false;
        // After a reconnection the server first sends what was broadcast since this event: nothing is missed.
        let lastEventId: string | undefined;
        while (!stop.signal.aborted) {
          try {
            const stream = bpay.events.stream({ ...(events ? { events } : {}), ...(lastEventId ? { lastEventId } : {}), signal: stop.signal });
            // "Ready" only once the server has accepted the stream: it sends events recorded from then on.
            await stream.opened();
            attempt = 0;
            if (!announced) {
              announced = true;
              ctx.io.out(`Ready! Your webhook signing secret is ${secret} (^C to quit)\n`);
            } else ctx.io.err('Reconnected.\n');
            // One event at a time, in order, as a webhook receiver expects them.
            for await (const event of stream) {
              lastEventId = event.id;
              await forward(event);
            }
          } catch (e) {
            if (stop.signal.aborted) break;
            if (isFatal(e)) throw e;
            ctx.io.err(`Connection lost (${e instanceof BpayError || e instanceof Error ? e.message : String(e)}).\n`);
          }
          if (stop.signal.aborted) break;
          const wait = reconnectDelay(attempt++);
          ctx.io.err(`Reconnecting in ${(wait / 1000).toFixed(1)} s…\n`);
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, wait);
            stop.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
          });
        }
      } finally {
        process.off('SIGINT', onSigint);
        process.off('SIGTERM', onSigint);
      }
      ctx.io.err('Stopped.\n');
    });
}
