/*
 * Lists and hot paths at a million rows (issue 14): "with 1M intents / 100k transactions / 100k users seeded in
 * batches: first and deep pages of every list p50 ≤ 5 ms; intent create on the 1M-intent merchant within 1.2× of an
 * empty merchant."
 *
 * What it does, in one process:
 *   1. A fresh app from the test kit (makeTestApp: a temporary libSQL file opened with openDb, migrated with
 *      migrateDb, the production PRAGMAs, the simulated processor, rate limits off). The few accounts that must
 *      sign in are made through the API (a consumer with three cards, a merchant owner with a sandbox merchant of
 *      a million intents and an empty one, each with one webhook endpoint, an admin, one real KYC submission).
 *   2. Everything else is written straight into the file with multi-row INSERTs, SEED_ROWS_PER_TX rows of the
 *      driving table per transaction, on a connection of its own (the app is idle meanwhile): users (with their
 *      plan), merchants, the big merchant's intents with their events (created, then succeeded or canceled; the
 *      data is the intent object as it was), its newest deliveries with their attempts, the consumer's split
 *      collections with their shares and bcards, KYC verifications with documents, audit rows. Ids come from
 *      newId, statuses are valid ones, created_at is spread over the past (one to two years). Not seeded: ledger
 *      postings and processor rows behind the seeded money (no list reads them); seeded succeeded intents carry no
 *      bcard. No ANALYZE is run: bpay runs without statistics.
 *   3. Every list through app.handle (the test kit's call / merchantCall, with the consumer's cookie, the secret key,
 *      the owner's cookie or the admin's bearer token), first page and a deep page (a cursor built for the middle of
 *      the list, the one the API itself hands out), --reps times per run in rotating order after a warm-up pass.
 *      The time is app.handle() until the answer's body is read (the test kit's JSON parsing is not counted).
 *      Lists without a cursor are measured as they are and marked so. The audit log has no route: its service is
 *      timed directly.
 *   4. Intent create on the big merchant and on the empty one, interleaved (who goes first alternates), --creates
 *      pairs per run: the ratio of their p50s, per run.
 *   5. References in the same run: a primary-key SELECT through @libsql/client on the same file (own connection),
 *      GET /api/subscription/tiers through app.handle (a trivial public read: the app's floor), and GET one
 *      payment intent by id with the secret key (the merchant API's floor: key check and its usage counter's commit).
 *
 * Figures: per run, the p50 of its reps; the table shows the median of those over the runs, their min–max, and the
 * median of the per-run ratios to the app reference. The targets are judged on the medians.
 *
 * Run: bun run bench:scale [--intents=1000000] [--runs=5] [--reps=15] [--creates=30]
 *      [--users=intents/10] [--transactions=intents/10] [--keep] (keep the database and print its path)
 * A full-size run seeds for a few minutes and needs about 2 GB of disk. Timing targets live here, never in tests.
 */
