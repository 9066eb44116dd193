import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { ApiError, apiBlob, apiRequest, apiRequestWithHeaders } from '../../lib/api';
import { clearAdminToken, getAdminToken } from './session';
import type {
  AdminAnalytics,
  AdminDashboard,
  AdminMerchant,
  AdminSession,
  AdminTier,
  AdminUser,
  AdminUserSubscription,
  KycOverview,
  KycStatus,
  KycVerification,
  SubscriptionAnalytics,
  TierBody,
  UserRole,
  VendorConfig,
  VendorFeature,
  VendorMode,
} from './types';

/*
 * Admin calls go through the shared fetch helper with the token as a Bearer header and without cookies: a
 * consumer session never travels with an admin call (docs/DECISIONS.md, Admin panel). Any 401 means the token
 * is gone (expired, revoked, locked out): it is cleared, and the panel then sends the visitor to /admin-login.
 */
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

function authHeaders(): Record<string, string> {
  const token = getAdminToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

function onAuthFailure(e: unknown): never {
  if (e instanceof ApiError && e.status === 401) clearAdminToken();
  throw e;
}

export async function adminRequest<T>(method: Method, path: string, body?: unknown): Promise<T> {
  try {
    return await apiRequest<T>(method, path, body, { credentials: 'omit' }, authHeaders());
  } catch (e) {
    return onAuthFailure(e);
  }
}

/** The header a paged admin list answers its next page's cursor in (absent on the last page). */
export const NEXT_CURSOR_HEADER = 'bpay-next-cursor';

export interface AdminPage<T> {
  items: T[];
  nextCursor: string | null;
}

/** One page of a paged admin list: `params` are its filters, `cursor` the previous page's header (null first). */
export async function adminPage<T>(path: string, params: URLSearchParams, cursor: string | null): Promise<AdminPage<T>> {
  const q = new URLSearchParams(params);
  if (cursor) q.set('cursor', cursor);
  const qs = q.toString();
  try {
    const { data, headers } = await apiRequestWithHeaders<T[]>('GET', `${path}${qs ? `?${qs}` : ''}`, undefined, { credentials: 'omit' }, authHeaders());
    return { items: data ?? [], nextCursor: headers.get(NEXT_CURSOR_HEADER) || null };
  } catch (e) {
    return onAuthFailure(e);
  }
}

/**
 * A paged admin list for useInfiniteQuery ("Load more"): the server's default page size, each next page named by the
 * last one's cursor. The filters are part of the key, so changing one starts again from the first page.
 */
function adminPagesQuery<T, K extends readonly unknown[]>(queryKey: K, path: string, params: URLSearchParams) {
  return infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam }) => adminPage<T>(path, params, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}

/** Lists may come as a bare array or wrapped (`{ users: [...] }`, `{ data: [...] }`). */
export function listFrom<T>(answer: unknown, key: string): T[] {
  if (Array.isArray(answer)) return answer as T[];
  if (answer && typeof answer === 'object') {
    const o = answer as Record<string, unknown>;
    const v = o[key] ?? o.data;
    if (Array.isArray(v)) return v as T[];
  }
  return [];
}

/** An object answer that may be wrapped under `key`. */
function objectFrom<T>(answer: unknown, key: string): T {
  if (answer && typeof answer === 'object' && key in (answer as object)) {
    return (answer as Record<string, unknown>)[key] as T;
  }
  return answer as T;
}

export const ADMIN_KEY = ['admin'] as const;

export function adminLogin(body: { username: string; password: string; accessCode: string }) {
  return apiRequest<{ token: string }>('POST', '/api/admin/auth/login', body, { credentials: 'omit' });
}

export function adminLogout() {
  return adminRequest<unknown>('POST', '/api/admin/auth/logout');
}

export function adminSessionQuery(token: string | null) {
  return queryOptions({
    queryKey: [...ADMIN_KEY, 'session', token] as const,
    queryFn: () => adminRequest<AdminSession>('GET', '/api/admin/auth/verify'),
    enabled: token !== null,
    retry: false,
    staleTime: 60_000,
  });
}

export function adminDashboardQuery() {
  return queryOptions({
    queryKey: [...ADMIN_KEY, 'dashboard'] as const,
    queryFn: async () => objectFrom<AdminDashboard>(await adminRequest('GET', '/api/admin/dashboard'), 'dashboard'),
  });
}

export const USERS_KEY = [...ADMIN_KEY, 'users'] as const;
export function adminUsersQuery(search: string, role: UserRole | 'all') {
  const params = new URLSearchParams();
  if (search.trim()) params.set('search', search.trim());
  if (role !== 'all') params.set('role', role);
  return adminPagesQuery<AdminUser, readonly unknown[]>([...USERS_KEY, search.trim(), role] as const, '/api/admin/users', params);
}

export function updateUserRole(id: string, role: UserRole) {
  return adminRequest<unknown>('PATCH', `/api/admin/users/${encodeURIComponent(id)}`, { role });
}

