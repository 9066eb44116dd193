import { promises as dns } from 'node:dns';
import type { Db } from '@bpay/db';
import type { Clock } from './lib/clock';
import { deriveKey } from './lib/crypto';
import type { Logger } from './lib/logger';
import { DEFAULT_MAIL_FROM, type SiteConfig } from './env';
import type { SessionConfig } from './modules/auth/sessions';
import type { HostResolver } from './modules/webhooks/url-policy';
import type { PaymentVendor, VendorName } from './vendors/types';
import { checkStripeCredentials } from './vendors/stripe';
import { createLocalDiskStorage } from './storage/local-disk';
import type { FileStorage } from './storage/types';
import type { MailTransport } from './modules/email/transport';
import { DEFAULT_CONSUMER_RATE_LIMIT, type ConsumerRateLimit } from './plugins/consumer-rate-limit';
import { DEFAULT_CARD_ATTEMPT_LIMITS, type CardAttemptLimits } from './modules/funding-sources/attempts';
import { DEFAULT_REGISTRATION_LIMIT, type RegistrationLimit } from './modules/auth/rate-limit';

/** How webhook deliveries reach the outside world (tests replace these). */
export interface WebhookDeps {
  /**
   * Sends a delivery (the global fetch by default). Where the URL rules apply it is called with the checked address
   * in the URL and the name in the Host header and `tls.serverName` (webhooks/pinned.ts), never to resolve again.
   */
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /**
   * Resolves a host for the URL rules (dns.promises.lookup with all: true by default), once per delivery attempt: the
   * addresses it answers are both what is checked and what is connected to.
   */
  resolveHost: HostResolver;
  /** How long a receiver has to answer. */
  timeoutMs: number;
  /**
   * Sandbox endpoints may target this machine and private networks (a developer's own install). Off, sandbox URLs
   * must resolve to public addresses like production ones (http is still allowed).
   */
  sandboxLocal: boolean;
}

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** How the live events stream (GET /api/v1/events/stream) works; tests shorten both. */
export interface EventStreamDeps {
  /** How often an open stream looks for new broadcasts (besides an in-process wake-up). */
  pollMs: number;
  /** How often a `: ping` comment keeps the connection open. */
  pingMs: number;
  /**
   * How often an idle stream checks that its key still authenticates (rolled, grace over, merchant deactivated).
   * A stream also checks before it sends anything, so this only bounds how long a dead key's idle stream stays open.
   */
  recheckMs: number;
}

export const DEFAULT_EVENT_STREAM: EventStreamDeps = { pollMs: 300, pingMs: 15_000, recheckMs: 5_000 };