import { createClient, type Client } from '@libsql/client';
import { statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { schema } from '@bpay/db';
import { seal } from '../api/src/lib/crypto';
import { encodeCursor } from '../api/src/lib/cursor';
import { ADMIN_LISTS } from '../api/src/modules/admin/users';
import { BCARDS_LIST } from '../api/src/modules/bcards/views';
import { TRANSACTIONS_LIST } from '../api/src/modules/transactions/service';
import { newId } from '../api/src/lib/ids';
import { listAudit } from '../api/src/modules/admin/audit';
import { adminCall, adminToken, makeAdmin } from '../api/test-support/modules/admin';
import { submitKyc } from '../api/test-support/modules/kyc';
import { toIntentObject } from '../api/src/modules/payment-intents/service';
import { NEXT_CURSOR_HEADER } from '../api/src/modules/transactions/routes';
import {
  call,
  makeTestApp,
  memoryLogger,
  merchantCall,
  type CallOptions,
  type CallResult,
  type TestContext,
} from '../api/test-support/app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser } from '../api/test-support/world';
import { TableRows } from './table-rows';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const intArg = (name: string, fallback: number) => Math.max(1, Math.floor(Number(arg(name) ?? fallback)));

const INTENTS = intArg('intents', 1_000_000);
const USERS = intArg('users', Math.max(1000, INTENTS / 10));
const TRANSACTIONS = intArg('transactions', Math.max(1000, INTENTS / 10));
const RUNS = intArg('runs', 5);
const REPS = intArg('reps', 15);
const CREATES = intArg('creates', 30);
const KEEP = process.argv.includes('--keep');

const TARGET_MS = 5;
const CREATE_TARGET = 1.2;
/**
 * Rows of the driving table per seeding transaction (an intent brings its events, deliveries and attempts along).
 * Big on purpose: ids are random, so every primary-key index takes its inserts at random leaves, and each commit
 * writes every leaf it touched to the WAL and checkpoints it. At 5,000 rows a transaction touches about as many leaves
 * as it has rows once an index is large, and a million intents took ten minutes here; at 50,000 rows each leaf
 * collects several inserts per commit.
 */
const SEED_ROWS_PER_TX = 50_000;
/** A case whose warm-up answer takes longer than this is measured with fewer reps (it misses by far anyway). */
const SLOW_MS = 250;
const DAY = 86_400_000;

type IntentRow = typeof schema.paymentIntents.$inferSelect;

/* ------------------------------------------------------------------------------------------------------------ *
 * Seeding: multi-row INSERTs in one transaction per chunk.
 * ------------------------------------------------------------------------------------------------------------ */

/** A small deterministic generator (mulberry32), so two runs seed the same shapes. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
  };
}
const rnd = prng(14);
const hex = (bytes: number) => {
  let s = '';
  for (let i = 0; i < bytes * 2; i++) s += '0123456789abcdef'[rnd.int(0, 15)];
  return s;
};


/** Milliseconds spent in SQLite while seeding (the rest is making the rows). */
let writeMs = 0;

/** Writes the tables' rows in one transaction. */
async function writeChunk(client: Client, ...tables: TableRows[]): Promise<void> {
  const statements = tables.flatMap((t) => t.statements());
  const t0 = performance.now();
  await client.batch(statements, 'write');
  writeMs += performance.now() - t0;
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Margaret', 'Dennis', 'Radia', 'John', 'Sophie', 'Tim', 'Hedy', 'Linus'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Hamilton', 'Ritchie', 'Perlman', 'McCarthy', 'Wilson', 'Berners-Lee', 'Lamarr', 'Torvalds'];
const COUNTRIES = ['US', 'CA', 'UK', 'DE', 'FR', 'AU'] as const;
/** Any argon2id hash: nobody signs in as a seeded user. */
const SEEDED_PASSWORD_HASH = '$argon2id$v=19$m=65536,t=2,p=1$c2VlZGVkLXVzZXItc2FsdA$0Zl0bA4hH7o5f3m2GqgGZ6y3w9Jm3m2mH8n3Z2c9C4s';

interface World {
  ctx: TestContext;
  consumer: { cookie: string; id: string; sourceIds: string[] };
  owner: { cookie: string; id: string };
  big: { id: string; key: string; endpointId: string };
  empty: { id: string; key: string };
  adminId: string;
  adminToken: string;
  /** Ids in the middle of the seeded lists, for the deep pages. */
  middle: { intentId: string; eventId: string; transactionCursor: string };
  seedSeconds: number;
  /** How long each seeding step took. */
  seedSteps: string[];
}

async function seedUsers(client: Client, now: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  const span = 2 * 365 * DAY;
  for (let start = 0; start < count; start += SEED_ROWS_PER_TX) {
    const users = new TableRows('users', ['id', 'email', 'email_normalized', 'password_hash', 'first_name', 'last_name', 'country', 'role', 'kyc_status', 'login_notifications', 'created_at', 'updated_at']);
    const subs = new TableRows('user_subscriptions', ['id', 'user_id', 'tier_id', 'status', 'started_at']);
    for (let i = start; i < Math.min(count, start + SEED_ROWS_PER_TX); i++) {
      const id = newId('usr');
      ids.push(id);
      const first = rnd.pick(FIRST);
      const last = rnd.pick(LAST);
      const email = `${first}.${last}.${i}@example.com`;
      const at = now - span + Math.floor((i / count) * (span - DAY));
      // Every tenth user owns merchant accounts (seedMerchants relies on it).
      const role = i % 10 === 0 ? 'merchant' : 'user';
      users.add(id, email, email.toLowerCase(), SEEDED_PASSWORD_HASH, first, last, rnd.pick(COUNTRIES), role, rnd.next() < 0.2 ? 'verified' : 'unverified', 1, at, at);
      const tier = rnd.next() < 0.7 ? 'tier_free' : rnd.next() < 0.67 ? 'tier_pro' : 'tier_premium';
      subs.add(newId('sub'), id, tier, 'active', at);
    }
    await writeChunk(client, users, subs);
  }
  return ids;
}

async function seedMerchants(client: Client, now: number, userIds: string[]): Promise<void> {
  const count = Math.floor(userIds.length / 10);
  const span = 2 * 365 * DAY;
  for (let start = 0; start < count; start += SEED_ROWS_PER_TX) {
    const merchants = new TableRows('merchants', ['id', 'user_id', 'business_name', 'business_email', 'website', 'platform_type', 'environment', 'is_active', 'publishable_key', 'secret_key_hash', 'secret_key_last4', 'amount_received_total', 'created_at', 'updated_at']);
    for (let i = start; i < Math.min(count, start + SEED_ROWS_PER_TX); i++) {
      const env = rnd.next() < 0.6 ? 'production' : 'sandbox';
      const at = now - span + Math.floor((i / count) * (span - DAY)) + DAY;
      const name = `${rnd.pick(LAST)} ${rnd.pick(['Books', 'Coffee', 'Outdoor', 'Studio', 'Games', 'Garden'])} ${i}`;
      merchants.add(newId('mer'), userIds[i * 10]!, name, `billing${i}@shop.example`, `https://shop${i}.example`, rnd.pick(['shopify', 'wordpress', 'woocommerce', 'custom']), env, rnd.next() < 0.95 ? 1 : 0, `pk_${env === 'production' ? 'live' : 'test'}_${hex(12)}`, hex(32), hex(2), rnd.int(0, 5_000_000), at, at);
    }
    await writeChunk(client, merchants);
  }
}

/**
 * The big merchant's intents, each with its events (created, then succeeded or canceled a few seconds later), and
 * for the newest tenth their webhook deliveries to its endpoint with one attempt each. Returns the sum received
 * (its running total) and the number of events.
 */
async function seedIntents(client: Client, now: number, merchantId: string, endpointId: string) {
  const span = 365 * DAY;
  const gap = Math.floor((span - DAY) / INTENTS);
  const deliveriesFrom = Math.floor(INTENTS * 0.9);
  let eventSeq = 0;
  let received = 0;
  for (let start = 0; start < INTENTS; start += SEED_ROWS_PER_TX) {
    const intents = new TableRows('payment_intents', ['id', 'merchant_id', 'livemode', 'amount', 'currency', 'status', 'capture_method', 'description', 'metadata', 'client_secret', 'bcard_id', 'amount_capturable', 'amount_received', 'last_payment_error', 'cancellation_reason', 'canceled_at', 'authorized_at', 'seq', 'created_at', 'updated_at']);
    const events = new TableRows('events', ['id', 'merchant_id', 'livemode', 'type', 'data', 'seq', 'created_at']);
    const deliveries = new TableRows('webhook_deliveries', ['id', 'event_id', 'endpoint_id', 'merchant_id', 'livemode', 'status', 'attempts', 'next_attempt_at', 'locked_until', 'last_attempt_at', 'created_at']);
    const attempts = new TableRows('webhook_attempts', ['id', 'delivery_id', 'at', 'status_code', 'duration_ms', 'response_snippet', 'error']);
    const emit = (intent: IntentRow, type: string, at: number) => {
      const id = newId('evt');
      eventSeq++;
      events.add(id, merchantId, 0, type, JSON.stringify(toIntentObject(intent)), eventSeq, at);
      if (intent.seq <= deliveriesFrom) return;
      const deliveryId = newId('whd');
      const ok = rnd.next() < 0.98;
      deliveries.add(deliveryId, id, endpointId, merchantId, 0, ok ? 'succeeded' : 'failed', ok ? 1 : 8, at, null, at + 300, at);
      attempts.add(newId('wha'), deliveryId, at + 300, ok ? 200 : 500, rnd.int(40, 900), ok ? '{"received":true}' : 'Internal Server Error', null);
    };
    for (let i = start; i < Math.min(INTENTS, start + SEED_ROWS_PER_TX); i++) {
      const seq = i + 1;
      const id = newId('pi');
      const at = now - span + i * gap;
      const amount = rnd.int(5, 2000) * 100 + rnd.pick([0, 0, 49, 99]);
      const roll = rnd.next();
      const status = roll < 0.66 ? 'succeeded' : roll < 0.88 ? 'requires_payment_method' : 'canceled';
      const done = at + rnd.int(2, Math.max(2, Math.min(20, Math.floor(gap / 1000) - 1))) * 1000;
      const row: IntentRow = {
        id,
        merchantId,
        livemode: false,
        amount,
        currency: 'usd',
        status: 'requires_payment_method',
        captureMethod: 'automatic',
        description: `Order #${100000 + i}`,
        metadata: { order_id: String(100000 + i) },
        clientSecret: `${id}_secret_${hex(18)}`,
        bcardId: null,
        customerId: null,
        receiptEmail: null,
        statementDescriptor: null,
        statementDescriptorSuffix: null,
        automaticPaymentMethods: null,
        amountCapturable: 0,
        amountReceived: 0,
        amountRefunded: 0,
        lastPaymentError: null,
        cancellationReason: null,
        canceledAt: null,
        authorizedAt: null,
        seq,
        createdAt: new Date(at),
        updatedAt: new Date(at),
      };
      emit(row, 'payment_intent.created', at);
      if (status === 'succeeded') {
        Object.assign(row, { status, amountReceived: amount, updatedAt: new Date(done) });
        received += amount;
        emit(row, 'payment_intent.succeeded', done);
      } else if (status === 'canceled') {
        Object.assign(row, { status, cancellationReason: rnd.pick(['abandoned', 'requested_by_customer', 'duplicate']), canceledAt: new Date(done), updatedAt: new Date(done) });
        emit(row, 'payment_intent.canceled', done);
      }
      intents.add(id, merchantId, 0, amount, 'usd', row.status, 'automatic', row.description, JSON.stringify(row.metadata), row.clientSecret, null, 0, row.amountReceived, null, row.cancellationReason, row.canceledAt?.getTime() ?? null, null, seq, at, row.updatedAt.getTime());
    }
    await writeChunk(client, intents, events, deliveries, attempts);
  }
  return { received, events: eventSeq };
}

/**
 * The consumer's split collections (kind bcard), newest last: most completed with a used bcard, some refunded
 * (bcard canceled), some failed (a declined share, no bcard); the newest few still active. Shares spread over the
 * consumer's real cards. Returns the cursor of the middle row (as the transactions list hands it out).
 */
async function seedTransactions(client: Client, now: number, userId: string, sourceIds: string[]): Promise<string> {
  const span = 365 * DAY;
  let middle = '';
  for (let start = 0; start < TRANSACTIONS; start += SEED_ROWS_PER_TX) {
    const cols = new TableRows('collections', ['id', 'user_id', 'kind', 'status', 'amount_cents', 'fee_cents', 'total_cents', 'currency', 'name', 'cardholder_name', 'merchant', 'description', 'locked_merchant_id', 'vendor', 'idempotency_key', 'failure_code', 'failure_message', 'failure_details', 'refunded_cents', 'lease_owner', 'lease_until', 'created_at', 'updated_at']);
    const shares = new TableRows('collection_shares', ['id', 'collection_id', 'funding_source_id', 'position', 'percentage_bps', 'amount_cents', 'status', 'vendor_hold_id', 'decline_code', 'decline_message', 'updated_at']);
    const cards = new TableRows('bcards', ['id', 'user_id', 'collection_id', 'name', 'cardholder_name', 'vendor', 'vendor_card_id', 'brand', 'last4', 'exp_month', 'exp_year', 'limit_cents', 'spent_cents', 'status', 'locked_merchant_id', 'sandbox', 'expires_at', 'created_at', 'deactivated_at']);
    for (let i = start; i < Math.min(TRANSACTIONS, start + SEED_ROWS_PER_TX); i++) {
      const id = newId('col');
      const at = now - span + Math.floor((i / TRANSACTIONS) * (span - DAY));
      if (i === TRANSACTIONS - 1 - Math.floor(TRANSACTIONS / 2)) middle = encodeCursor({ t: at, id }, { list: TRANSACTIONS_LIST, owner: userId });
      const amount = rnd.int(5, 500) * 100;
      const fee = Math.round((amount * 290) / 10_000);
      const total = amount + fee;
      const roll = rnd.next();
      const status = roll < 0.9 ? 'completed' : roll < 0.95 ? 'refunded' : 'failed';
      const name = rnd.pick(['Groceries', 'Flight', 'Concert tickets', 'Laptop', 'Dinner', 'Gift']);
      const fail = status === 'failed';
      cols.add(id, userId, 'bcard', status, amount, fee, total, 'usd', name, 'Ada Lovelace', null, null, null, 'simulated', `user:${userId}:${hex(8)}`, fail ? 'card_declined' : null, fail ? 'A card was declined.' : null, null, status === 'refunded' ? total : 0, hex(16), at + 60_000, at, at + 5_000);
      const n = rnd.int(1, sourceIds.length);
      for (let p = 0; p < n; p++) {
        const bps = p === 0 ? 10_000 - Math.floor(10_000 / n) * (n - 1) : Math.floor(10_000 / n);
        const part = p === 0 ? total - Math.floor(total / n) * (n - 1) : Math.floor(total / n);
        const shareStatus = fail ? (p === 0 ? 'declined' : 'voided') : status === 'refunded' ? 'refunded' : 'captured';
        shares.add(newId('shr'), id, sourceIds[p]!, p, bps, part, shareStatus, fail && p === 0 ? null : newId('sim_hold'), fail && p === 0 ? 'card_declined' : null, fail && p === 0 ? 'Your card was declined.' : null, at + 5_000);
      }
      if (fail) continue;
      const active = i >= TRANSACTIONS - 3;
      const cardStatus = active ? 'active' : status === 'refunded' ? 'canceled' : 'used';
      // A bcard is deactivated when it is spent or ends (spendBcard, the refund of an unused one): only live ones have none.
      cards.add(newId('bc'), userId, id, name, 'Ada Lovelace', 'simulated', newId('ic'), 'visa', String(rnd.int(1000, 9999)), rnd.int(1, 12), 2028, amount, cardStatus === 'used' ? amount : 0, cardStatus, null, 0, at + 30 * 60_000, at + 5_000, cardStatus === 'canceled' ? at + DAY : cardStatus === 'used' ? at + 10 * 60_000 : null);
    }
    await writeChunk(client, cols, shares, cards);
  }
  return middle;
}

async function seedKycAndAudit(client: Client, ctx: TestContext, now: number, userIds: string[], adminId: string): Promise<void> {
  const count = Math.floor(userIds.length / 5);
  const span = 365 * DAY;
  for (let start = 0; start < count; start += SEED_ROWS_PER_TX) {
    const kyc = new TableRows('kyc_verifications', ['id', 'user_id', 'verification_type', 'document_type', 'document_country', 'first_name', 'last_name', 'date_of_birth', 'document_number', 'status', 'risk_score', 'error_message', 'admin_notes', 'reviewed_at', 'created_at']);
    const docs = new TableRows('kyc_documents', ['id', 'verification_id', 'original_name', 'content_type', 'size_bytes', 'storage_key', 'sha256', 'created_at']);
    const audit = new TableRows('audit_log', ['id', 'admin_id', 'action', 'target_type', 'target_id', 'before', 'after', 'ip', 'at']);
    for (let i = start; i < Math.min(count, start + SEED_ROWS_PER_TX); i++) {
      const id = newId('kyc');
      const at = now - span + Math.floor((i / count) * (span - DAY));
      const roll = rnd.next();
      const status = roll < 0.7 ? 'verified' : roll < 0.8 ? 'failed' : roll < 0.92 ? 'pending' : roll < 0.97 ? 'requires_input' : 'processing';
      const reviewed = status === 'verified' || status === 'failed';
      const docType = rnd.pick(['passport', 'driving_license', 'id_card']);
      kyc.add(id, userIds[i * 5 + 1]!, 'identity_document', docType, rnd.pick(COUNTRIES), rnd.pick(FIRST), rnd.pick(LAST), `19${rnd.int(50, 99)}-0${rnd.int(1, 9)}-1${rnd.int(0, 9)}`, seal(ctx.deps.kycKey, `P${rnd.int(1_000_000, 9_999_999)}`), status, rnd.int(0, 100), status === 'failed' ? 'Your documents could not be verified. Please submit a new verification.' : null, reviewed ? 'Checked against the document.' : null, reviewed ? at + DAY : null, at);
      for (let d = 0; d < (docType === 'passport' ? 1 : 2); d++) {
        docs.add(newId('kycdoc'), id, `${docType}-${d + 1}.jpg`, 'image/jpeg', rnd.int(80_000, 4_000_000), hex(16), hex(32), at);
      }
      // Two audit rows per verification: a reviewed one's document read and decision, else two admin sign-ins.
      for (let a = 0; a < 2; a++) {
        const action = reviewed ? (a === 0 ? 'kyc.document.read' : 'kyc.decision') : 'admin.login';
        audit.add(newId('aud'), adminId, action, action === 'admin.login' ? 'admin' : 'kyc_verification', action === 'admin.login' ? adminId : id, action === 'kyc.decision' ? JSON.stringify({ status: 'pending' }) : null, action === 'kyc.decision' ? JSON.stringify({ status }) : null, '198.51.100.7', at + DAY + a * 1000);
      }
    }
    await writeChunk(client, kyc, docs, audit);
  }
}

/** The accounts made through the API, then the bulk rows written straight into the file. */
async function buildWorld(): Promise<World & { log: ReturnType<typeof memoryLogger>; seedClient: Client }> {
  const log = memoryLogger();
  const ctx = await makeTestApp({ rateLimits: false, log });
  const now = ctx.clock.now().getTime();
  const c = await registerUser(ctx, { email: 'consumer@example.com' });
  await makePremium(ctx, c.user.id);
  const sourceIds: string[] = [];
  for (const number of CARDS_OK.slice(0, 3)) sourceIds.push((await addCard(ctx, c.cookie, number)).id);
  await submitKyc(ctx, c.cookie);
  const o = await registerUser(ctx, { email: 'owner@example.com' });
  await makePremium(ctx, o.user.id);
  const big = await createMerchant(ctx, o.cookie, 'sandbox', { businessName: 'Big Shop' });
  const empty = await createMerchant(ctx, o.cookie, 'sandbox', { businessName: 'New Shop' });
  // The same endpoint on both, so an intent create queues the same delivery on each and only the row counts differ.
  const endpointIds: string[] = [];
  for (const m of [big, empty]) {
    const res = await merchantCall(ctx, m.secretKey, '/webhook_endpoints', { method: 'POST', body: { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] } });
    if (res.status !== 200) throw new Error(`endpoint: ${res.status} ${res.text}`);
    endpointIds.push(res.body.id);
  }
  const admin = await makeAdmin(ctx);
  const token = await adminToken(ctx);

  const t0 = performance.now();
  // A connection of its own (the pool reuses its one idle connection for sequential calls), with the production
  // PRAGMAs (db/client.ts applies them to every connection) and a bigger page cache: at a million rows the random
  // primary keys would otherwise send most inserts to the OS for their index pages. Only seeding uses it.
  const seedClient = createClient({ url: `file:${join(ctx.dir, 'test.db')}` });
  await seedClient.execute('PRAGMA cache_size = -262144');
  const steps: string[] = [];
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const s = performance.now();
    const w0 = writeMs;
    const out = await work();
    steps.push(`${name} ${((performance.now() - s) / 1000).toFixed(1)} s (${((writeMs - w0) / 1000).toFixed(1)} s of it in SQLite)`);
    console.error(`  seeded ${steps[steps.length - 1]}`);
    return out;
  };
  console.error(`Seeding ${INTENTS} intents, ${USERS} users, ${TRANSACTIONS} transactions into ${ctx.dir} ...`);
  const userIds = await step('users', () => seedUsers(seedClient, now, USERS - 2));
  await step('merchants', () => seedMerchants(seedClient, now, userIds));
  // The real accounts existed before their history: their rows are dated back so the seeded rows are not older.
  await seedClient.execute({ sql: 'UPDATE users SET created_at = ? WHERE id IN (?, ?)', args: [now - 3 * 365 * DAY, c.user.id, o.user.id] });
  await seedClient.execute({ sql: 'UPDATE webhook_endpoints SET created_at = ?, updated_at = ? WHERE id = ?', args: [now - 40 * DAY, now - 40 * DAY, endpointIds[0]!] });
  const intents = await step('intents, events, deliveries', () => seedIntents(seedClient, now, big.id, endpointIds[0]!));
  await seedClient.execute({ sql: 'UPDATE merchants SET amount_received_total = ? WHERE id = ?', args: [intents.received, big.id] });
  const transactionCursor = await step('transactions', () => seedTransactions(seedClient, now, c.user.id, sourceIds));
  await step('KYC and audit', () => seedKycAndAudit(seedClient, ctx, now, userIds, admin.id));
  await seedClient.execute('PRAGMA wal_checkpoint(TRUNCATE)');
  const middleOf = async (table: string, seq: number) =>
    String((await seedClient.execute({ sql: `SELECT id FROM ${table} WHERE merchant_id = ? AND livemode = 0 AND seq = ?`, args: [big.id, seq] })).rows[0]?.id);
  return {
    ctx,
    log,
    seedClient,
    consumer: { cookie: c.cookie, id: c.user.id, sourceIds },
    owner: { cookie: o.cookie, id: o.user.id },
    big: { id: big.id, key: big.secretKey, endpointId: endpointIds[0]! },
    empty: { id: empty.id, key: empty.secretKey },
    adminId: admin.id,
    adminToken: token,
    middle: {
      intentId: await middleOf('payment_intents', Math.floor(INTENTS / 2)),
      eventId: await middleOf('events', Math.floor(intents.events / 2)),
      transactionCursor,
    },
    seedSeconds: (performance.now() - t0) / 1000,
    seedSteps: steps,
  };
}

