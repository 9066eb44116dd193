import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiBlob, apiRequest } from '../../lib/api';
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
  const qs = params.toString();
  return queryOptions({
    queryKey: [...USERS_KEY, search.trim(), role] as const,
    queryFn: async () => listFrom<AdminUser>(await adminRequest('GET', `/api/admin/users${qs ? `?${qs}` : ''}`), 'users'),
  });
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
  return adminRequest<unknown>('PATCH', `/api/admin/subscription-tiers/${encodeURIComponent(id)}/toggle`);
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

export function adminMerchantsQuery() {
  return queryOptions({
    queryKey: [...ADMIN_KEY, 'merchants'] as const,
    queryFn: async () => listFrom<AdminMerchant>(await adminRequest('GET', '/api/admin/merchants'), 'merchants'),
  });
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
  const qs = status === 'all' ? '' : `?status=${encodeURIComponent(status)}`;
  return queryOptions({
    queryKey: [...KYC_KEY, 'verifications', status] as const,
    queryFn: async () =>
      listFrom<KycVerification>(await adminRequest('GET', `/api/admin/kyc/verifications${qs}`), 'verifications'),
  });
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

export function testVendorConnection() {
  return adminRequest<{ ok?: boolean; provider?: 'stripe' | 'simulated'; message?: string }>('POST', '/api/admin/vendors/test-connection');
}
