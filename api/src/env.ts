import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { z } from 'zod';

/** What a mail says it is from when BPAY_MAIL_FROM is not set. */
export const DEFAULT_MAIL_FROM = 'bpay <no-reply@localhost>';

function validSmtpUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '' && (url.pathname === '' || url.pathname === '/');
}

/** `a@b.c`, or `Display Name <a@b.c>` (no quotes, angle brackets or line breaks in the name: nothing to escape). */
export function validMailFrom(raw: string): boolean {
  const addr = /^[^\s@<>"]+@[^\s@<>"]+$/;
  const m = /^([^<>"\r\n]*?)\s*<([^<>]+)>$/.exec(raw.trim());
  return m ? addr.test(m[2]!) : addr.test(raw.trim());
}

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
  BPAY_DATABASE_READ_URL: z
    .string()
    .regex(/^(file:|libsql:|https?:|wss?:)/, 'must start with file:, libsql:, http(s): or ws(s):')
    .optional(),
  BPAY_DATABASE_READ_AUTH_TOKEN: z.string().min(1).optional(),
  BPAY_SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  BPAY_SESSION_SECRET_FILE: z.string().min(1).default('./data/session-secret'),
  BPAY_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  BPAY_SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(24 * 14),
  BPAY_TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  BPAY_WEB_DIST: z.string().min(1).default('./web/dist'),
  BPAY_UPLOADS_DIR: z.string().min(1).default('./data/uploads'),
  BPAY_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  BPAY_BCARD_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(30),
  BPAY_WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(30).default(10),
  BPAY_WEBHOOK_WORKER: z.enum(['on', 'off']).default('on'),
  BPAY_MONEY_SWEEP: z.enum(['on', 'off']).default('on'),
  BPAY_RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  BPAY_REUSE_PORT: z.enum(['0', '1']).default('0'),
  BPAY_SANDBOX_LOCAL_WEBHOOKS: z.enum(['on', 'off']).optional(),
  BPAY_STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, 'must be a Stripe secret key (sk_test_..., sk_live_... or rk_...)')
    .optional(),
  BPAY_STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9]+$/, 'must be a Stripe webhook signing secret (whsec_...)')
    .optional(),
  BPAY_STRIPE_API_HOST: z.string().min(1).optional(),
  BPAY_STRIPE_API_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  BPAY_STRIPE_API_PROTOCOL: z.enum(['http', 'https']).optional(),
  BPAY_ADMIN_USERNAME: z.string().regex(/^[A-Za-z0-9_.@-]{3,64}$/, 'must be 3-64 letters, digits or _ . @ -').optional(),
  BPAY_ADMIN_PASSWORD: z.string().min(12, 'must be at least 12 characters').max(256).optional(),
  BPAY_ADMIN_TOTP_SECRET: z
    .string()
    .regex(/^[A-Za-z2-7]{16,}=*$/, 'must be a base32 TOTP secret of at least 16 characters')
    .optional(),
  BPAY_ADMIN_TOKEN_TTL_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(15),
  BPAY_REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(5),
  // The default is funding-sources/attempts.ts CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR (env.test.ts checks they agree).
  BPAY_CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(50),
  BPAY_INVESTOR_EMAIL: z.email({ error: 'must be an e-mail address' }).default('investors@bpay.example'),
  BPAY_INVESTOR_PHONE: z
    .string()
    .regex(/^\+?[0-9][0-9 ().-]{5,30}$/, 'must be a phone number such as +1 (555) 123-4567')
    .default('+1 (555) 010-2025'),
  BPAY_SMTP_URL: z
    .string()
    .refine(validSmtpUrl, 'must be smtp://[user:pass@]host[:port] or smtps://[user:pass@]host[:port] (user and password URL-encoded)')
    .optional(),
  BPAY_MAIL_FROM: z
    .string()
    .refine(validMailFrom, 'must be an e-mail address, optionally with a display name: "bpay <no-reply@example.com>"')
    .default(DEFAULT_MAIL_FROM),
  BPAY_VENDOR_KEY: z
    .string()
    .refine((s) => Buffer.from(s, 'base64').length === 32, 'must be a base64-encoded 32-byte key')
    .optional(),
});

export interface SiteConfig {
  investorEmail: string;
  investorPhone: string;
}