/* ------------------------------------------------------------------------------------------------------------ *
 * Measuring.
 * ------------------------------------------------------------------------------------------------------------ */

interface Sample {
  status: number;
  ms: number;
  /** Items in the answer (a list's page), when it is a list. */
  items: number | null;
  text: string;
}

interface Case {
  list: string;
  page: string;
  send: () => Promise<Sample>;
  /** Judged against TARGET_MS (the lists); references are not. */
  judged: boolean;
  /** What the figure means beyond its name (no cursor, no route…). */
  note?: string;
}

/**
 * The test kit's context with its app wrapped so that each call's server time is kept: app.handle() until the
 * answer's body is read. The wrapper answers a copy, so call() reads and parses it as usual, untimed.
 */
function timedContext(ctx: TestContext): { ctx: TestContext; lastMs: () => number } {
  let last = 0;
  const app = Object.create(ctx.app) as TestContext['app'];
  app.handle = async (req: Request) => {
    const t0 = performance.now();
    const res = await ctx.app.handle(req);
    const body = await res.text();
    last = performance.now() - t0;
    return new Response(body === '' ? null : body, { status: res.status, headers: res.headers });
  };
  return { ctx: { ...ctx, app }, lastMs: () => last };
}

function itemsOf(body: unknown): number | null {
  if (Array.isArray(body)) return body.length;
  if (body && typeof body === 'object') {
    const o = body as Record<string, unknown>;
    if (Array.isArray(o.data)) return o.data.length;
    if (Array.isArray(o.tiers)) return o.tiers.length;
    if (Array.isArray(o.verifications)) return o.verifications.length;
  }
  return null;
}

