import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { NEXT_CURSOR_HEADER } from '../../lib/cursor';
import { clientAddress } from '../../lib/request-context';
import { errors, sharedModels } from '../../models';
import { adminAuthPlugin } from '../../plugins/admin-auth';
import type { AdminPrincipal } from './auth-service';
import { adminAnalytics, adminDashboard, subscriptionAnalytics } from './figures';
import { listAllMerchants } from './merchants';
import {
  AdminMerchantModel,
  AdminTierModel,
  AdminUserModel,
  AnalyticsModel,
  ConnectionTestBody,
  ConnectionTestModel,
  DashboardModel,
  IdParams,
  MerchantsQuery,
  SubscriptionAnalyticsModel,
  SubscriptionPatchBody,
  TierCreateBody,
  TierDeletedModel,
  TierPatchBody,
  UserPatchBody,
  UsersQuery,
  UserSubscriptionModel,
  VendorConfigModel,
  VendorCredentialsBody,
  VendorModeParams,
  VendorSettingsBody,
} from './model';
import { createTier, deleteTier, listTiers, toggleTier, updateTier } from './tiers';
import { changeUserSubscription } from './plan-change';
import {
  ADMIN_PAGE_DEFAULT,
  ADMIN_PAGE_MAX,
  adminPageLimit,
  listUserSubscriptions,
  listUsers,
  setUserRole,
  type AdminActor,
  type AdminPage,
} from './users';
import { getVendorConfig, putVendorCredentials, testVendorConnection, updateVendorSettings } from './vendors';

export const ADMIN_SECURITY = [{ adminToken: [] }];

/** How every paged admin list documents its paging. */
export const PAGE_DOC =
  `${ADMIN_PAGE_DEFAULT} rows by default (limit: 1 to ${ADMIN_PAGE_MAX}). When more exist, the ${NEXT_CURSOR_HEADER} ` +
  'header holds the cursor for the next page; filters apply to every page.';

/** Answers a page's rows, with its next cursor in the header when there is one. */
export function sendPage<T>(page: AdminPage<T>, headers: Record<string, unknown>): T[] {
  if (page.nextCursor) headers[NEXT_CURSOR_HEADER] = page.nextCursor;
  return page.data;
}