export interface Env {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** Listen with SO_REUSEPORT so several processes share the port (docs/SCALING.md "Issue 29: the second core"). */
  reusePort: boolean;
  databaseUrl: string;
  databaseAuthToken: string | undefined;
  /** A replica for reads that may lag (issue 30 §3); its token defaults to the primary's. */
  databaseRead: { url: string; authToken: string | undefined } | null;
  sessionSecret: string;
  /** The file the session secret was read from or written to; undefined when BPAY_SESSION_SECRET gives it. */
  sessionSecretFile?: string;
  publicUrl: URL;
  sessionTtlMs: number;
  trustProxy: boolean;
  webDist: string;
  /** Where uploaded identity documents are kept (never inside webDist). */
  uploadsDir: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  bcardTtlMs: number;
  /** How long a webhook receiver has to answer a delivery. */
  webhookTimeoutMs: number;
  /** Whether this process runs the webhook delivery worker. */
  webhookWorker: boolean;
  /** Off only while an operator reconciles a restore with the processor: nothing is retried, expired or refunded. */
  moneySweep: boolean;
  /**
   * The request-rate limits (consumer API per session and per address, merchant API per second, registrations and
   * card attempts per address and account). Off only for load tests on one machine: refused unless the public URL
   * is a loopback URL. Sign-in, two-factor and re-authentication throttling stay on whatever this says.
   */
  rateLimits: boolean;
  /** Whether sandbox webhook endpoints may target loopback, private and other non-public addresses. */
  sandboxLocalWebhooks: boolean;
  stripe: { secretKey: string; host?: string; port?: number; protocol?: 'http' | 'https' } | null;
  /**
   * Signs the events Stripe sends to POST /api/stripe/webhook (Issuing's authorizations); null: the admin-stored one of
   * the active mode is used, and without either the endpoint is not there (404).
   */
  stripeWebhookSecret: string | null;
  /** The first admin, created at start when no admin exists (each field may be absent: then it is generated). */
  admin: { username?: string; password?: string; totpSecret?: string; tokenTtlMs: number };
  /** AES-256 key for payment-vendor credentials at rest; null means derived from the session secret. */
  vendorKey: Buffer | null;
  /** Accounts one address may create per hour. */
  registrationsPerHour: number;
  /** Card attempts (adding a card; a declined one counts 2) one address may make per hour, across its accounts. */
  cardAttemptsPerAddressPerHour: number;
  /** Public contact details the site shows (the investor pages' e-mail and phone). */
  site: SiteConfig;
  /** Outgoing mail: the SMTP server (null: none, messages wait in the outbox page) and the From line. */
  mail: { smtpUrl: string | null; from: string };
}

export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Where the data lives, and nothing else: what the backup command needs (it must not require or create a session
 * secret). Parsed by the same schema as parseEnv, so the defaults are the server's.
 */