function buildCases(w: World, raw: Client): Case[] {
  const timed = timedContext(w.ctx);
  const sample = (r: CallResult<unknown>): Sample => ({ status: r.status, ms: timed.lastMs(), items: itemsOf(r.body), text: r.text });
  const consumer = (path: string) => async () => sample(await call(timed.ctx, path, { cookie: w.consumer.cookie }));
  const owner = (path: string) => async () => sample(await call(timed.ctx, path, { cookie: w.owner.cookie }));
  const v1 = (path: string) => async () => sample(await merchantCall(timed.ctx, w.big.key, path));
  const admin = (path: string, opts: CallOptions = {}) => async () => sample(await adminCall(timed.ctx, w.adminToken, path, opts));
  const m = w.big.id;
  const mid = w.middle;
  let next: string | undefined;
  /** The cursor a list's first page hands out, read once (untimed). */
  const firstCursors = new Map<string, string>();
  const nextPage = (path: string, as: (p: string) => () => Promise<Sample>, get: (p: string) => Promise<CallResult<unknown>>) => async () => {
    if (!firstCursors.has(path)) firstCursors.set(path, (await get(path)).headers.get(NEXT_CURSOR_HEADER) ?? 'none');
    return as(`${path}${path.includes('?') ? '&' : '?'}cursor=${firstCursors.get(path)}`)();
  };
  /** A cursor at the middle of a table, newest first (read once, untimed): the deep page a keyset list seeks to. */
  const middles = new Map<string, string>();
  const deepPage = (path: string, table: string, list: string, as: (p: string) => () => Promise<Sample>) => async () => {
    if (!middles.has(table)) {
      const r = await raw.execute(`SELECT created_at AS t, id FROM ${table} ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET (SELECT count(*) / 2 FROM ${table})`);
      middles.set(table, encodeCursor({ t: Number(r.rows[0]!.t), id: String(r.rows[0]!.id) }, { list }));
    }
    return as(`${path}?cursor=${middles.get(table)}`)();
  };
  const asAdmin = (p: string) => adminCall(w.ctx, w.adminToken, p);
  const asConsumer = (p: string) => call(w.ctx, p, { cookie: w.consumer.cookie });
  return [
    { list: 'reference', page: 'raw PK SELECT (@libsql/client, same file)', judged: false, send: async () => {
      const t0 = performance.now();
      const res = await raw.execute({ sql: 'SELECT * FROM payment_intents WHERE id = ?', args: [mid.intentId] });
      return { status: res.rows.length === 1 ? 200 : 404, ms: performance.now() - t0, items: res.rows.length, text: '' };
    } },
    { list: 'reference', page: 'app: GET /api/subscription/tiers', judged: false, send: async () => sample(await call(timed.ctx, '/api/subscription/tiers')) },
    { list: 'reference', page: 'merchant API: GET one intent (key + usage commit)', judged: false, send: v1(`/payment_intents/${mid.intentId}`) },
    { list: 'consumer transactions', page: 'first (50)', judged: true, send: consumer('/api/transactions') },
    { list: 'consumer transactions', page: 'next (the cursor it gave)', judged: true, send: async () => {
      next ??= (await call(w.ctx, '/api/transactions', { cookie: w.consumer.cookie })).headers.get(NEXT_CURSOR_HEADER) ?? 'none';
      return consumer(`/api/transactions?cursor=${next}`)();
    } },
    { list: 'consumer transactions', page: `deep (${Math.floor(TRANSACTIONS / 2).toLocaleString('en')} in)`, judged: true, send: consumer(`/api/transactions?cursor=${mid.transactionCursor}`) },
    { list: 'consumer transactions', page: 'status=failed, first', judged: true, send: consumer('/api/transactions?status=failed') },
    { list: 'consumer transactions', page: 'status=pending, first (none pending)', judged: true, send: consumer('/api/transactions?status=pending') },
    { list: 'bcards', page: 'first (50)', judged: true, send: consumer('/api/virtual-cards') },
    { list: 'bcards', page: 'next (the cursor it gave)', judged: true, send: nextPage('/api/virtual-cards', consumer, asConsumer) },
    { list: 'bcards', page: 'deep (middle)', judged: true, send: async () => {
      if (!middles.has('bcards')) {
        const r = await raw.execute({ sql: 'SELECT created_at AS t, id FROM bcards WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET (SELECT count(*) / 2 FROM bcards WHERE user_id = ?)', args: [w.consumer.id, w.consumer.id] });
        middles.set('bcards', encodeCursor({ t: Number(r.rows[0]!.t), id: String(r.rows[0]!.id) }, { list: BCARDS_LIST, owner: w.consumer.id }));
      }
      return consumer(`/api/virtual-cards?cursor=${middles.get('bcards')}`)();
    } },
    { list: 'payment intents (v1)', page: 'first (10)', judged: true, send: v1('/payment_intents') },
    { list: 'payment intents (v1)', page: `deep: starting_after #${Math.floor(INTENTS / 2).toLocaleString('en')}`, judged: true, send: v1(`/payment_intents?starting_after=${mid.intentId}`) },
    { list: 'payment intents (v1)', page: 'deep: ending_before, same id', judged: true, send: v1(`/payment_intents?ending_before=${mid.intentId}`) },
    { list: 'payment intents (dashboard)', page: 'first (10)', judged: true, send: owner(`/api/merchants/${m}/payment_intents`) },
    { list: 'payment intents (dashboard)', page: 'deep: starting_after, middle', judged: true, send: owner(`/api/merchants/${m}/payment_intents?starting_after=${mid.intentId}`) },
    { list: 'events (v1)', page: 'first (10)', judged: true, send: v1('/events') },
    { list: 'events (v1)', page: 'deep: starting_after, middle', judged: true, send: v1(`/events?starting_after=${mid.eventId}`) },
    { list: 'events (v1)', page: 'type=payment_intent.canceled, first', judged: true, send: v1('/events?type=payment_intent.canceled') },
    { list: 'events (dashboard)', page: 'first (10)', judged: true, send: owner(`/api/merchants/${m}/events`) },
    { list: 'webhook deliveries (dashboard)', page: 'first (20), no cursor', judged: true, send: owner(`/api/merchants/${m}/webhook_deliveries`), note: 'no cursor: no deep page exists' },
    { list: 'webhook deliveries (dashboard)', page: 'one endpoint, first (20)', judged: true, send: owner(`/api/merchants/${m}/webhook_deliveries?endpoint_id=${w.big.endpointId}`) },
    { list: 'admin users', page: 'first (50)', judged: true, send: admin('/api/admin/users') },
    { list: 'admin users', page: 'next (the cursor it gave)', judged: true, send: nextPage('/api/admin/users', admin, asAdmin) },
    { list: 'admin users', page: 'deep (middle)', judged: true, send: deepPage('/api/admin/users', 'users', ADMIN_LISTS.users, admin) },
    { list: 'admin users', page: 'role=merchant, first', judged: true, send: admin('/api/admin/users?role=merchant') },
    { list: 'admin users', page: 'search, no match', judged: true, send: admin('/api/admin/users?search=nobody-has-this') },
    { list: 'admin users', page: 'search, one user (part of an e-mail)', judged: true, send: admin(`/api/admin/users?search=.${Math.floor(USERS / 2)}%40`) },
    { list: 'admin users', page: 'search, a name (1 in 16 users)', judged: true, send: admin('/api/admin/users?search=hopper') },
    { list: 'admin users', page: 'search, a common part (every user)', judged: true, send: admin('/api/admin/users?search=example.com') },
    { list: 'admin merchants', page: 'first (50)', judged: true, send: admin('/api/admin/merchants') },
    { list: 'admin merchants', page: 'next (the cursor it gave)', judged: true, send: nextPage('/api/admin/merchants', admin, asAdmin) },
    { list: 'admin merchants', page: 'deep (middle)', judged: true, send: deepPage('/api/admin/merchants', 'merchants', ADMIN_LISTS.merchants, admin) },
    { list: 'admin merchants', page: 'environment=production, first', judged: true, send: admin('/api/admin/merchants?environment=production') },
    { list: 'admin merchants', page: 'search, no match', judged: true, send: admin('/api/admin/merchants?search=nobody-has-this') },
    { list: 'admin merchants', page: 'search, a business name part', judged: true, send: admin('/api/admin/merchants?search=coffee') },
    { list: 'admin merchants', page: "search, an owner's name", judged: true, send: admin('/api/admin/merchants?search=lovelace') },
    { list: 'KYC verifications (admin)', page: 'first (50)', judged: true, send: admin('/api/admin/kyc/verifications') },
    { list: 'KYC verifications (admin)', page: 'next (the cursor it gave)', judged: true, send: nextPage('/api/admin/kyc/verifications', admin, asAdmin) },
    { list: 'KYC verifications (admin)', page: 'deep (middle)', judged: true, send: deepPage('/api/admin/kyc/verifications', 'kyc_verifications', ADMIN_LISTS.kyc, admin) },
    { list: 'KYC verifications (admin)', page: 'status=pending, first', judged: true, send: admin('/api/admin/kyc/verifications?status=pending') },
    { list: 'KYC verifications (consumer)', page: 'own (GET /api/kyc/status)', judged: true, send: consumer('/api/kyc/status') },
    { list: 'audit log (admin)', page: 'newest 100 (service; no route)', judged: true, note: 'listAudit has no HTTP route: the service is timed', send: async () => {
      const t0 = performance.now();
      const rows = await listAudit(w.ctx.handle.db);
      // What a route would add to the query: serialising the rows.
      const text = JSON.stringify(rows);
      return { status: 200, ms: performance.now() - t0, items: rows.length, text };
    } },
  ];
}

