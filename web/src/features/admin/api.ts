import { infiniteQueryOptions, queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, createApiClient, unwrap, unwrapWithHeaders, type ApiAnswer, type ApiBody, type ApiQuery } from '../../lib/api';
import { clearAdminToken, getAdminToken } from './session';

/*
 * The admin panel's calls. Every shape is read from the OpenAPI types the server's routes generate
 * (sdk/src/schema.d.ts), never written by hand: a renamed field breaks this feature's typecheck.
 */

export type AdminLoginBody = ApiBody<'/api/admin/auth/login'>;
export type AdminLoginAnswer = ApiAnswer<'/api/admin/auth/login', 'post'>;

export type AdminUser = ApiAnswer<'/api/admin/users'>[number];
export type UserRole = AdminUser['role'];
/** The roles a user can be given (admins are separate accounts, never a user's role). */
export type AssignableRole = ApiBody<'/api/admin/users/{id}', 'patch'>['role'];

export type AdminTier = ApiAnswer<'/api/admin/subscription-tiers'>[number];
export type TierLimits = AdminTier['limits'];
export type TierFeature = AdminTier['features'][number];
/** What the tier form sends: every field, for a new tier and an edit alike. */
export type TierBody = ApiBody<'/api/admin/subscription-tiers'>;

export type MerchantEnvironment = NonNullable<ApiQuery<'/api/admin/merchants'>['environment']>;

export type KycVerification = ApiAnswer<'/api/admin/kyc/verifications'>[number];
export type KycStatus = KycVerification['status'];
export type KycDocument = KycVerification['documents'][number];
export type KycDecision = ApiBody<'/api/admin/kyc/verifications/{id}', 'patch'>;

export type VendorConfig = ApiAnswer<'/api/admin/vendors'>;
export type VendorMode = VendorConfig['mode'];
export type VendorModeConfig = VendorConfig['test'];
export type VendorFeature = keyof VendorConfig['features'];
export type VendorKeysBody = ApiBody<'/api/admin/vendors/{mode}', 'put'>;
export type ConnectionTest = ApiAnswer<'/api/admin/vendors/test-connection', 'post'>;

export type EmailOutbox = ApiAnswer<'/api/email-outbox'>;

/*
 * The admin client: the web's typed client plus the admin token. Its calls carry the token as a Bearer header and
 * no cookies (the shared rules send none to /api/admin/*): a consumer session never travels with an admin call
 * (docs/DECISIONS.md, Admin panel). Any 401 means the token is gone (expired, revoked, locked out): it is cleared
 * here, before the shared rules throw the ApiError, and the panel then sends the visitor to /admin-login.
 */
export const adminApi = createApiClient();
adminApi.use({
  onRequest({ request, options }) {
    const token = getAdminToken();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    // A document's bytes are not JSON: ask for whatever type it has.
    if (options.parseAs === 'blob') request.headers.set('accept', '*/*');
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) clearAdminToken();
    return undefined;
  },
});

/** The header a paged admin list answers its next page's cursor in (absent on the last page). */
export const NEXT_CURSOR_HEADER = 'bpay-next-cursor';

export interface AdminPage<T> {
  items: T[];
  nextCursor: string | null;
}

/** One page of a paged admin list, with the cursor of the next one from the answer's header. */
async function pageOf<T>(pending: Promise<{ data?: T[]; error?: unknown; response: Response }>): Promise<AdminPage<T>> {
  const { data, headers } = await unwrapWithHeaders(pending);
  return { items: data ?? [], nextCursor: headers.get(NEXT_CURSOR_HEADER) || null };
}

/** The cursor as a query parameter: none for the first page. */
const cursorParam = (cursor: string | null) => (cursor ? { cursor } : {});

/**
 * A paged admin list for useInfiniteQuery ("Load more"): the server's default page size, each next page named by the
 * last one's cursor. The filters are part of the key, so changing one starts again from the first page.
 */
function adminPagesQuery<T, K extends readonly unknown[]>(queryKey: K, page: (cursor: string | null) => Promise<AdminPage<T>>) {
  return infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam }) => page(pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}

export const ADMIN_KEY = ['admin'] as const;

/** Signing in sends no token (and a refused sign-in clears none): it is a plain call of the shared client. */
export function adminLogin(body: AdminLoginBody): Promise<AdminLoginAnswer> {
  return unwrap(api.POST('/api/admin/auth/login', { body }));
}

export function adminLogout() {
  return unwrap(adminApi.POST('/api/admin/auth/logout'));
}

export function adminSessionQuery(token: string | null) {
  return queryOptions({
    queryKey: [...ADMIN_KEY, 'session', token] as const,
    queryFn: () => unwrap(adminApi.GET('/api/admin/auth/verify')),
    enabled: token !== null,
    retry: false,
    staleTime: 60_000,
  });
}

