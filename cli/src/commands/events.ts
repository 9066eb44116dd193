import { Option, type Command } from 'commander';
import type { EventListParams, WebhookEndpointCreateParams } from '@bpay/sdk';
import { isJson, merchantClient, spin, type Ctx } from '../context';
import { formatDetails, formatTable, formatTime, printJson, UsageError, type Int, type Io } from '../output';
import { collectList, listOptions, type ListFlags } from './list';

/** The event types the API emits (api/src/modules/events/emit.ts EVENT_TYPES). */
export const EVENT_TYPES = [
  'payment_intent.created',
  'payment_intent.succeeded',
  'payment_intent.failed',
  /** Stripe's name for payment_intent.failed, sent beside it. */
  'payment_intent.payment_failed',
  'payment_intent.canceled',
  'payment_intent.amount_capturable_updated',
  'refund.created',
  'refund.updated',
  'charge.refunded',
  'webhook_endpoint.test',
] as const;

/** What an endpoint (or `bpay listen`) can ask for: every type but the dashboard's targeted test event. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => t !== 'webhook_endpoint.test') as Array<Exclude<(typeof EVENT_TYPES)[number], 'webhook_endpoint.test'>>;
/** What the SDK sends (its types come from the API's document), checked at run time against the list above. */
export type EnabledEvent = WebhookEndpointCreateParams['enabled_events'][number];

/** `a,b c` into a checked list of event types (or `*`); an empty list or an unknown type is a usage error. */
export function parseEventList(value: string, flag = '--events'): EnabledEvent[] {
  const list = value
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) throw new UsageError(`${flag} takes a comma-separated list of event types (or *).`);
  const known = new Set<string>(['*', ...SUBSCRIBABLE_EVENT_TYPES]);
  const unknown = list.filter((t) => !known.has(t));
  if (unknown.length) throw new UsageError(`${flag}: unknown event type ${unknown.join(', ')}. Use * or: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}.`);
  return list as EnabledEvent[];
}

interface EventView {
  id: string;
  type: string;
  created: Int;
  livemode: boolean;
  data: { object: Record<string, unknown> };
}

/** What an event is about, for one table cell: the object's id, and its amount and status when it has them. */
function subject(e: EventView): string {
  const o = e.data.object;
  return typeof o.id === 'string' ? o.id : '';
}

function printEvent(io: Io, e: EventView): void {
  io.out(
    formatDetails([
      ['ID', e.id],
      ['Type', e.type],
      ['Object', subject(e)],
      ['Mode', e.livemode ? 'production' : 'sandbox'],
      ['Created', formatTime(e.created)],
    ]),
  );
  io.out(`\ndata.object:\n${JSON.stringify(e.data.object, null, 2)}\n`);
}

export function registerEvents(program: Command, ctx: Ctx): void {
  const events = program.command('events').summary('List, show and resend events');

  listOptions(
    events
      .command('list')
      .summary('List events, newest first')
      .addOption(new Option('--type <type>', 'Only events of this type').choices(EVENT_TYPES)),
  ).action(async (opts: ListFlags & { type?: EventListParams['type'] }, cmd: Command) => {
    const { bpay } = merchantClient(ctx, cmd);
    const { items, more } = await spin(ctx, cmd, 'Loading', () =>
      collectList(opts, (limit) => bpay.events.list({ limit, ...(opts.type ? { type: opts.type } : {}) })),
    );
    if (isJson(cmd)) return printJson(ctx.io, items);
    if (items.length === 0) return ctx.io.out('No events.\n');
    ctx.io.out(
      formatTable(items, [
        { header: 'ID', value: (e) => e.id },
        { header: 'Type', value: (e) => e.type },
        { header: 'Object', value: (e) => subject(e) },
        { header: 'Created', value: (e) => formatTime(e.created) },
      ]),
    );
    if (more) ctx.io.out(`(more: --limit ${items.length * 2} or --all)\n`);
  });

  events
    .command('get')
    .alias('retrieve')
    .summary('Show one event')
    .argument('<id>', 'Event id (evt_…)')
    .action(async (id: string, _opts: Record<string, never>, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const e = await spin(ctx, cmd, 'Loading', () => bpay.events.retrieve(id));
      if (isJson(cmd)) printJson(ctx.io, e);
      else printEvent(ctx.io, e);
    });

  events
    .command('resend')
    .summary('Send an event again (to its endpoints and to running `bpay listen`)')
    .description(
      'Queue the event again for every enabled endpoint that subscribes to it or was sent it before, and to every ' +
        'running `bpay listen`. With --endpoint, to that one endpoint only.',
    )
    .argument('<id>', 'Event id')
    .option('--endpoint <id>', 'Only this webhook endpoint (we_…)')
    .action(async (id: string, opts: { endpoint?: string }, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const res = await spin(ctx, cmd, 'Resending', () => bpay.events.resend(id, opts.endpoint ? { endpoint_id: opts.endpoint } : {}));
      if (isJson(cmd)) return printJson(ctx.io, res.data);
      const n = res.data.length;
      const where = opts.endpoint ? opts.endpoint : `${n} endpoint${n === 1 ? '' : 's'} and any running listener`;
      ctx.io.out(`Resent ${id} to ${where}.\n`);
      if (n > 0) {
        ctx.io.out(
          formatTable(res.data, [
            { header: 'Delivery', value: (d) => d.id },
            { header: 'Endpoint', value: (d) => d.webhook_endpoint },
            { header: 'URL', value: (d) => d.url },
            { header: 'Status', value: (d) => d.status },
          ]),
        );
      }
    });
}
