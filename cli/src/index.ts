#!/usr/bin/env bun
import { Command, CommanderError, Option } from 'commander';
import { BpayConnectionError, BpayError } from '@bpay/sdk';
import { registerAdmin } from './commands/admin';
import { registerCharges } from './commands/charges';
import { registerCompletion } from './commands/completion';
import { registerEvents } from './commands/events';
import { registerListen } from './commands/listen';
import { registerAuth } from './commands/login';
import { registerPaymentIntents } from './commands/payment-intents';
import { registerRefunds } from './commands/refunds';
import { registerTrigger } from './commands/trigger';
import { registerUsage } from './commands/usage';
import { registerWebhooks } from './commands/webhooks';
import { ConfigError, DEFAULT_BASE_URL } from './config';
import type { Ctx } from './context';
import { CliError, EXIT, processIo, UsageError } from './output';

export const VERSION = '0.1.0';

const PRECEDENCE = `
Settings (first found wins):
  API key    --api-key  >  BPAY_API_KEY   >  the profile's key (bpay login)
  Base URL   --base-url >  BPAY_BASE_URL  >  the profile's base URL  >  ${DEFAULT_BASE_URL}
  Profile    --profile  >  BPAY_PROFILE   >  "default"
  Profiles live in $XDG_CONFIG_HOME/bpay/config.json (else ~/.config/bpay/config.json), mode 0600.

Output and exit codes:
  Tables for people; --json prints the API's JSON (lists as arrays) for scripts.
  0 success · 1 API error (message, type/code and request id on stderr) · 2 wrong usage.

Examples:
  bpay login
  bpay payment-intents create --amount 2000 --description "Order 42"
  bpay payment-intents list --json | jq '.[0].id'
  bpay refunds create --payment-intent pi_123 --amount 500
  bpay listen --forward-to http://localhost:4242/webhooks
  bpay trigger payment_intent.succeeded`;

/** The whole command tree. Exported so tests and the completion generator can walk it without running anything. */
export function buildProgram(ctx: Ctx): Command {
  const program = new Command('bpay');
  program
    .description('Work with bpay from the terminal: payment intents, refunds, webhooks, events, local webhook forwarding and the admin API.')
    .version(VERSION, '-v, --version', 'Print the version')
    .helpOption('-h, --help', 'Show help')
    .helpCommand('help [command]', 'Show help for a command')
    .addOption(new Option('--api-key <key>', 'Secret key to use (sk_test_… / sk_live_…)'))
    .addOption(new Option('--base-url <url>', 'bpay server URL'))
    .addOption(new Option('-p, --profile <name>', 'Profile in the config file'))
    .addOption(new Option('--json', 'Print JSON (the API objects) instead of tables'))
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .configureOutput({
      writeOut: (s) => ctx.io.out(s),
      writeErr: (s) => ctx.io.err(s),
    })
    // Commander would call process.exit; it throws instead and run() turns every usage error into exit 2.
    .exitOverride()
    .addHelpText('after', PRECEDENCE);
  // Subcommands made with .command() inherit the output and exit settings above.
  registerAuth(program, ctx);
  registerPaymentIntents(program, ctx);
  registerRefunds(program, ctx);
  registerCharges(program, ctx);
  registerWebhooks(program, ctx);
  registerEvents(program, ctx);
  registerUsage(program, ctx);
  registerListen(program, ctx);
  registerTrigger(program, ctx);
  registerAdmin(program, ctx);
  registerCompletion(program, ctx);
  return program;
}

/** Prints an error the way every command does and answers the exit code. */
export function reportError(ctx: Ctx, error: unknown): number {
  const err = (s: string) => ctx.io.err(`${s}\n`);
  if (error instanceof CommanderError) {
    // Commander has already printed its message (or the help). Help and --version asked for are successes.
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UsageError) {
    err(`error: ${error.message}`);
    return EXIT.usage;
  }
  if (error instanceof BpayConnectionError) {
    err(`error: ${error.message}`);
    return EXIT.api;
  }
  if (error instanceof BpayError) {
    err(`error: ${error.message}`);
    const kind = [error.type, error.code, error.declineCode].filter((v): v is string => typeof v === 'string' && v.length > 0);
    const details = [
      kind.length ? `Type: ${kind.join(' / ')}` : null,
      error.param ? `Param: ${error.param}` : null,
      error.statusCode ? `Status: ${error.statusCode}` : null,
      error.requestId ? `Request ID: ${error.requestId}` : null,
    ].filter((l): l is string => l !== null);
    for (const line of details) err(`  ${line}`);
    if (error.statusCode === 401 && error.type !== 'card_error') err('  Check the key (bpay login) or, for admin commands, sign in again (bpay admin login).');
    return EXIT.api;
  }
  if (error instanceof ConfigError || error instanceof CliError) {
    err(`error: ${error.message}`);
    return EXIT.api;
  }
  err(`error: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.api;
}

/** Runs one command line (without the `bun index.ts` part) and answers its exit code. */
export async function run(argv: readonly string[], ctx: Ctx): Promise<number> {
  const program = buildProgram(ctx);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return reportError(ctx, error);
  }
}

if (import.meta.main) {
  // No process.exit(): it would cut off stdout still being written to a pipe (`bpay pi list --json | jq`). The
  // process ends when the event loop is empty, with this code.
  process.exitCode = await run(process.argv.slice(2), { io: processIo, env: process.env });
}