export function adminDashboardQuery() {
  return queryOptions({
    queryKey: [...ADMIN_KEY, 'dashboard'] as const,
    queryFn: () => unwrap(adminApi.GET('/api/admin/dashboard')),
  });
}

export const USERS_KEY = [...ADMIN_KEY, 'users'] as const;
/** The server's shortest search (api/src/modules/admin/search.ts): a shorter one is not sent, the list stays whole. */
export const SEARCH_MIN_CHARS = 3;
/** The search a list sends: the trimmed text when it is long enough, else none. */
export const effectiveSearch = (search: string) => ([...search.trim()].length >= SEARCH_MIN_CHARS ? search.trim() : '');
/** Typed, but too short to search yet. */
export const searchTooShort = (search: string) => search.trim() !== '' && effectiveSearch(search) === '';

export function adminUsersQuery(search: string, role: UserRole | 'all') {
  const filters: ApiQuery<'/api/admin/users'> = {};
  if (effectiveSearch(search)) filters.search = effectiveSearch(search);
  if (role !== 'all') filters.role = role;
  return adminPagesQuery([...USERS_KEY, effectiveSearch(search), role] as const, (cursor) =>
    pageOf(adminApi.GET('/api/admin/users', { params: { query: { ...filters, ...cursorParam(cursor) } } })),
  );
}

export function updateUserRole(id: string, role: AssignableRole) {
  return unwrap(adminApi.PATCH('/api/admin/users/{id}', { params: { path: { id } }, body: { role } }));
}

/** `timing` only for a user paying for a running period (AdminUser.planPeriodEnd ahead): at its end, or now with a refund. */
export function changeUserSubscription(userId: string, tierId: string, timing?: 'period_end' | 'now_with_refund') {
  return unwrap(
    adminApi.PATCH('/api/admin/users/{id}/subscription', { params: { path: { id: userId } }, body: timing ? { tierId, timing } : { tierId } }),
  );
}

export const TIERS_KEY = [...ADMIN_KEY, 'subscription-tiers'] as const;
export function adminTiersQuery() {
  return queryOptions({
    queryKey: TIERS_KEY,
    queryFn: () => unwrap(adminApi.GET('/api/admin/subscription-tiers')),
  });
}

/**
 * Puts a tier the server just answered with into the cached list (replacing the one with its id, or adding it), so
 * the next click on its card works on what the server holds, not on the list read before the change.
 */
export function keepTier(qc: QueryClient, tier: AdminTier) {
  qc.setQueryData(TIERS_KEY, (list: AdminTier[] | undefined) =>
    list === undefined ? list : list.some((t) => t.id === tier.id) ? list.map((t) => (t.id === tier.id ? tier : t)) : [...list, tier],
  );
  void qc.invalidateQueries({ queryKey: TIERS_KEY });
}

export function createTier(body: TierBody) {
  return unwrap(adminApi.POST('/api/admin/subscription-tiers', { body }));
}
export function updateTier(id: string, body: TierBody) {
  return unwrap(adminApi.PATCH('/api/admin/subscription-tiers/{id}', { params: { path: { id } }, body }));
}
export function toggleTier(id: string) {
  return unwrap(adminApi.PATCH('/api/admin/subscription-tiers/{id}/toggle', { params: { path: { id } } }));
}
export function deleteTier(id: string) {
  return unwrap(adminApi.DELETE('/api/admin/subscription-tiers/{id}', { params: { path: { id } } }));
}

export const USER_SUBSCRIPTIONS_KEY = [...ADMIN_KEY, 'user-subscriptions'] as const;
export function userSubscriptionsQuery() {
  return queryOptions({
    queryKey: USER_SUBSCRIPTIONS_KEY,
    queryFn: () => unwrap(adminApi.GET('/api/admin/user-subscriptions')),
  });
}

export function subscriptionAnalyticsQuery() {
  return queryOptions({
    queryKey: [...ADMIN_KEY, 'subscription-analytics'] as const,
    queryFn: () => unwrap(adminApi.GET('/api/admin/subscription-analytics')),
  });
}

export const RECEIVABLES_KEY = [...ADMIN_KEY, 'receivables'] as const;
/** Users who owe bpay (returned bank debits after use, disputed shares), a page at a time. */
export function adminReceivablesQuery() {
  return adminPagesQuery(RECEIVABLES_KEY, (cursor) => pageOf(adminApi.GET('/api/admin/receivables', { params: { query: { ...cursorParam(cursor) } } })));
}
export type AdminReceivable = ApiAnswer<'/api/admin/receivables'>[number];

/** Forgives `amount` of what a user owes, with the reason the user is told (audited). */
export function waiveReceivable(userId: string, body: { amount: string; reason: string }) {
  return unwrap(adminApi.POST('/api/admin/users/{id}/receivable/waive', { params: { path: { id: userId } }, body }));
}

