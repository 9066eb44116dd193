import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createClient, type Client, type InArgs } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { join } from 'node:path';
import { schema, type Db } from '@bpay/db';
import { createApp } from './app';
import { sweepMoney } from './boot';
import type { AppDeps } from './deps';
import { listAudit } from './modules/admin/audit';
import { adminCall, adminToken, makeAdmin } from '../test-support/modules/admin';
import { broadcastsAfter } from './modules/events/broadcast';
import { submitKyc } from '../test-support/modules/kyc';
import { resetRateWindows } from './modules/merchants/usage';
import { NEXT_CURSOR_HEADER } from './modules/transactions/routes';
import { deliverDueWebhooks } from './modules/webhooks/worker';
import { call, makeTestApp, merchantCall, type CallOptions, type CallResult, type TestContext } from '../test-support/app';
import { bcardCard, createMerchant, merchantWorld, testBcardCard, type MerchantWorld } from '../test-support/world';

/*
 * Lists and hot paths that stay fast at a million rows (issue 14): every statement the real code runs for them, as
 * the services build it, is captured (a drizzle logger on the app's database) and given to EXPLAIN QUERY PLAN. A
 * statement fails the test when SQLite would
 *   - read a whole table (`SCAN t`) other than the few bounded by configuration (SMALL_TABLES), or build an automatic
 *     index for it (the same full read, every time);
 *   - walk a whole index (`SCAN t USING INDEX i`), unless the case names that walk: a list without an equality
 *     filter reads its index in order and stops at its LIMIT, which is what `walks` is for;
 *   - sort rows for an ORDER BY (`USE TEMP B-TREE FOR ... ORDER BY`), unless the case names the table and why the
 *     rows sorted are bounded (`sorts`).
 * Each case also names the index searches it must show (`uses`, as EXPLAIN QUERY PLAN prints them), so a query that
 * loses an equality column (the next seq without its mode) or a cursor that stops seeking (an OR instead of a row
 * value) fails even where SQLite still finds some index.
 *
 * Plans are taken without ANALYZE statistics, as bpay runs: SQLite then plans the same for ten rows as for a
 * million, so a small world shows the plans a big one would get. A new list or hot path belongs in CASES below.
 */

/** Tables that only an admin's configuration makes grow: reading them whole is fine. */
const SMALL_TABLES = new Set(['subscription_tiers', 'vendor_settings', 'vendor_credentials', 'admins']);

interface World extends MerchantWorld {
  ctx: TestContext;
  /** The app built on the capturing database. */
  app: ReturnType<typeof createApp>;
  /** `call` through the app whose database statements are captured. */
  http<T = any>(path: string, opts?: CallOptions): Promise<CallResult<T>>;
  /** `merchantCall` through the same app. */
  v1<T = any>(key: string, path: string, body?: unknown): Promise<CallResult<T>>;
  /** The app's dependencies with the capturing database. */
  deps: AppDeps;
  db: Db;
  adminToken: string;
  endpointIds: string[];
  intentIds: string[];
}

interface PlanCase {
  name: string;
  run(w: World): Promise<unknown>;
  /** Index searches that must appear in the case's plans, e.g. `payment_intents_merchant_idx (merchant_id=? AND livemode=?)`. */
  uses: string[];
  /** Indexes the case may walk whole, in order, cut by a LIMIT (a list without an equality filter). */
  walks?: string[];
  /** Tables whose rows the case may sort, each with why the sort is bounded. */
  sorts?: Record<string, string>;
  /**
   * The statements the case runs in all (issue 31 §3: a page reads its rows in a fixed number of statements, never one
   * per row): a change that adds a statement per row, or per page, fails here.
   */
  statements?: number;
}

const expectOk = <T>(res: CallResult<T>): CallResult<T> => {
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res;
};

const adminGet = (w: World, path: string) => adminCall({ ...w.ctx, app: w.app }, w.adminToken, path);

