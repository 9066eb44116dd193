import type { Command } from 'commander';
import { isJson, merchantClient, spin, type Ctx } from '../context';
import { formatDetails, printJson } from '../output';

export function registerUsage(program: Command, ctx: Ctx): void {
  program
    .command('usage')
    .summary("This merchant's API requests today and this month")
    .action(async (_opts: Record<string, never>, cmd: Command) => {
      const { bpay } = merchantClient(ctx, cmd);
      const u = await spin(ctx, cmd, 'Loading', () => bpay.usage.retrieve());
      if (isJson(cmd)) return printJson(ctx.io, u);
      ctx.io.out(
        formatDetails([
          ['Requests today (UTC)', u.totalRequestsToday],
          ['Requests this month', u.totalRequestsThisMonth],
        ]),
      );
    });
}