export function changeUserSubscription(userId: string, tierId: string) {
  return adminRequest<unknown>('PATCH', `/api/admin/users/${encodeURIComponent(userId)}/subscription`, { tierId });
}

export const TIERS_KEY = [...ADMIN_KEY, 'subscription-tiers'] as const;
export function adminTiersQuery() {
  return queryOptions({
    queryKey: TIERS_KEY,
    queryFn: async () => listFrom<AdminTier>(await adminRequest('GET', '/api/admin/subscription-tiers'), 'tiers'),
  });
}

export function createTier(body: TierBody) {
  return adminRequest<unknown>('POST', '/api/admin/subscription-tiers', body);
}
export function updateTier(id: string, body: TierBody) {
  return adminRequest<unknown>('PATCH', `/api/admin/subscription-tiers/${encodeURIComponent(id)}`, body);
}
export function toggleTier(id: string) {
  return adminRequest<AdminTier>('PATCH', `/api/admin/subscription-tiers/${encodeURIComponent(id)}/toggle`);
}
export function deleteTier(id: string) {
  return adminRequest<unknown>('DELETE', `/api/admin/subscription-tiers/${encodeURIComponent(id)}`);
}

export const USER_SUBSCRIPTIONS_KEY = [...ADMIN_KEY, 'user-subscriptions'] as const;
export function userSubscriptionsQuery() {
  return queryOptions({
    queryKey: USER_SUBSCRIPTIONS_KEY,
    queryFn: async () =>
      listFrom<AdminUserSubscription>(await adminRequest('GET', '/api/admin/user-subscriptions'), 'subscriptions'),
  });
}

export function subscriptionAnalyticsQuery() {
  return queryOptions({
    queryKey: [...ADMIN_KEY, 'subscription-analytics'] as const,
    queryFn: async () =>
      objectFrom<SubscriptionAnalytics>(await adminRequest('GET', '/api/admin/subscription-analytics'), 'analytics'),
  });
}

/** Merchants by business name/e-mail search and environment, filtered by the server so every page keeps them. */
export function adminMerchantsQuery(search: string, environment: 'all' | 'sandbox' | 'production') {
  const params = new URLSearchParams();
  if (search.trim()) params.set('search', search.trim());
  if (environment !== 'all') params.set('environment', environment);
  return adminPagesQuery<AdminMerchant, readonly unknown[]>(
    [...ADMIN_KEY, 'merchants', search.trim(), environment] as const,
    '/api/admin/merchants',
    params,
  );
}

export function adminAnalyticsQuery() {
  return queryOptions({
    queryKey: [...ADMIN_KEY, 'analytics'] as const,
    queryFn: async () => objectFrom<AdminAnalytics>(await adminRequest('GET', '/api/admin/analytics'), 'analytics'),
  });
}

export const KYC_KEY = [...ADMIN_KEY, 'kyc'] as const;
export function kycOverviewQuery() {
  return queryOptions({
    queryKey: [...KYC_KEY, 'dashboard'] as const,
    queryFn: async () => objectFrom<KycOverview>(await adminRequest('GET', '/api/admin/kyc/dashboard'), 'overview'),
  });
}

export function kycVerificationsQuery(status: KycStatus | 'all') {
  const params = new URLSearchParams(status === 'all' ? {} : { status });
  return adminPagesQuery<KycVerification, readonly unknown[]>(
    [...KYC_KEY, 'verifications', status] as const,
    '/api/admin/kyc/verifications',
    params,
  );
}

export function updateVerification(id: string, body: { status: KycStatus; adminNotes: string; riskScore?: number }) {
  return adminRequest<unknown>('PATCH', `/api/admin/kyc/verifications/${encodeURIComponent(id)}`, body);
}

/** A verification document's bytes, read with the Bearer token (an <img src> could not send it). */
export async function fetchKycDocument(id: string): Promise<Blob> {
  try {
    return await apiBlob(`/api/admin/kyc/documents/${encodeURIComponent(id)}`, authHeaders());
  } catch (e) {
    return onAuthFailure(e);
  }
}

export const VENDORS_KEY = [...ADMIN_KEY, 'vendors'] as const;
export function vendorsQuery() {
  return queryOptions({
    queryKey: VENDORS_KEY,
    queryFn: async () => objectFrom<VendorConfig>(await adminRequest('GET', '/api/admin/vendors'), 'config'),
  });
}

export function saveVendorKeys(
  mode: VendorMode,
  body: { publishableKey?: string; secretKey?: string; webhookSecret?: string },
) {
  return adminRequest<unknown>('PUT', `/api/admin/vendors/${mode}`, body);
}

export function saveVendorSettings(mode: VendorMode, features: Record<VendorFeature, boolean>) {
  return adminRequest<unknown>('PATCH', '/api/admin/vendors', { mode, features });
}

/** Checks the saved keys of `mode`: the mode the page shows, which may not be the saved active one yet. */
export function testVendorConnection(mode: VendorMode) {
  return adminRequest<{ ok: boolean; provider: 'stripe' | 'simulated'; mode: VendorMode; message: string }>(
    'POST',
    '/api/admin/vendors/test-connection',
    { mode },
  );
}
