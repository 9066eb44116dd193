import { Option, type Command } from 'commander';
import { isJson, merchantClient, spin, type Ctx } from '../context';
import { formatDetails, formatTable, formatTime, printJson, UsageError, type Int, type Io } from '../output';
import { parseEventList } from './events';
import { collectList, listOptions, type ListFlags } from './list';

interface EndpointView {
  id: string;
  url: string;
  enabled_events: string[];
  status: string;
  description?: string | null;
  disabled_reason?: string | null;
  created: Int;
  livemode: boolean;
  secret?: string;
}

function printEndpoint(io: Io, ep: EndpointView): void {
  io.out(
    formatDetails([
      ['ID', ep.id],
      ['URL', ep.url],
      ['Events', ep.enabled_events.join(', ')],
      ['Status', ep.disabled_reason ? `${ep.status} (${ep.disabled_reason})` : ep.status],
      ['Description', ep.description ?? null],
      ['Mode', ep.livemode ? 'production' : 'sandbox'],
      ['Created', formatTime(ep.created)],
    ]),
  );
  // The secret is in the create and roll answers only: say so beside it.
  if (ep.secret) io.out(`\nSigning secret: ${ep.secret}\n(shown only now; keep it in your server's configuration)\n`);
}

export function registerWebhooks(program: Command, ctx: Ctx): void {
  const hooks = program
    .command('webhooks')
    .alias('webhook-endpoints')
    .summary('Manage webhook endpoints')
    .description('Webhook endpoints: where bpay sends the merchant\'s events, signed with each endpoint\'s secret.');

  hooks
    .command('create')
    .summary('Create a webhook endpoint')
    .requiredOption('--url <url>', 'Where to send events (https in production)')
    .requiredOption('--events <types>', 'Comma-separated event types, or * for all')
    .option('--description <text>', 'A note for yourself')
    .action(async (opts: { url: string; events: string; description?: string }, cmd: Command) => {
      const enabled_events = parseEventList(opts.events);
      const { bpay } = merchantClient(ctx, cmd);
      const ep = await spin(ctx, cmd, 'Creating the endpoint', () =>
        bpay.webhookEndpoints.create({ url: opts.url, enabled_events, ...(opts.description !== undefined ? { description: opts.description } : {}) }),
      );
      if (isJson(cmd)) printJson(ctx.io, ep);
      else printEndpoint(ctx.io, ep);
    });

  listOptions(hooks.command('list').summary('List webhook endpoints')).action(async (opts: ListFlags, cmd: Command) => {
    const { bpay } = merchantClient(ctx, cmd);
    const { items, more } = await spin(ctx, cmd, 'Loading', () => collectList(opts, (limit) => bpay.webhookEndpoints.list({ limit })));
    if (isJson(cmd)) return printJson(ctx.io, items);
    if (items.length === 0) return ctx.io.out('No webhook endpoints.\n');
    ctx.io.out(
      formatTable(items, [
        { header: 'ID', value: (e) => e.id },
        { header: 'URL', value: (e) => e.url },
        { header: 'Events', value: (e) => e.enabled_events.join(',') },
        { header: 'Status', value: (e) => e.status },
        { header: 'Created', value: (e) => formatTime(e.created) },
      ]),
    );
    if (more) ctx.io.out('(more: --all)\n');
  });

  hooks
    .command('get')
    .alias('retrieve')
    .summary('Show one webhook endpoint')
    .argument('<id>', 'Endpoint id (we_…)')
    .action(async (id: string, _opts: Record<string, never>, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const ep = await spin(ctx, cmd, 'Loading', () => bpay.webhookEndpoints.retrieve(id));
      if (isJson(cmd)) printJson(ctx.io, ep);
      else printEndpoint(ctx.io, ep);
    });

  hooks
    .command('update')
    .summary('Change an endpoint: URL, events, description, enabled or disabled')
    .argument('<id>', 'Endpoint id')
    .option('--url <url>', 'New URL')
    .option('--events <types>', 'New comma-separated event types, or *')
    .option('--description <text>', 'New description')
    .option('--disabled', 'Disable it (pending deliveries are dropped)')
    .option('--enabled', 'Enable it again')
    .action(async (id: string, opts: { url?: string; events?: string; description?: string; disabled?: boolean; enabled?: boolean }, cmd: Command) => {
      if (opts.disabled && opts.enabled) throw new UsageError('Give --disabled or --enabled, not both.');
      const body = {
        ...(opts.url !== undefined ? { url: opts.url } : {}),
        ...(opts.events !== undefined ? { enabled_events: parseEventList(opts.events) } : {}),
        ...(opts.description !== undefined ? { description: opts.description } : {}),
        ...(opts.disabled ? { disabled: true } : opts.enabled ? { disabled: false } : {}),
      };
      if (Object.keys(body).length === 0) throw new UsageError('Nothing to change: give --url, --events, --description, --disabled or --enabled.');
      const { bpay } = merchantClient(ctx, cmd);
      const ep = await spin(ctx, cmd, 'Updating', () => bpay.webhookEndpoints.update(id, body));
      if (isJson(cmd)) printJson(ctx.io, ep);
      else printEndpoint(ctx.io, ep);
    });

  hooks
    .command('delete')
    .summary('Delete an endpoint (its deliveries go with it; events stay)')
    .argument('<id>', 'Endpoint id')
    .action(async (id: string, _opts: Record<string, never>, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const res = await spin(ctx, cmd, 'Deleting', () => bpay.webhookEndpoints.delete(id));
      if (isJson(cmd)) printJson(ctx.io, res);
      else ctx.io.out(`Deleted ${id}.\n`);
    });

  hooks
    .command('roll-secret')
    .summary("Replace an endpoint's signing secret (the old one stops at once, or signs beside it for 1h / 24h)")
    .argument('<id>', 'Endpoint id')
    .addOption(
      new Option('--expire-old-secret-in <period>', 'Keep the old secret signing deliveries beside the new one this long').choices([
        'now',
        '1h',
        '24h',
      ]),
    )
    .action(async (id: string, opts: { expireOldSecretIn?: 'now' | '1h' | '24h' }, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const params = opts.expireOldSecretIn ? { expire_old_secret_in: opts.expireOldSecretIn } : {};
      const ep = await spin(ctx, cmd, 'Rolling the secret', () => bpay.webhookEndpoints.rollSecret(id, params));
      if (isJson(cmd)) printJson(ctx.io, ep);
      else printEndpoint(ctx.io, ep);
    });
}
