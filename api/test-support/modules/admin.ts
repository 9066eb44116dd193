import { call, type CallOptions, type CallResult, type TestContext } from '../app';
import { totp } from '../../src/lib/totp';
import { createAdmin } from '../../src/modules/admin/accounts';

export const ADMIN_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
export const ADMIN_PASSWORD = 'admin password 123';

/** Creates an admin with a known password and TOTP secret. */
export function makeAdmin(ctx: TestContext, username = 'root', totpSecret = ADMIN_SECRET) {
  return createAdmin(ctx.deps, { username, password: ADMIN_PASSWORD, totpSecret });
}

/** The TOTP code for now on the test clock. */
export const codeNow = (ctx: TestContext, secret = ADMIN_SECRET) => totp(secret, ctx.clock.now().getTime());

/** POST /api/admin/auth/login as an API client would (no Origin, no cookie). */
export function adminLoginCall(ctx: TestContext, body: Record<string, unknown>, extra: CallOptions = {}) {
  return call(ctx, '/api/admin/auth/login', { method: 'POST', body, origin: null, ...extra });
}

/** Signs in (moving the clock one TOTP step first, so every call has a fresh code) and returns the token. */
export async function adminToken(ctx: TestContext, username = 'root', secret = ADMIN_SECRET): Promise<string> {
  ctx.clock.advance(30_000);
  const res = await adminLoginCall(ctx, { username, password: ADMIN_PASSWORD, accessCode: codeNow(ctx, secret) });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${res.text}`);
  return res.body.token;
}

/** A call with Authorization: Bearer <token>. */
export function adminCall<T = any>(ctx: TestContext, token: string | null, path: string, opts: CallOptions = {}): Promise<CallResult<T>> {
  return call<T>(ctx, path, {
    origin: null,
    ...opts,
    headers: { ...(token !== null ? { authorization: `Bearer ${token}` } : {}), ...(opts.headers ?? {}) },
  });
}

/** Every admin route, with a body where it takes one. */
export const ADMIN_ROUTES: Array<{ method: string; path: string; body?: unknown }> = [
  { method: 'GET', path: '/api/admin/auth/verify' },
  { method: 'POST', path: '/api/admin/auth/logout' },
  { method: 'GET', path: '/api/admin/dashboard' },
  { method: 'GET', path: '/api/admin/analytics' },
  { method: 'GET', path: '/api/admin/users' },
  { method: 'PATCH', path: '/api/admin/users/usr_x', body: { role: 'merchant' } },
  { method: 'PATCH', path: '/api/admin/users/usr_x/subscription', body: { tierId: 'tier_pro' } },
  { method: 'GET', path: '/api/admin/subscription-tiers' },
  { method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x', displayName: 'X', monthlyPrice: 1 } },
  { method: 'PATCH', path: '/api/admin/subscription-tiers/tier_pro', body: { displayName: 'X' } },
  { method: 'PATCH', path: '/api/admin/subscription-tiers/tier_pro/toggle' },
  { method: 'DELETE', path: '/api/admin/subscription-tiers/tier_pro' },
  { method: 'GET', path: '/api/admin/user-subscriptions' },
  { method: 'GET', path: '/api/admin/subscription-analytics' },
  { method: 'GET', path: '/api/admin/merchants' },
  { method: 'GET', path: '/api/admin/vendors' },
  { method: 'PUT', path: '/api/admin/vendors/test', body: { publishableKey: 'pk_test_abc' } },
  { method: 'PATCH', path: '/api/admin/vendors', body: { mode: 'live' } },
  { method: 'POST', path: '/api/admin/vendors/test-connection' },
  { method: 'GET', path: '/api/admin/kyc/dashboard' },
  { method: 'GET', path: '/api/admin/kyc/verifications' },
  { method: 'PATCH', path: '/api/admin/kyc/verifications/kyc_x', body: { status: 'verified' } },
  { method: 'GET', path: '/api/admin/kyc/documents/doc_x' },
  { method: 'POST', path: '/api/admin/sandbox/disputes', body: { shareId: 'shr_x', reason: 'fraudulent' } },
  { method: 'POST', path: '/api/admin/sandbox/disputes/dsp_x/close', body: { outcome: 'won' } },
  { method: 'GET', path: '/api/admin/receivables' },
  { method: 'GET', path: '/api/admin/refund-failures' },
  { method: 'POST', path: '/api/admin/users/usr_x/receivable/waive', body: { amount: '1.00', reason: 'Goodwill' } },
  { method: 'GET', path: '/api/admin/payables' },
  { method: 'POST', path: '/api/admin/users/usr_x/payable/settle', body: { amount: '1.00', method: 'paid_outside', reason: 'Bank transfer' } },
];