/** The messages of a logged error and of its causes (a query error's cause is the driver's), each cut short. */
function messagesIn(error: unknown, depth = 0): string[] {
  if (!(error instanceof Error) || depth > 5) return [];
  return [error.message.slice(0, 160), ...messagesIn(error.cause, depth + 1)];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

interface CaseResult {
  case: Case;
  runP50: number[];
  ratios: number[];
  items: number | null;
  failure: string | null;
}

/** Interleaved intent creates on the big and the empty merchant: per run, each one's p50. */
async function measureCreates(w: World, timed: ReturnType<typeof timedContext>, pairs: number) {
  const big: number[] = [];
  const empty: number[] = [];
  const create = async (key: string, into: number[]) => {
    const res = await merchantCall(timed.ctx, key, '/payment_intents', { method: 'POST', body: { amount: 2500, currency: 'usd', description: 'bench' } });
    if (res.status !== 200) throw new Error(`intent create: ${res.status} ${res.text}`);
    into.push(timed.lastMs());
  };
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      await create(w.big.key, big);
      await create(w.empty.key, empty);
    } else {
      await create(w.empty.key, empty);
      await create(w.big.key, big);
    }
  }
  return { big: median(big), empty: median(empty) };
}

async function main() {
  const w = await buildWorld();
  const raw = createClient({ url: `file:${join(w.ctx.dir, 'test.db')}` });
  const dbPath = join(w.ctx.dir, 'test.db');
  try {
    const counts = await w.seedClient.batch(
      ['users', 'merchants', 'payment_intents', 'events', 'webhook_deliveries', 'collections', 'bcards', 'kyc_verifications', 'audit_log'].map((t) => `SELECT '${t}' AS t, count(*) AS n FROM ${t}`),
      'read',
    );
    w.seedClient.close();
    const cases = buildCases(w, raw);
    const results = new Map<Case, CaseResult>(cases.map((c) => [c, { case: c, runP50: [], ratios: [], items: null, failure: null }]));
    const appRef = cases[1]!;
    const reps = new Map<Case, number>();
    // Warm-up: one pass (statement caches, JIT, the OS page cache), which also checks each answer.
    for (const c of cases) {
      const s = await c.send();
      const r = results.get(c)!;
      r.items = s.items;
      if (s.status !== 200) r.failure = `${s.status} ${s.text.slice(0, 160)}`;
      reps.set(c, s.ms > SLOW_MS ? Math.min(3, REPS) : REPS);
    }
    const timed = timedContext(w.ctx);
    await measureCreates(w, timed, 5);
    const creates: Array<{ big: number; empty: number }> = [];
    for (let run = 0; run < RUNS; run++) {
      const samples = new Map<Case, number[]>(cases.map((c) => [c, []]));
      for (let rep = 0; rep < REPS; rep++) {
        // A rotating start: no case always runs right after the same one.
        for (let k = 0; k < cases.length; k++) {
          const c = cases[(k + rep) % cases.length]!;
          if (rep >= reps.get(c)!) continue;
          samples.get(c)!.push((await c.send()).ms);
        }
      }
      const ref = median(samples.get(appRef)!);
      for (const c of cases) {
        const p50 = median(samples.get(c)!);
        results.get(c)!.runP50.push(p50);
        results.get(c)!.ratios.push(p50 / ref);
      }
      creates.push(await measureCreates(w, timed, CREATES));
      console.error(`  run ${run + 1}/${RUNS} done`);
    }
    report(w, cases, results, creates, counts.map((r) => [String(r.rows[0]!.t), Number(r.rows[0]!.n)] as const), dbPath);
  } finally {
    raw.close();
    if (KEEP) {
      console.log(`\nDatabase kept: ${dbPath}`);
      w.ctx.handle.close();
    } else w.ctx.close();
  }
}