/** Everything the app needs from outside, passed in explicitly so tests can build an app on a temporary database. */
export interface AppDeps {
  db: Db;
  /**
   * Where views that may lag read (issue 30 §3): a replica's handle when BPAY_DATABASE_READ_URL is set, else `db`.
   * Only through laggingReads(deps), and only for lists, history and figures; never for a money decision.
   */
  readDb: Db;
  clock: Clock;
  log: Logger;
  session: SessionConfig;
  publicUrl: URL;
  trustProxy: boolean;
  /** AES key sealing TOTP secrets at rest, derived from the session secret. */
  totpKey: Buffer;
  /** Keys idempotency field digests. */
  idempotencySecret: string;
  /** The vendor new cards and collections go to. */
  vendor: PaymentVendor;
  /** The vendor that holds an existing token (a source keeps the vendor it was added with). */
  vendorFor(name: VendorName): PaymentVendor;
  /** How long a bcard lives unused before it is deactivated and refunded. */
  bcardTtlMs: number;
  /**
   * How long the simulated processor takes for a sandbox `tok_slow` share (test-helpers/split.ts; 5 s when absent).
   * Tests shorten it; nothing else sets it.
   */
  sandboxSlowMs?: number;
  /** AES key sealing webhook signing secrets at rest, derived from the session secret. */
  webhookKey: Buffer;
  webhooks: WebhookDeps;
  eventStream: EventStreamDeps;
  /** Where uploaded identity documents are kept (local disk by default). */
  storage: FileStorage;
  /** AES key sealing KYC document numbers at rest, derived from the session secret. */
  kycKey: Buffer;
  /** Admin sign-in: the HS256 key of admin JWTs (derived for purpose 'admin-jwt') and their lifetime. */
  admin: { jwtSecret: Uint8Array; tokenTtlMs: number };
  /** AES key sealing payment-vendor credentials at rest (BPAY_VENDOR_KEY, else derived from the session secret). */
  vendorKey: Buffer;
  /** Checks Stripe credentials with a read-only call (the admin's Test Connection); tests point it at a stub. */
  checkStripe: (secretKey: string) => Promise<{ ok: true } | { ok: false; message: string }>;
  /** Which vendor this process uses for new cards, and where its keys came from (shown in Admin → Vendors). */
  vendorInUse: VendorInUse;
  /**
   * Verifies Stripe's events at POST /api/stripe/webhook (BPAY_STRIPE_WEBHOOK_SECRET, else the admin-stored secret of
   * the active mode); null: no secret, the endpoint answers 404.
   */
  stripeWebhookSecret: string | null;
  /**
   * False (BPAY_RATE_LIMITS=off, a load test on one machine) lifts every request-rate limit that one busy address
   * would hit: the consumer API's per session and per address, the merchant API's per second, card attempts per
   * account and address, and registrations per address (registrationLimit is then null). What stays on: sign-in,
   * two-factor and re-authentication throttling, the lock after repeated card declines, the demo's hourly intents,
   * and the plans' monthly allowances (limits of the product, not of request rates).
   */
  rateLimits: boolean;
  /** The consumer API's request rate per session and per address (plugins/consumer-rate-limit.ts). */
  consumerRateLimit: ConsumerRateLimit;
  /** Card attempts per account and address, and the lock after repeated declines (funding-sources/attempts.ts). */
  cardAttemptLimits: CardAttemptLimits;
  /** Accounts one address may create per hour (auth/rate-limit.ts); null when rateLimits is off. */
  registrationLimit: RegistrationLimit | null;
  /** Public contact details (GET /api/site/contact). */
  site: SiteConfig;
  /** Outgoing mail (modules/email). */
  mail: MailDeps;
}

export interface MailDeps {
  /** The SMTP server (BPAY_SMTP_URL); null: none configured, messages stay pending on the outbox page. */
  transport: MailTransport | null;
  /** The From line (BPAY_MAIL_FROM). */
  from: string;
}

export interface VendorInUse {
  vendor: VendorName;
  /** Stripe's key mode (from the key's prefix); null for the simulator. */
  mode: 'test' | 'live' | null;
  /** environment: BPAY_STRIPE_SECRET_KEY; admin: Admin → Vendors at start; default: the simulator. */
  source: 'environment' | 'admin' | 'default';
}

/** The defaults of BPAY_INVESTOR_EMAIL and BPAY_INVESTOR_PHONE (env.ts), for apps built without an environment. */
export const DEFAULT_SITE: SiteConfig = { investorEmail: 'investors@bpay.example', investorPhone: '+1 (555) 010-2025' };

export const DEFAULT_ADMIN_TOKEN_TTL_MS = 15 * 60_000;