/** An admin list's first page of one row and the page its cursor names (the world holds at least two rows). */
async function adminPages(w: World, path: string) {
  const sep = path.includes('?') ? '&' : '?';
  const first = expectOk(await adminGet(w, `${path}${sep}limit=1`));
  const cursor = first.headers.get(NEXT_CURSOR_HEADER);
  if (!cursor) throw new Error(`${path}: no second page to read`);
  expectOk(await adminGet(w, `${path}${sep}limit=1&cursor=${encodeURIComponent(cursor)}`));
}

/** The one list of what must stay indexed. */
const CASES: PlanCase[] = [
  {
    name: 'transactions list: first page, next page, a filter and its next page',
    async run(w) {
      const first = expectOk(await w.http('/api/transactions?limit=1', { cookie: w.consumer.cookie }));
      await w.http(`/api/transactions?limit=1&cursor=${first.headers.get(NEXT_CURSOR_HEADER)}`, { cookie: w.consumer.cookie });
      expectOk(await w.http('/api/transactions?status=completed&limit=1', { cookie: w.consumer.cookie }));
      // The world's bcards are unused (pending: their money is held on them): pending has a next page.
      const pending = expectOk(await w.http('/api/transactions?status=pending&limit=1', { cookie: w.consumer.cookie }));
      await w.http(`/api/transactions?status=pending&limit=1&cursor=${pending.headers.get(NEXT_CURSOR_HEADER)}`, { cookie: w.consumer.cookie });
      expectOk(await w.http('/api/transactions?status=failed&limit=1', { cookie: w.consumer.cookie }));
      expectOk(await w.http('/api/transactions?status=pending&limit=1', { cookie: w.consumer.cookie }));
      // Issue 25's filters: the stages people look for, each a seek (filters.ts).
      for (const f of ['active', 'used', 'returned', 'bank_pending', 'bank_returned']) {
        const page = expectOk(await w.http(`/api/transactions?status=${f}&limit=1`, { cookie: w.consumer.cookie }));
        const next = page.headers.get(NEXT_CURSOR_HEADER);
        if (next) await w.http(`/api/transactions?status=${f}&limit=1&cursor=${next}`, { cookie: w.consumer.cookie });
      }
    },
    uses: [
      'collections_user_idx (user_id=?)',
      'collections_user_idx (user_id=? AND (created_at,id)<(?,?))',
      'collections_user_status_idx (user_id=? AND status=?)',
      'collections_user_status_idx (user_id=? AND status=? AND (created_at,id)<(?,?))',
      'bcards_user_deactivated_idx (user_id=? AND deactivated_at=?)',
      'bank_debits_user_idx (user_id=? AND status=?)',
      'bcards_collection_unique (collection_id=?)',
      // The parts read by id: the few collections named through bcards or bank_debits, never the user's whole history.
      'sqlite_autoindex_collections_1 (id=?)',
    ],
    sorts: {
      collection_shares: "one page's shares (an IN list of its collections), by position",
      collections:
        "the collections of the user's live bcards or of their bank debits in one state, read by id: few by nature (a bcard lives for a session, a debit settles in days)",
    },
  },
  {
    name: 'bcards list',
    run: async (w) => expectOk(await w.http('/api/virtual-cards', { cookie: w.consumer.cookie })),
    uses: ['bcards_user_idx (user_id=?)'],
    sorts: { collection_shares: "one page's shares (an IN list of its collections), by position" },
  },
  {
    name: 'payment intents list: first page, starting_after, ending_before, the dashboard',
    async run(w) {
      const [newest, , oldest] = w.intentIds.slice(-3).reverse();
      expectOk(await w.v1(w.live.secretKey, '/payment_intents?limit=2'));
      expectOk(await w.v1(w.live.secretKey, `/payment_intents?limit=2&starting_after=${newest}`));
      expectOk(await w.v1(w.live.secretKey, `/payment_intents?limit=2&ending_before=${oldest}`));
      expectOk(await w.http(`/api/merchants/${w.live.id}/payment_intents?limit=2`, { cookie: w.owner.cookie }));
    },
    uses: [
      'payment_intents_merchant_idx (merchant_id=? AND livemode=?)',
      'payment_intents_merchant_idx (merchant_id=? AND livemode=? AND seq<?)',
      'payment_intents_merchant_idx (merchant_id=? AND livemode=? AND seq>?)',
    ],
  },
  {
    // Issue 28: every filter (status, amount, metadata, OR) is checked on the rows of one walk down the merchant and
    // mode's intents, newest first: never the status index (the status would have to be sorted by seq) nor a table scan.
    name: 'payment intents search: a filter, its next page, OR, metadata and created',
    async run(w) {
      const q = (query: string, extra = '') => w.v1(w.live.secretKey, `/payment_intents/search?query=${encodeURIComponent(query)}&limit=1${extra}`);
      const first = expectOk(await q("status:'requires_payment_method'"));
      if (!first.body.next_page) throw new Error('no second page to read');
      expectOk(await q("status:'requires_payment_method'", `&page=${encodeURIComponent(first.body.next_page)}`));
      expectOk(await q("status:'succeeded' OR amount>=1002"));
      expectOk(await q("metadata['order']:'42' -metadata['gift']:null currency:'usd' created>0"));
      expectOk(await q("metadata['note']~'gift'"));
    },
    uses: [
      // The newest and oldest seq (the search's window, hostile review 28-H), from the index alone.
      'COVERING INDEX payment_intents_merchant_idx (merchant_id=? AND livemode=?)',
      // Every page reads one bounded window of seq (at most SEARCH_SCAN_ROWS intents).
      'payment_intents_merchant_idx (merchant_id=? AND livemode=? AND seq>? AND seq<?)',
    ],
  },
  {
    name: "payment intents count: the dashboard card's include[]=total_count counts from the index, never the table",
    run: async (w) => {
      const res = expectOk(await w.http(`/api/merchants/${w.live.id}/payment_intents?limit=1&include[]=total_count`, { cookie: w.owner.cookie }));
      if (res.body.total_count !== w.intentIds.length) throw new Error(`total_count ${res.body.total_count}, expected ${w.intentIds.length}`);
    },
    uses: ['USING COVERING INDEX payment_intents_merchant_idx (merchant_id=? AND livemode=?)'],
  },
  {
    name: 'payment intent create: the next seq and the event seq seek their index (merchant and mode)',
    run: async (w) => expectOk(await w.v1(w.sandbox.secretKey, '/payment_intents', { amount: 1000, currency: 'usd' })),
    uses: ['payment_intents_merchant_idx (merchant_id=? AND livemode=?)', 'events_merchant_idx (merchant_id=? AND livemode=?)'],
  },
  {
    name: 'payment intent confirm with card details (automatic) and a manual capture',
    async run(w) {
      const pay = expectOk(await w.v1(w.sandbox.secretKey, '/payment_intents', { amount: 1500, currency: 'usd' }));
      const card = await testBcardCard(w.ctx, w.sandbox.secretKey, 1500);
      expectOk(await w.v1(w.sandbox.secretKey, `/payment_intents/${pay.body.id}/confirm`, { payment_method_data: { type: 'card', card: card.card } }));
      const manual = expectOk(await w.v1(w.sandbox.secretKey, '/payment_intents', { amount: 900, currency: 'usd', capture_method: 'manual' }));
      const card2 = await testBcardCard(w.ctx, w.sandbox.secretKey, 900);
      expectOk(await w.v1(w.sandbox.secretKey, `/payment_intents/${manual.body.id}/confirm`, { payment_method_data: { type: 'card', card: card2.card } }));
      expectOk(await w.v1(w.sandbox.secretKey, `/payment_intents/${manual.body.id}/capture`, {}));
    },
    uses: ['bcards_vendor_card_idx (vendor_card_id=?)'],
    sorts: { collection_shares: "one collection's shares, by position" },
  },
  {
    name: 'events list: first page, starting_after, by type',
    async run(w) {
      const first = expectOk(await w.v1(w.sandbox.secretKey, '/events?limit=1'));
      expectOk(await w.v1(w.sandbox.secretKey, `/events?limit=1&starting_after=${first.body.data[0].id}`));
      expectOk(await w.v1(w.sandbox.secretKey, '/events?limit=1&type=payment_intent.succeeded'));
      expectOk(await w.http(`/api/merchants/${w.sandbox.id}/events?limit=1`, { cookie: w.owner.cookie }));
    },
    uses: [
      'events_merchant_idx (merchant_id=? AND livemode=?)',
      'events_merchant_idx (merchant_id=? AND livemode=? AND seq<?)',
      'events_merchant_type_idx (merchant_id=? AND livemode=? AND type=?)',
    ],
  },
  {
    name: 'webhook endpoints list: first page and starting_after',
    async run(w) {
      expectOk(await w.v1(w.sandbox.secretKey, '/webhook_endpoints?limit=1'));
      expectOk(await w.v1(w.sandbox.secretKey, `/webhook_endpoints?limit=1&starting_after=${w.endpointIds[1]}`));
    },
    uses: [
      'webhook_endpoints_merchant_idx (merchant_id=? AND livemode=?)',
      'webhook_endpoints_merchant_idx (merchant_id=? AND livemode=? AND (created_at,id)<(?,?))',
    ],
  },
  {
    name: 'webhook deliveries list: the merchant’s and one endpoint’s',
    async run(w) {
      const all = expectOk(await w.http(`/api/merchants/${w.sandbox.id}/webhook_deliveries?limit=5`, { cookie: w.owner.cookie }));
      if (all.body.data.length === 0) throw new Error('no deliveries to list');
      expectOk(await w.http(`/api/merchants/${w.sandbox.id}/webhook_deliveries?limit=5&endpoint_id=${w.endpointIds[0]}`, { cookie: w.owner.cookie }));
    },
    uses: ['webhook_deliveries_merchant_idx (merchant_id=? AND livemode=?)', 'webhook_deliveries_endpoint_idx (endpoint_id=?)'],
  },
  {
    name: 'webhook delivery detail: the delivery, its event and every attempt',
    async run(w) {
      const all = expectOk(await w.http(`/api/merchants/${w.sandbox.id}/webhook_deliveries?limit=1`, { cookie: w.owner.cookie }));
      const id = all.body.data[0]?.id;
      if (!id) throw new Error('no delivery to open');
      captured = [];
      expectOk(await w.http(`/api/merchants/${w.sandbox.id}/webhook_deliveries/${id}`, { cookie: w.owner.cookie }));
    },
    uses: ['webhook_attempts_delivery_idx (delivery_id=?)', 'sqlite_autoindex_webhook_deliveries_1 (id=?)', 'sqlite_autoindex_events_1 (id=?)'],
  },
  {
    name: 'the webhook worker: due deliveries',
    async run(w) {
      const deps = { ...w.deps, webhooks: { ...w.deps.webhooks, fetch: async () => new Response('ok') } };
      const run = await deliverDueWebhooks(deps);
      if (run.claimed === 0) throw new Error('no delivery was due');
    },
    uses: ['webhook_deliveries_due_idx (status=? AND next_attempt_at<?)'],
  },
  {
    name: 'the events stream: broadcasts after a seq',
    run: (w) => broadcastsAfter(w.db, w.sandbox.id, false, 0),
    uses: ['event_broadcasts_merchant_idx (merchant_id=? AND livemode=? AND seq>?)'],
  },
  {
    name: 'merchant list with total volume (a running figure)',
    run: async (w) => expectOk(await w.http('/api/merchants', { cookie: w.owner.cookie })),
    uses: ['merchants_user_idx (user_id=?)'],
  },
  {
    name: 'admin users: first page, next page, by role and its next page, by e-mail search',
    async run(w) {
      await adminPages(w, '/api/admin/users');
      await adminPages(w, '/api/admin/users?role=user');
      expectOk(await adminGet(w, '/api/admin/users?search=example'));
    },
    uses: ['users_role_idx (role=?)', 'users_role_idx (role=? AND (created_at,id)<(?,?))', 'users_created_idx ((created_at,id)<(?,?))', 'SCAN user_search VIRTUAL TABLE INDEX 0:M'],
    walks: ['users_created_idx'],
    sorts: { users: "a search's matches, at most SEARCH_MANY (500) rows by id (admin/search.ts); more are walked in order" },
    // Five pages, each the admin's token and the page; the search's matches one more.
    statements: 11,
  },
  {
    name: 'admin merchants: first page, next page, by environment and its next page, by search',
    async run(w) {
      await adminPages(w, '/api/admin/merchants');
      await adminPages(w, '/api/admin/merchants?environment=sandbox');
      expectOk(await adminGet(w, '/api/admin/merchants?search=acme'));
    },
    uses: [
      'merchants_environment_idx (environment=?)',
      'merchants_environment_idx (environment=? AND (created_at,id)<(?,?))',
      'merchants_created_idx ((created_at,id)<(?,?))',
      'SCAN merchant_search VIRTUAL TABLE INDEX 0:M',
    ],
    walks: ['merchants_created_idx'],
    sorts: { merchants: "a search's matches, at most SEARCH_MANY (500) rows by id (admin/search.ts); more are walked in order" },
    // Five pages, each the admin's token and the page; the search's matches one more.
    statements: 11,
  },
  {
    name: 'KYC verifications: the consumer’s own, the admin’s queue (first page, next page, by status and its next page)',
    async run(w) {
      expectOk(await w.http('/api/kyc/status', { cookie: w.consumer.cookie }));
      await adminPages(w, '/api/admin/kyc/verifications');
      await adminPages(w, '/api/admin/kyc/verifications?status=pending');
    },
    uses: [
      'kyc_verifications_user_idx (user_id=?)',
      'kyc_verifications_status_idx (status=?)',
      'kyc_verifications_status_idx (status=? AND (created_at,id)<(?,?))',
      'kyc_verifications_created_idx ((created_at,id)<(?,?))',
      'kyc_documents_verification_idx (verification_id=?)',
    ],
    walks: ['kyc_verifications_created_idx'],
  },
  {
    name: 'admin audit log',
    run: (w) => listAudit(w.db),
    uses: [],
    walks: ['audit_log_at_idx'],
  },
  {
    name: "refunds: one through the split, the merchant's list and one intent's, the consumer's transaction",
    async run(w) {
      const pi = expectOk(await w.v1(w.live.secretKey, '/payment_intents', { amount: 2000, currency: 'usd' }));
      const card = await bcardCard(w.ctx, w.consumer.cookie, w.sourceId, '20.00');
      expectOk(await w.v1(w.live.secretKey, `/payment_intents/${pi.body.id}/confirm`, { payment_method_data: { type: 'card', card: card.card } }));
      const refund = expectOk(await w.v1(w.live.secretKey, '/refunds', { payment_intent: pi.body.id, amount: 500 }));
      expectOk(await w.v1(w.live.secretKey, '/refunds', { payment_intent: pi.body.id, amount: 500 }));
      expectOk(await w.v1(w.live.secretKey, '/refunds?limit=1'));
      expectOk(await w.v1(w.live.secretKey, `/refunds?limit=1&starting_after=${refund.body.id}`));
      expectOk(await w.v1(w.live.secretKey, `/refunds?payment_intent=${pi.body.id}`));
      const [tx] = (await w.http('/api/transactions?limit=1', { cookie: w.consumer.cookie })).body;
      expectOk(await w.http(`/api/transactions/${tx.id}`, { cookie: w.consumer.cookie }));
    },
    uses: [
      'refunds_merchant_idx (merchant_id=? AND livemode=?)',
      'refunds_merchant_idx (merchant_id=? AND livemode=? AND seq<?)',
      'refunds_intent_idx (payment_intent_id=?)',
      'refund_parts_share_idx (share_id=?)',
    ],
    sorts: {
      collection_shares: "one collection's shares, by position",
      refund_parts: "one refund's parts (one per share of its collection), by position",
    },
  },
  {
    // Analytics and the Overview read the figures kept as money moves (spending/kept.ts): the owner's months, the
    // parts near the month edges at the viewer's offset, plan charges. Recent Activity reads the definition itself
    // (modules/spending), newest first.
    name: "spending (analytics, the Overview's summary, Recent Activity): the owner's kept months and edge parts, the latest bcards spent or ended with their refunds and returns, plan charges",
    async run(w) {
      const pi = expectOk(await w.v1(w.live.secretKey, '/payment_intents', { amount: 1500, currency: 'usd' }));
      const card = await bcardCard(w.ctx, w.consumer.cookie, w.sourceId, '15.00');
      expectOk(await w.v1(w.live.secretKey, `/payment_intents/${pi.body.id}/confirm`, { payment_method_data: { type: 'card', card: card.card } }));
      expectOk(await w.v1(w.live.secretKey, '/refunds', { payment_intent: pi.body.id, amount: 500 }));
      expectOk(await w.http('/api/analytics?months=12', { cookie: w.consumer.cookie }));
      expectOk(await w.http('/api/analytics?months=36&utcOffset=180', { cookie: w.consumer.cookie }));
      expectOk(await w.http('/api/analytics.csv?from=2025-01&to=2026-12&top=3', { cookie: w.consumer.cookie }));
      expectOk(await w.http('/api/transactions/summary', { cookie: w.consumer.cookie }));
      expectOk(await w.http('/api/spending/activity?limit=5', { cookie: w.consumer.cookie }));
    },
    uses: [
      'SEARCH spending_months USING PRIMARY KEY (user_id=? AND kind=? AND month>? AND month<?)',
      'SEARCH p USING PRIMARY KEY (user_id=? AND at>? AND at<?)',
      'bcards_user_deactivated_idx (user_id=? AND deactivated_at>? AND deactivated_at<?)',
      'payment_intents_bcard_unique (bcard_id=?)',
      'refunds_intent_idx (payment_intent_id=?)',
      'issuer_authorizations_bcard_idx (bcard_id=?)',
      'collection_shares_source_unique (collection_id=?)',
      'subscription_charges_user_idx (user_id=? AND created_at>? AND created_at<?)',
      'subscription_charges_user_idx (user_id=?)',
    ],
    sorts: {
      // The checkout and refund that set the world up.
      collection_shares: "one collection's shares, by position",
      refund_parts: "one refund's parts (one per share of its collection), by position",
    },
  },
  {
    name: 'the money sweep: stale authorizations and stuck intents',
    run: (w) => sweepMoney(w.deps),
    uses: ['payment_intents_status_idx (status=?)', 'payment_intents_status_idx (status=? AND updated_at<?)'],
  },
];

