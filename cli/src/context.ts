import type { Command } from 'commander';
import { Bpay, BpayAdmin } from '@bpay/sdk';
import { configPath, readConfig, resolveSettings, type Env, type Resolved } from './config';
import { UsageError, withSpinner, type Io } from './output';

/** What every command is given: where to print and the environment it runs in (passed in, never read globally). */
export interface Ctx {
  io: Io;
  env: Env;
}

export interface GlobalOptions {
  apiKey?: string;
  baseUrl?: string;
  profile?: string;
  json?: boolean;
}

export const NO_KEY_MESSAGE = 'No API key. Run `bpay login` or pass --api-key / set BPAY_API_KEY.';

/** A merchant secret key: `sk_test_…` or `sk_live_…`, nothing around it (a stray newline would reach the header). */
export const KEY_SHAPE = /^sk_(test|live)_[A-Za-z0-9_-]+$/;

export function globalOptions(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals<GlobalOptions>();
  return { apiKey: o.apiKey, baseUrl: o.baseUrl, profile: o.profile, json: o.json === true };
}

export const isJson = (cmd: Command) => globalOptions(cmd).json === true;

export function settings(ctx: Ctx, cmd: Command): Resolved & { configPath: string } {
  const path = configPath(ctx.env);
  return { ...resolveSettings(globalOptions(cmd), ctx.env, readConfig(path)), configPath: path };
}

/** The merchant client for this invocation; no key anywhere is a usage error (exit 2). */
export function merchantClient(ctx: Ctx, cmd: Command): { bpay: Bpay; settings: Resolved & { configPath: string } } {
  const s = settings(ctx, cmd);
  if (!s.apiKey) throw new UsageError(NO_KEY_MESSAGE);
  if (!KEY_SHAPE.test(s.apiKey))
    throw new UsageError(
      `The API key from ${s.apiKeySource === 'flag' ? '--api-key' : s.apiKeySource === 'env' ? 'BPAY_API_KEY' : `profile "${s.profile}"`} ` +
        'is not a secret key: it is sk_test_… or sk_live_… with nothing around it.',
    );
  return { bpay: new Bpay(s.apiKey, { baseUrl: s.baseUrl }), settings: s };
}

/** The admin client from the profile's token; none stored is a usage error (exit 2). */
export function adminClient(ctx: Ctx, cmd: Command): { admin: BpayAdmin; settings: Resolved & { configPath: string } } {
  const s = settings(ctx, cmd);
  if (!s.adminToken) throw new UsageError(`Not signed in as an admin (profile "${s.profile}"). Run \`bpay admin login\`.`);
  return { admin: new BpayAdmin(s.adminToken, { baseUrl: s.baseUrl }), settings: s };
}

/** Runs `work` with a spinner on stderr when it is a terminal and the output is not JSON. */
export const spin = <T>(ctx: Ctx, cmd: Command, label: string, work: () => Promise<T>): Promise<T> =>
  withSpinner(ctx.io, label, !isJson(cmd), work);