export function parseStorageEnv(source: Record<string, string | undefined>): Pick<Env, 'databaseUrl' | 'databaseAuthToken' | 'uploadsDir'> {
  const parsed = schema.pick({ BPAY_DATABASE_URL: true, BPAY_DATABASE_AUTH_TOKEN: true, BPAY_UPLOADS_DIR: true }).safeParse(source);
  if (!parsed.success) {
    throw new EnvError(parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`));
  }
  const v = parsed.data;
  return { databaseUrl: v.BPAY_DATABASE_URL, databaseAuthToken: v.BPAY_DATABASE_AUTH_TOKEN, uploadsDir: v.BPAY_UPLOADS_DIR };
}

/**
 * Parses the environment. Throws EnvError naming every bad variable. When no session secret is given, one is
 * generated once and kept in BPAY_SESSION_SECRET_FILE so sessions survive a restart of a local install; with
 * `createSessionSecret: false` (a restore, which needs the secret the data was sealed with) a missing one is an error.
 */
export function parseEnv(source: Record<string, string | undefined>, opts: { createSessionSecret?: boolean } = {}): Env {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    throw new EnvError(parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`));
  }
  const v = parsed.data;
  // Uploaded identity documents must never be reachable as static files.
  const problems: string[] = [];
  const uploads = resolve(v.BPAY_UPLOADS_DIR);
  const webDist = resolve(v.BPAY_WEB_DIST);
  if (uploads === webDist || uploads.startsWith(webDist + sep) || webDist.startsWith(uploads + sep)) {
    problems.push('BPAY_UPLOADS_DIR: must not be inside (or contain) BPAY_WEB_DIST, which is served to anyone');
  }
  const publicUrl = new URL(v.BPAY_PUBLIC_URL ?? `http://localhost:${v.PORT}`);
  // Refused rather than ignored: an install that asked for no limits and silently got them would be a surprise, but
  // a public one running without them is a hole, and a start that fails is noticed at once.
  if (v.BPAY_RATE_LIMITS === 'off' && !isLoopbackUrl(publicUrl.href)) {
    problems.push(
      `BPAY_RATE_LIMITS: off is allowed only when BPAY_PUBLIC_URL is a loopback URL (localhost, 127.0.0.0/8 or [::1]), ` +
        `for load tests on one machine; ${publicUrl.origin} is not`,
    );
  }
  if (problems.length > 0) throw new EnvError(problems);
  const sessionSecret = v.BPAY_SESSION_SECRET ?? loadOrCreateSecret(v.BPAY_SESSION_SECRET_FILE, opts.createSessionSecret ?? true);
  return {
    nodeEnv: v.NODE_ENV,
    port: v.PORT,
    host: v.HOST,
    reusePort: v.BPAY_REUSE_PORT === '1',
    databaseUrl: v.BPAY_DATABASE_URL,
    databaseAuthToken: v.BPAY_DATABASE_AUTH_TOKEN,
    databaseRead: v.BPAY_DATABASE_READ_URL
      ? { url: v.BPAY_DATABASE_READ_URL, authToken: v.BPAY_DATABASE_READ_AUTH_TOKEN ?? v.BPAY_DATABASE_AUTH_TOKEN }
      : null,
    sessionSecret,
    ...(v.BPAY_SESSION_SECRET ? {} : { sessionSecretFile: v.BPAY_SESSION_SECRET_FILE }),
    publicUrl,
    sessionTtlMs: v.BPAY_SESSION_TTL_HOURS * 3600_000,
    trustProxy: v.BPAY_TRUST_PROXY === 'true',
    webDist: v.BPAY_WEB_DIST,
    uploadsDir: v.BPAY_UPLOADS_DIR,
    logLevel: v.BPAY_LOG_LEVEL,
    bcardTtlMs: v.BPAY_BCARD_TTL_MINUTES * 60_000,
    webhookTimeoutMs: v.BPAY_WEBHOOK_TIMEOUT_SECONDS * 1000,
    webhookWorker: v.BPAY_WEBHOOK_WORKER === 'on',
    moneySweep: v.BPAY_MONEY_SWEEP === 'on',
    rateLimits: v.BPAY_RATE_LIMITS === 'on',
    // Sandbox webhooks to this machine or its network are for a developer's own install: on by default only when
    // bpay itself runs on a loopback URL, so a shared deployment cannot be made to read its internal services.
    sandboxLocalWebhooks: (v.BPAY_SANDBOX_LOCAL_WEBHOOKS ?? (isLoopbackUrl(v.BPAY_PUBLIC_URL ?? 'http://localhost') ? 'on' : 'off')) === 'on',
    stripe: v.BPAY_STRIPE_SECRET_KEY
      ? {
          secretKey: v.BPAY_STRIPE_SECRET_KEY,
          host: v.BPAY_STRIPE_API_HOST,
          port: v.BPAY_STRIPE_API_PORT,
          protocol: v.BPAY_STRIPE_API_PROTOCOL,
        }
      : null,
    stripeWebhookSecret: v.BPAY_STRIPE_WEBHOOK_SECRET ?? null,
    admin: {
      username: v.BPAY_ADMIN_USERNAME,
      password: v.BPAY_ADMIN_PASSWORD,
      totpSecret: v.BPAY_ADMIN_TOTP_SECRET?.replace(/=+$/, '').toUpperCase(),
      tokenTtlMs: v.BPAY_ADMIN_TOKEN_TTL_MINUTES * 60_000,
    },
    vendorKey: v.BPAY_VENDOR_KEY ? Buffer.from(v.BPAY_VENDOR_KEY, 'base64') : null,
    registrationsPerHour: v.BPAY_REGISTRATIONS_PER_HOUR,
    cardAttemptsPerAddressPerHour: v.BPAY_CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR,
    site: { investorEmail: v.BPAY_INVESTOR_EMAIL, investorPhone: v.BPAY_INVESTOR_PHONE },
    mail: { smtpUrl: v.BPAY_SMTP_URL ?? null, from: v.BPAY_MAIL_FROM.trim() },
  };
}

/**
 * http://localhost…, http://127.x.x.x…, http://[::1]…: bpay runs on a developer's own machine. The URL parser has
 * already turned any IPv4 spelling into dotted decimal, so a name that merely starts with "127." (127.example.com)
 * is not taken for an address.
 */
export function isLoopbackUrl(raw: string): boolean {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::1';
}

function loadOrCreateSecret(file: string, create: boolean): string {
  if (existsSync(file)) {
    const s = readFileSync(file, 'utf8').trim();
    if (s.length < 32) throw new EnvError([`BPAY_SESSION_SECRET_FILE: ${file} holds fewer than 32 characters`]);
    return s;
  }
  if (!create) {
    throw new EnvError([`BPAY_SESSION_SECRET: not set, and BPAY_SESSION_SECRET_FILE (${file}) does not exist`]);
  }
  const s = randomBytes(32).toString('hex');
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${s}\n`, { mode: 0o600 });
  return s;
}