export const PAYABLES_KEY = [...ADMIN_KEY, 'payables'] as const;
/** Users bpay owes (refunds the processor failed, money due back after a debt was settled), a page at a time. */
export function adminPayablesQuery() {
  return adminPagesQuery(PAYABLES_KEY, (cursor) => pageOf(adminApi.GET('/api/admin/payables', { params: { query: { ...cursorParam(cursor) } } })));
}
export type AdminPayable = ApiAnswer<'/api/admin/payables'>[number];
export type SettlePayableBody = ApiBody<'/api/admin/users/{id}/payable/settle'>;

/**
 * Records that bpay paid a user what it owes them another way (audited, the user told). `idempotencyKey`: one per
 * dialog, so a double click or a retry of the same attempt pays out once.
 */
export function settlePayable(userId: string, body: SettlePayableBody, idempotencyKey: string) {
  return unwrap(
    adminApi.POST('/api/admin/users/{id}/payable/settle', { params: { path: { id: userId }, header: { 'idempotency-key': idempotencyKey } }, body }),
  );
}

/** Merchants by search (business name or e-mail, owner's name) and environment, filtered by the server so every page keeps them. */
export function adminMerchantsQuery(search: string, environment: 'all' | MerchantEnvironment) {
  const filters: ApiQuery<'/api/admin/merchants'> = {};
  if (effectiveSearch(search)) filters.search = effectiveSearch(search);
  if (environment !== 'all') filters.environment = environment;
  return adminPagesQuery([...ADMIN_KEY, 'merchants', effectiveSearch(search), environment] as const, (cursor) =>
    pageOf(adminApi.GET('/api/admin/merchants', { params: { query: { ...filters, ...cursorParam(cursor) } } })),
  );
}

export function adminAnalyticsQuery() {
  return queryOptions({
    queryKey: [...ADMIN_KEY, 'analytics'] as const,
    queryFn: () => unwrap(adminApi.GET('/api/admin/analytics')),
  });
}

export const KYC_KEY = [...ADMIN_KEY, 'kyc'] as const;
export function kycOverviewQuery() {
  return queryOptions({
    queryKey: [...KYC_KEY, 'dashboard'] as const,
    queryFn: () => unwrap(adminApi.GET('/api/admin/kyc/dashboard')),
  });
}

export function kycVerificationsQuery(status: KycStatus | 'all') {
  const filters: ApiQuery<'/api/admin/kyc/verifications'> = status === 'all' ? {} : { status };
  return adminPagesQuery([...KYC_KEY, 'verifications', status] as const, (cursor) =>
    pageOf(adminApi.GET('/api/admin/kyc/verifications', { params: { query: { ...filters, ...cursorParam(cursor) } } })),
  );
}

export function updateVerification(id: string, body: KycDecision) {
  return unwrap(adminApi.PATCH('/api/admin/kyc/verifications/{id}', { params: { path: { id } }, body }));
}

/** A verification document's bytes, read with the Bearer token (an <img src> could not send it). */
export function fetchKycDocument(id: string): Promise<Blob> {
  return unwrap(adminApi.GET('/api/admin/kyc/documents/{id}', { params: { path: { id } }, parseAs: 'blob' }));
}

export const VENDORS_KEY = [...ADMIN_KEY, 'vendors'] as const;
export function vendorsQuery() {
  return queryOptions({
    queryKey: VENDORS_KEY,
    queryFn: () => unwrap(adminApi.GET('/api/admin/vendors')),
  });
}

export function saveVendorKeys(mode: VendorMode, body: VendorKeysBody) {
  return unwrap(adminApi.PUT('/api/admin/vendors/{mode}', { params: { path: { mode } }, body }));
}

export function saveVendorSettings(mode: VendorMode, features: Record<VendorFeature, boolean>) {
  return unwrap(adminApi.PATCH('/api/admin/vendors', { body: { mode, features } }));
}

/** Checks the saved keys of `mode`: the mode the page shows, which may not be the saved active one yet. */
export function testVendorConnection(mode: VendorMode): Promise<ConnectionTest> {
  return unwrap(adminApi.POST('/api/admin/vendors/test-connection', { body: { mode } }));
}

/**
 * /email-outbox: the server lets an admin token from this tab read it, or a local install's own browser (with its
 * cookies, as any page's call). A refusal is the page's to show: a 401 here does not sign the admin out.
 */
export function emailOutboxQuery(token: string | null) {
  return queryOptions({
    queryKey: ['/api/email-outbox', token] as const,
    queryFn: () => unwrap(api.GET('/api/email-outbox', token ? { headers: { authorization: `Bearer ${token}` } } : {})),
    retry: false,
  });
}
