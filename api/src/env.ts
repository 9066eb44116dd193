import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

/**
 * The server's whole configuration, parsed once at boot. Nothing else in bpay reads the process environment.
 * Every variable is documented in README.md ("Configuration").
 */
const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  BPAY_DATABASE_URL: z
    .string()
    .regex(/^(file:|libsql:|https?:|wss?:)/, 'must start with file:, libsql:, http(s): or ws(s):')
    .default('file:./data/bpay.db'),
  BPAY_DATABASE_AUTH_TOKEN: z.string().min(1).optional(),
  BPAY_SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  BPAY_SESSION_SECRET_FILE: z.string().min(1).default('./data/session-secret'),
  BPAY_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  BPAY_SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(24 * 14),
  BPAY_TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  BPAY_WEB_DIST: z.string().min(1).default('./web/dist'),
  BPAY_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  BPAY_BCARD_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(30),
  BPAY_WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(30).default(10),
  BPAY_WEBHOOK_WORKER: z.enum(['on', 'off']).default('on'),
  BPAY_STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, 'must be a Stripe secret key (sk_test_..., sk_live_... or rk_...)')
    .optional(),
  BPAY_STRIPE_API_HOST: z.string().min(1).optional(),
  BPAY_STRIPE_API_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  BPAY_STRIPE_API_PROTOCOL: z.enum(['http', 'https']).optional(),
});

export interface Env {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl: string;
  databaseAuthToken: string | undefined;
  sessionSecret: string;
  publicUrl: URL;
  sessionTtlMs: number;
  trustProxy: boolean;
  webDist: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  bcardTtlMs: number;
  /** How long a webhook receiver has to answer a delivery. */
  webhookTimeoutMs: number;
  /** Whether this process runs the webhook delivery worker. */
  webhookWorker: boolean;
  stripe: { secretKey: string; host?: string; port?: number; protocol?: 'http' | 'https' } | null;
}

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Parses the environment. Throws EnvError naming every bad variable. When no session secret is given, one is
 * generated once and kept in BPAY_SESSION_SECRET_FILE so sessions survive a restart of a local install.
 */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    throw new EnvError(parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`));
  }
  const v = parsed.data;
  const sessionSecret = v.BPAY_SESSION_SECRET ?? loadOrCreateSecret(v.BPAY_SESSION_SECRET_FILE);
  return {
    nodeEnv: v.NODE_ENV,
    port: v.PORT,
    host: v.HOST,
    databaseUrl: v.BPAY_DATABASE_URL,
    databaseAuthToken: v.BPAY_DATABASE_AUTH_TOKEN,
    sessionSecret,
    publicUrl: new URL(v.BPAY_PUBLIC_URL ?? `http://localhost:${v.PORT}`),
    sessionTtlMs: v.BPAY_SESSION_TTL_HOURS * 3600_000,
    trustProxy: v.BPAY_TRUST_PROXY === 'true',
    webDist: v.BPAY_WEB_DIST,
    logLevel: v.BPAY_LOG_LEVEL,
    bcardTtlMs: v.BPAY_BCARD_TTL_MINUTES * 60_000,
    webhookTimeoutMs: v.BPAY_WEBHOOK_TIMEOUT_SECONDS * 1000,
    webhookWorker: v.BPAY_WEBHOOK_WORKER === 'on',
    stripe: v.BPAY_STRIPE_SECRET_KEY
      ? {
          secretKey: v.BPAY_STRIPE_SECRET_KEY,
          host: v.BPAY_STRIPE_API_HOST,
          port: v.BPAY_STRIPE_API_PORT,
          protocol: v.BPAY_STRIPE_API_PROTOCOL,
        }
      : null,
  };
}

function loadOrCreateSecret(file: string): string {
  if (existsSync(file)) {
    const s = readFileSync(file, 'utf8').trim();
    if (s.length < 32) throw new EnvError([`BPAY_SESSION_SECRET_FILE: ${file} holds fewer than 32 characters`]);
    return s;
  }
  const s = randomBytes(32).toString('hex');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${s}\n`, { mode: 0o600 });
  return s;
}