interface Captured {
  sql: string;
  params: unknown[];
}

interface PlanLine {
  detail: string;
}

let ctx: TestContext;
let world: World;
let captured: Captured[] = [];
let tables: Set<string>;
let explainer: Client;

beforeAll(async () => {
  ctx = await makeTestApp();
  const db = drizzle(ctx.handle.client, { schema, logger: { logQuery: (sql, params) => void captured.push({ sql, params }) } });
  const deps: AppDeps = { ...ctx.deps, db, readDb: db };
  const app = createApp(deps);
  const base = await merchantWorld(ctx);
  await makeAdmin(ctx);
  const token = await adminToken(ctx);
  const logged = { ...ctx, app };
  world = {
    ...base,
    ctx,
    app,
    deps,
    db,
    adminToken: token,
    endpointIds: [],
    intentIds: [],
    http: (path, opts) => {
      resetRateWindows();
      return call(logged, path, opts);
    },
    v1: (key, path, body) => {
      resetRateWindows();
      return merchantCall(logged, key, path, body === undefined ? {} : { method: 'POST', body });
    },
  } as World;

  // A little of everything the lists show. Plans do not depend on how much (no statistics), only on there being rows
  // for the cursors to point at.
  for (const amount of ['10.00', '20.00', '30.00']) await bcardCard(ctx, base.consumer.cookie, base.sourceId, amount);
  for (let i = 0; i < 4; i++) {
    resetRateWindows();
    const res = await merchantCall(ctx, base.live.secretKey, '/payment_intents', { method: 'POST', body: { amount: 1000 + i, currency: 'usd' } });
    world.intentIds.push(res.body.id);
  }
  for (let i = 0; i < 3; i++) {
    const res = await merchantCall(ctx, base.sandbox.secretKey, '/webhook_endpoints', {
      method: 'POST',
      body: { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] },
    });
    if (res.status !== 200) throw new Error(`endpoint: ${res.status} ${res.text}`);
    world.endpointIds.push(res.body.id);
  }
  for (let i = 0; i < 3; i++) {
    resetRateWindows();
    const pi = await merchantCall(ctx, base.sandbox.secretKey, '/payment_intents', { method: 'POST', body: { amount: 700 + i, currency: 'usd' } });
    const card = await testBcardCard(ctx, base.sandbox.secretKey, 700 + i);
    await merchantCall(ctx, base.sandbox.secretKey, `/payment_intents/${pi.body.id}/confirm`, {
      method: 'POST',
      body: { payment_method_data: { type: 'card', card: card.card } },
    });
  }
  // Two of each for the admin lists' cursor pages: verifications (pending) and sandbox merchants.
  await submitKyc(ctx, base.consumer.cookie);
  await submitKyc(ctx, base.consumer.cookie);
  await createMerchant(ctx, base.owner.cookie, 'sandbox');
  explainer = createClient({ url: `file:${join(ctx.dir, 'test.db')}` });
  tables = new Set(
    (await ctx.handle.client.execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows.map((r) => String(r.name)),
  );
}, 60_000);
afterAll(() => {
  explainer.close();
  ctx.close();
});