export function buildDeps(input: {
  db: Db;
  /** A read-only handle on a replica (BPAY_DATABASE_READ_URL); `db` unless given. */
  readDb?: Db;
  clock: Clock;
  log: Logger;
  sessionSecret: string;
  sessionTtlMs: number;
  publicUrl: URL;
  trustProxy: boolean;
  vendors: { simulated: PaymentVendor; stripe?: PaymentVendor };
  bcardTtlMs: number;
  webhooks?: Partial<WebhookDeps>;
  eventStream?: Partial<EventStreamDeps>;
  /** Local disk under ./data/uploads unless given (boot passes BPAY_UPLOADS_DIR). Nothing is touched until a put. */
  storage?: FileStorage;
  /** Admin JWT lifetime (15 minutes unless given). */
  adminTokenTtlMs?: number;
  /** BPAY_VENDOR_KEY; derived from the session secret when absent. */
  vendorKey?: Buffer | null;
  checkStripe?: AppDeps['checkStripe'];
  /** Where the Stripe keys came from (boot knows); the environment unless said. */
  stripeSource?: { source: 'environment' | 'admin'; mode: 'test' | 'live' };
  /** The Stripe webhook signing secret (whsec_…); none unless given. */
  stripeWebhookSecret?: string | null;
  /** BPAY_RATE_LIMITS: on unless given false (see AppDeps.rateLimits). */
  rateLimits?: boolean;
  /** The production numbers unless given (tests of other features pass generous ones). */
  consumerRateLimit?: ConsumerRateLimit;
  cardAttemptLimits?: CardAttemptLimits;
  registrationLimit?: RegistrationLimit;
  /** BPAY_INVESTOR_EMAIL / BPAY_INVESTOR_PHONE; the documented defaults unless given. */
  site?: SiteConfig;
  /** No SMTP server and the default From unless given. */
  mail?: Partial<MailDeps>;
}): AppDeps {
  const { vendors } = input;
  const active = vendors.stripe ?? vendors.simulated;
  return {
    db: input.db,
    readDb: input.readDb ?? input.db,
    clock: input.clock,
    log: input.log,
    session: {
      secret: input.sessionSecret,
      ttlMs: input.sessionTtlMs,
      secure: input.publicUrl.protocol === 'https:',
    },
    publicUrl: input.publicUrl,
    trustProxy: input.trustProxy,
    totpKey: deriveKey(input.sessionSecret, 'totp-secrets'),
    idempotencySecret: deriveKey(input.sessionSecret, 'idempotency').toString('hex'),
    vendor: active,
    vendorFor(name) {
      const v = vendors[name];
      if (!v) throw new Error(`payment vendor ${name} is not configured`);
      return v;
    },
    bcardTtlMs: input.bcardTtlMs,
    webhookKey: deriveKey(input.sessionSecret, 'webhook-secrets'),
    webhooks: {
      fetch: input.webhooks?.fetch ?? ((url, init) => fetch(url, init)),
      resolveHost: input.webhooks?.resolveHost ?? ((host) => dns.lookup(host, { all: true, verbatim: true })),
      timeoutMs: input.webhooks?.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
      sandboxLocal: input.webhooks?.sandboxLocal ?? true,
    },
    eventStream: { ...DEFAULT_EVENT_STREAM, ...input.eventStream },
    storage: input.storage ?? createLocalDiskStorage('./data/uploads'),
    kycKey: deriveKey(input.sessionSecret, 'kyc-document-numbers'),
    admin: {
      jwtSecret: new Uint8Array(deriveKey(input.sessionSecret, 'admin-jwt')),
      tokenTtlMs: input.adminTokenTtlMs ?? DEFAULT_ADMIN_TOKEN_TTL_MS,
    },
    vendorKey: input.vendorKey ?? deriveKey(input.sessionSecret, 'vendor-credentials'),
    checkStripe: input.checkStripe ?? ((secretKey) => checkStripeCredentials(secretKey)),
    vendorInUse: vendors.stripe
      ? { vendor: 'stripe', mode: input.stripeSource?.mode ?? 'test', source: input.stripeSource?.source ?? 'environment' }
      : { vendor: 'simulated', mode: null, source: 'default' },
    stripeWebhookSecret: input.stripeWebhookSecret ?? null,
    rateLimits: input.rateLimits ?? true,
    consumerRateLimit: input.consumerRateLimit ?? DEFAULT_CONSUMER_RATE_LIMIT,
    cardAttemptLimits: input.cardAttemptLimits ?? DEFAULT_CARD_ATTEMPT_LIMITS,
    registrationLimit: input.rateLimits === false ? null : (input.registrationLimit ?? DEFAULT_REGISTRATION_LIMIT),
    site: input.site ?? DEFAULT_SITE,
    mail: { transport: input.mail?.transport ?? null, from: input.mail?.from ?? DEFAULT_MAIL_FROM },
  };
}

const lagging = new WeakMap<AppDeps, AppDeps>();

/**
 * The deps a view that may lag runs on: the same, with `db` the read handle (a replica when BPAY_DATABASE_READ_URL
 * is set). For GET routes of lists, history and figures (docs/SCALING.md, "Reads beside the primary"); anything that
 * decides about money, or reads what the caller has just written to answer it, keeps `deps`.
 */
export function laggingReads(deps: AppDeps): AppDeps {
  if (deps.readDb === deps.db) return deps;
  let found = lagging.get(deps);
  if (!found) lagging.set(deps, (found = { ...deps, db: deps.readDb }));
  return found;
}