/** The back office API. Every route needs an admin token (`admin: true`); every write is audited by its service. */
export function adminRoutes(deps: AppDeps) {
  const actor = (admin: AdminPrincipal, request: Request): AdminActor => ({
    adminId: admin.id,
    ip: clientAddress(request, deps.trustProxy),
  });
  const doc = (summary: string, description?: string) => ({
    summary,
    ...(description ? { description } : {}),
    security: ADMIN_SECURITY,
  });

  return new Elysia({ prefix: '/api/admin', tags: ['Admin'] })
    .use(sharedModels)
    .use(adminAuthPlugin(deps))
    .get('/dashboard', () => adminDashboard(deps.db, deps.clock), {
      admin: true,
      response: { 200: DashboardModel, ...errors(401) },
      detail: doc(
        'Dashboard figures',
        'Computed from the database on each call. Money in dollars. revenue.subscriptions is every plan charge ' +
          'collected (ledger account bpay:subscriptions), revenue.fees the fees in bpay:fees, revenue.total both. fundingPool.balance is what is left ' +
          'on active bcards: bpay holds no funds of its own.',
      ),
    })
    .get('/analytics', () => adminAnalytics(deps.readDb, deps.clock), {
      admin: true,
      response: { 200: AnalyticsModel, ...errors(401) },
      detail: doc('Analytics tab charts', 'Daily series cover the last 30 UTC days, today included, every day present.'),
    })
    .get(
      '/users',
      async ({ query, set }) => {
        const page = await listUsers(deps.readDb, { ...query, limit: adminPageLimit(query.limit) });
        return sendPage(page, set.headers);
      },
      {
        admin: true,
        query: UsersQuery,
        response: { 200: t.Array(AdminUserModel), ...errors(400, 401) },
        detail: doc('Users, newest first, a page at a time, by search (name or e-mail) and role', PAGE_DOC),
      },
    )
    .patch('/users/:id', ({ admin, request, params, body }) => setUserRole(deps.db, deps.clock, actor(admin, request), params.id, body.role), {
      admin: true,
      params: IdParams,
      body: UserPatchBody,
      parse: 'json',
      response: { 200: AdminUserModel, ...errors(400, 401, 404, 415) },
      detail: doc(
        "Change a user's role",
        'user or merchant. admin is refused (400 validation_error, param role): admins are separate accounts, ' +
          'added with `bun run admin:create`; a user whose row already says admin can be moved to user or merchant.',
      ),
    })
    .patch(
      '/users/:id/subscription',
      ({ admin, request, params, body }) =>
        changeUserSubscription(deps, actor(admin, request), params.id, body.tierId, body.timing),
      {
        admin: true,
        params: IdParams,
        body: SubscriptionPatchBody,
        parse: 'json',
        response: { 200: UserSubscriptionModel, ...errors(400, 401, 404, 409, 415) },
        detail: doc(
          "Move a user to another tier",
          'Active tiers only (400 tier_inactive). A user not paying for a running period (Free, a plan an admin gave) ' +
            'moves now: the current subscription ends and a new one (not billed) starts in one transaction. A paying ' +
            'user (billed: true) needs timing: period_end schedules the move for the period end (not to a dearer plan, ' +
            'which the renewal would bill without the user choosing it: 400; no money moves; the ' +
            "renewal then charges the new plan's price, or nothing for a free one); now_with_refund moves now and refunds " +
            "the current plan's unused part (price × remaining / period, in ms, rounded half up to cents) to the card it " +
            'was paid with. now_with_refund for a user not paying: 400 proration_not_paid. A plan payment or refund ' +
            'still running: 409 plan_change_in_progress. Audited with the admin id.',
        ),
      },
    )
    .get('/subscription-tiers', () => listTiers(deps.db), {
      admin: true,
      response: { 200: t.Array(AdminTierModel), ...errors(401) },
      detail: doc(
        'Every tier, active or not',
        'Every subscription tier with its price, fee rate, limits and features, inactive ones included (GET ' +
          '/api/subscription/tiers shows consumers only the active ones). Admins only; read only.',
      ),
    })
    .post(
      '/subscription-tiers',
      async ({ admin, request, body, set }) => {
        const tier = await createTier(deps.db, deps.clock, actor(admin, request), body);
        set.status = 201;
        return tier;
      },
      {
        admin: true,
        body: TierCreateBody,
        parse: 'json',
        response: { 201: AdminTierModel, ...errors(400, 401, 409, 415) },
        detail: doc(
          'Create a tier',
          'Defaults: limits fundingSources 5, monthlyTransactions 100, apiCallsPerMonth 1000, bcardGenerationLimit 10; ' +
            'transactionFeeRate 0.029; active. monthlyPrice in dollars (at most 2 decimals), transactionFeeRate a ' +
            'fraction in steps of 0.0001 (the fee is stored in whole basis points: a percent with at most 2 decimals); ' +
            'a limit of 0 or -1 is unlimited.',
        ),
      },
    )
    .patch(
      '/subscription-tiers/:id',
      ({ admin, request, params, body }) => updateTier(deps.db, deps.clock, actor(admin, request), params.id, body),
      {
        admin: true,
        params: IdParams,
        body: TierPatchBody,
        parse: 'json',
        response: { 200: AdminTierModel, ...errors(400, 401, 404, 409, 415) },
        detail: doc(
          'Edit a tier (fields left out are unchanged)',
          'The free plan, where new accounts start, cannot be deactivated or renamed (409 tier_is_default).',
        ),
      },
    )
    .patch(
      '/subscription-tiers/:id/toggle',
      ({ admin, request, params }) => toggleTier(deps.db, deps.clock, actor(admin, request), params.id),
      {
        admin: true,
        params: IdParams,
        response: { 200: AdminTierModel, ...errors(401, 404, 409) },
        detail: doc(
          'Activate or deactivate a tier',
          'Users already on a deactivated tier keep it. One statement flips the flag, so concurrent toggles each count. ' +
            'The free plan, where new accounts start, cannot be deactivated (409 tier_is_default).',
        ),
      },
    )
    .delete(
      '/subscription-tiers/:id',
      ({ admin, request, params }) => deleteTier(deps.db, deps.clock, actor(admin, request), params.id),
      {
        admin: true,
        params: IdParams,
        response: { 200: TierDeletedModel, ...errors(401, 404, 409) },
        detail: doc(
          'Delete a tier',
          'Only an inactive tier that no user subscription (active or ended) references (else 409 tier_in_use with a ' +
            'message for the panel), and never the free plan, where new accounts start (409 tier_is_default).',
        ),
      },
    )
    .get('/user-subscriptions', () => listUserSubscriptions(deps.db, deps.clock), {
      admin: true,
      response: { 200: t.Array(UserSubscriptionModel), ...errors(401) },
      detail: doc(
        'Active subscriptions with their user and tier',
        'Every active subscription with its user and tier, whether a paid period is running (billed), and the ' +
          'tier a scheduled change moves to. Admins only; read only.',
      ),
    })
    .get('/subscription-analytics', () => subscriptionAnalytics(deps.readDb, deps.clock), {
      admin: true,
      response: { 200: SubscriptionAnalyticsModel, ...errors(401) },
      detail: doc(
        'Paying subscribers and revenue per tier',
        'count: active subscriptions with a paid period (on a free tier: every active one; a plan an admin gave without ' +
          'payment is not counted). monthlyRevenue: succeeded plan charges of the tier this UTC calendar month, less ' +
          'the plan refunds of its charges this month. totalSubscriptionRevenue: every succeeded plan charge less the refunds.',
      ),
    })
    .get(
      '/merchants',
      async ({ query, set }) => {
        const page = await listAllMerchants(deps, { ...query, limit: adminPageLimit(query.limit) });
        return sendPage(page, set.headers);
      },
      {
        admin: true,
        query: MerchantsQuery,
        response: { 200: t.Array(AdminMerchantModel), ...errors(400, 401) },
        detail: doc('Merchants with their owner, newest first, a page at a time, by search and environment', PAGE_DOC),
      },
    )
    .get('/vendors', async () => ({ ...(await getVendorConfig(deps.db)), inUse: deps.vendorInUse }), {
      admin: true,
      response: { 200: VendorConfigModel, ...errors(401) },
      detail: doc('Payment-vendor configuration', 'Secrets are write-only: only whether each is set and its last 4 characters.'),
    })
    .put(
      '/vendors/:mode',
      async ({ admin, request, params, body }) => ({
        ...(await putVendorCredentials(deps.db, deps.clock, deps.vendorKey, actor(admin, request), params.mode, body)),
        inUse: deps.vendorInUse,
      }),
      {
        admin: true,
        params: VendorModeParams,
        body: VendorCredentialsBody,
        parse: 'json',
        response: { 200: VendorConfigModel, ...errors(400, 401, 415) },
        detail: doc(
          "Set a mode's Stripe credentials",
          'Secrets are sealed with AES-GCM at rest and never returned. Fields left out are unchanged; null clears one.',
        ),
      },
    )
    .patch('/vendors', async ({ admin, request, body }) => ({ ...(await updateVendorSettings(deps.db, deps.clock, actor(admin, request), body)), inUse: deps.vendorInUse }), {
      admin: true,
      body: VendorSettingsBody,
      parse: 'json',
      response: { 200: VendorConfigModel, ...errors(400, 401, 415) },
      detail: doc(
        'Switch the vendor mode (test/live) and features',
        "The server uses the active mode's Stripe secret key from its next start, unless BPAY_STRIPE_SECRET_KEY is set (the environment wins).",
      ),
    })
    .post(
      '/vendors/test-connection',
      ({ admin, request, body }) =>
        testVendorConnection(deps.db, deps.clock, deps.vendorKey, deps.checkStripe, actor(admin, request), deps.vendorInUse, body?.mode),
      {
        admin: true,
        body: ConnectionTestBody,
        parse: 'json',
        response: { 200: ConnectionTestModel, ...errors(400, 401, 415) },
        detail: doc(
          "Check a mode's saved Stripe secret key",
          'The mode is the body\'s `mode` (what the panel shows, saved or not), else the saved active mode; the answer ' +
            'names the mode it checked. A read-only call (balance). With no key saved for that mode while the server ' +
            "runs the built-in simulated processor: ok, provider 'simulated' (it needs no credentials). 400 " +
            "vendor_secret_missing ('No secret key configured for current mode') when Stripe is in use and the mode has no key.",
        ),
      },
    );
}