const DML = /^\s*(select|insert|update|delete|with)\b/i;

async function planOf(c: Captured): Promise<string[]> {
  // On a connection of its own, outside the app's write path: EXPLAIN only prepares the statement, it never runs it.
  const res = await explainer.execute({ sql: `EXPLAIN QUERY PLAN ${c.sql}`, args: c.params as InArgs });
  return res.rows.map((r) => String((r as unknown as PlanLine).detail));
}

/** What is wrong with one statement's plan under the case's allowances. */
function planProblems(lines: string[], allow: Pick<PlanCase, 'walks' | 'sorts'>, isTable: (name: string) => boolean): string[] {
  const problems: string[] = [];
  for (const line of lines) {
    const scan = /^SCAN (\S+)(?: USING (?:COVERING )?INDEX (\S+))?/.exec(line);
    // An FTS5 MATCH (the idxStr of a full-text query starts with M) is the full-text index's own seek.
    const fullText = / VIRTUAL TABLE INDEX \d+:M/.test(line);
    if (scan && !fullText && isTable(scan[1]!) && !SMALL_TABLES.has(scan[1]!)) {
      const index = scan[2];
      if (!index) problems.push(`full table scan: ${line}`);
      else if (!(allow.walks ?? []).includes(index)) problems.push(`whole index walk: ${line}`);
    }
    if (/AUTOMATIC .*INDEX/.test(line)) problems.push(`automatic index (a full read every time): ${line}`);
    if (/USE TEMP B-TREE FOR .*ORDER BY/.test(line) && !sortAllowed(lines, allow.sorts)) problems.push(`sort for ORDER BY: ${line}`);
  }
  return problems;
}