function report(
  w: World & { log: ReturnType<typeof memoryLogger> },
  cases: Case[],
  results: Map<Case, CaseResult>,
  creates: Array<{ big: number; empty: number }>,
  counts: ReadonlyArray<readonly [string, number]>,
  dbPath: string,
) {
  const size = statSync(dbPath).size;
  console.log(`# bench:scale — ${new Date().toISOString()}`);
  console.log(`${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load ${loadavg().map((l) => l.toFixed(2)).join(' ')}, Bun ${Bun.version}`);
  console.log(`runs=${RUNS} reps=${REPS} creates=${CREATES}; database ${(size / 1e9).toFixed(2)} GB, seeded in ${w.seedSeconds.toFixed(0)} s: ${w.seedSteps.join(', ')}`);
  console.log(`rows: ${counts.map(([t, n]) => `${t} ${n.toLocaleString('en')}`).join(', ')}\n`);
  console.log(`| list | page | rows | p50 ms | spread (min–max) | × app ref | target ≤ ${TARGET_MS} ms |`);
  console.log('|---|---|---:|---:|---|---:|---|');
  const misses: string[] = [];
  for (const c of cases) {
    const r = results.get(c)!;
    const p50 = median(r.runP50);
    const spread = `${fmt(Math.min(...r.runP50))}–${fmt(Math.max(...r.runP50))}`;
    let verdict = c.judged ? (p50 <= TARGET_MS ? 'met' : '**MISSED**') : '—';
    if (r.failure) verdict = `**FAILED** (${r.failure.split(' ')[0]})`;
    if (c.judged && (r.failure || p50 > TARGET_MS)) misses.push(`${c.list}, ${c.page}`);
    console.log(`| ${c.list} | ${c.page} | ${r.items ?? '—'} | ${fmt(p50)} | ${spread} | ${fmt(median(r.ratios))}× | ${verdict} |`);
  }
  const ratios = creates.map((x) => x.big / x.empty);
  const ratio = median(ratios);
  console.log(
    `\nIntent create (POST /api/v1/payment_intents, ${CREATES} interleaved pairs per run): ` +
      `${INTENTS.toLocaleString('en')}-intent merchant p50 ${fmt(median(creates.map((x) => x.big)))} ms, ` +
      `empty merchant p50 ${fmt(median(creates.map((x) => x.empty)))} ms, ratio ${ratio.toFixed(2)}× ` +
      `(runs ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}): target ≤ ${CREATE_TARGET}× ${ratio <= CREATE_TARGET ? 'met' : '**MISSED**'}`,
  );
  const notes = cases.filter((c) => c.note).map((c) => `${c.list}: ${c.note}`);
  for (const c of cases) {
    const f = results.get(c)!.failure;
    if (f) notes.push(`${c.list}, ${c.page}: answered ${f}`);
  }
  // What the server logged for its 500s: the route and the error's own messages (not the whole statement).
  const seen = new Set<string>();
  for (const e of w.log.lines.filter((l) => l.level === 'error')) {
    const text = `${e.msg} on ${String(e.fields.method)} ${String(e.fields.path)}: ${messagesIn(e.fields.error).join(' / caused by: ')}`;
    if (!seen.has(text)) notes.push(`server logged ${text}`);
    seen.add(text);
  }
  notes.push(`${misses.length} of ${cases.filter((c) => c.judged).length} judged rows missed ${TARGET_MS} ms or failed`);
  console.log('\nNotes');
  for (const n of notes) console.log(`- ${n}`);
}

await main();