/** A sort is allowed when the statement's outer loop reads a table the case lets sort (the rows it sorts are that table's). */
function sortAllowed(lines: string[], sorts: PlanCase['sorts']): boolean {
  const outer = lines.map((l) => /^(?:SEARCH|SCAN) (\S+)/.exec(l)?.[1]).find((t) => t !== undefined);
  return outer !== undefined && sorts !== undefined && outer in sorts;
}

describe('query plans of the lists and hot paths', () => {
  for (const c of CASES) {
    test(c.name, async () => {
      captured = [];
      await c.run(world);
      const statements = captured.filter((s) => DML.test(s.sql));
      expect(statements.length).toBeGreaterThan(0);
      const problems: string[] = [];
      const seen: string[] = [];
      for (const s of statements) {
        const lines = await planOf(s);
        seen.push(...lines);
        for (const p of planProblems(lines, c, (name) => tables.has(name))) problems.push(`${p}\n    in: ${s.sql}`);
      }
      expect(problems).toEqual([]);
      const missing = c.uses.filter((u) => !seen.some((line) => line.includes(u)));
      expect(missing).toEqual([]);
      if (c.statements !== undefined) expect(statements.length, statements.map((s) => s.sql.slice(0, 80)).join('\n')).toBe(c.statements);
    }, 30_000);
  }
});

describe('the plan check itself', () => {
  const isTable = (name: string) => ['users', 'collections', 'collection_shares', 'subscription_tiers'].includes(name);
  test.each([
    ['a full scan of a big table', ['SCAN users'], {}, 1],
    ['a full scan of a table bounded by configuration', ['SCAN subscription_tiers'], {}, 0],
    ['a subquery or constant rows are no table', ['SCAN per_payment', 'SCAN 3 CONSTANT ROWS'], {}, 0],
    ['an index walk nobody named', ['SCAN users USING INDEX users_created_idx'], {}, 1],
    ['an index walk the case names', ['SCAN users USING INDEX users_created_idx'], { walks: ['users_created_idx'] }, 0],
    ['a sort for ORDER BY', ['SEARCH collections USING INDEX collections_user_idx (user_id=?)', 'USE TEMP B-TREE FOR ORDER BY'], {}, 1],
    ['a partial sort for ORDER BY', ['SEARCH collections USING INDEX collections_user_idx (user_id=?)', 'USE TEMP B-TREE FOR RIGHT PART OF ORDER BY'], {}, 1],
    [
      'a sort of a table the case allows',
      ['SEARCH collection_shares USING INDEX collection_shares_source_unique (collection_id=?)', 'USE TEMP B-TREE FOR ORDER BY'],
      { sorts: { collection_shares: 'bounded' } },
      0,
    ],
    [
      'a sort of another table than the one allowed',
      ['SEARCH collections USING INDEX collections_user_idx (user_id=?)', 'USE TEMP B-TREE FOR ORDER BY'],
      { sorts: { collection_shares: 'bounded' } },
      1,
    ],
    ['an automatic index', ['SEARCH users USING AUTOMATIC COVERING INDEX (role=?)'], {}, 1],
    ['an index search', ['SEARCH users USING INDEX users_role_idx (role=?)'], {}, 0],
  ] as const)('%s', (_name, lines, allow, expected) => {
    expect(planProblems([...lines], allow as Pick<PlanCase, 'walks' | 'sorts'>, isTable)).toHaveLength(expected);
  });
});
