/*
 * The admin client, for the back office API under /api/admin (`Authorization: Bearer <admin token>`). Sign in with
 * `BpayAdmin.login({ username, password, code })` (the authenticator's current TOTP code; each code works once) or
 * build one from a token you kept (`new BpayAdmin(token)`). Tokens last 15 minutes by default; logout revokes one.
 * Errors are the same typed BpayError classes as the merchant client's (the admin API answers the same error shape).
 */
import { createHttp, unwrap, type ClientOptions, type Http } from './http';
import type { RequestOptions } from './transport';
import type {
  AdminLoginResult,
  AdminUser,
  AdminUserListParams,
  AdminVerifyResult,
  KycDashboard,
  KycListParams,
  KycReviewParams,
  KycVerification,
  SubscriptionTier,
  AssignableUserRole,
  UserSubscription,
} from './types';

export type BpayAdminOptions = ClientOptions;

export interface BpayAdminLoginParams extends BpayAdminOptions {
  username: string;
  password: string;
  /** The current 6-digit code of the admin's authenticator app. */
  code: string;
}

export class AdminKycResource {
  constructor(private readonly http: Http) {}

  /**
   * Verifications, newest first, optionally by status: one page (50 by default, `limit` up to 200). The API gives the
   * next page's `cursor` in the `bpay-next-cursor` header, which this method does not return yet.
   */
  list(params: KycListParams = {}, opts?: RequestOptions): Promise<KycVerification[]> {
    return unwrap(this.http.api.GET('/api/admin/kyc/verifications', { params: { query: params }, ...this.http.via(opts) }));
  }

  retrieve(id: string, opts?: RequestOptions): Promise<KycVerification> {
    return unwrap(this.http.api.GET('/api/admin/kyc/verifications/{id}', { params: { path: { id } }, ...this.http.via(opts) }));
  }

  /** Decides on a verification (any status may follow any other); the user's ID-verified state follows. */
  review(id: string, params: KycReviewParams, opts?: RequestOptions): Promise<KycVerification> {
    return unwrap(this.http.api.PATCH('/api/admin/kyc/verifications/{id}', { params: { path: { id } }, body: params, ...this.http.via(opts) }));
  }

  dashboard(opts?: RequestOptions): Promise<KycDashboard> {
    return unwrap(this.http.api.GET('/api/admin/kyc/dashboard', this.http.via(opts)));
  }
}

export class AdminUsersResource {
  constructor(private readonly http: Http) {}

  /**
   * `search` matches a part of the email or name (at least 3 characters; 1–2 are refused with a 400, empty is no
   * search); `role` filters. One page, newest first (50 by default, `limit` up to 200); the next
   * page's `cursor` is in the `bpay-next-cursor` header, which this method does not return yet.
   */
  list(params: AdminUserListParams = {}, opts?: RequestOptions): Promise<AdminUser[]> {
    return unwrap(this.http.api.GET('/api/admin/users', { params: { query: params }, ...this.http.via(opts) }));
  }

  /** user or merchant: admins are separate accounts (`bun run admin:create`), never a user's role. */
  setRole(id: string, role: AssignableUserRole, opts?: RequestOptions): Promise<AdminUser> {
    return unwrap(this.http.api.PATCH('/api/admin/users/{id}', { params: { path: { id } }, body: { role }, ...this.http.via(opts) }));
  }

  /** Moves the user to an active tier (ends the current subscription, starts the new one). */
  setTier(id: string, tierId: string, opts?: RequestOptions): Promise<UserSubscription> {
    return unwrap(
      this.http.api.PATCH('/api/admin/users/{id}/subscription', { params: { path: { id } }, body: { tierId }, ...this.http.via(opts) }),
    );
  }
}

export class AdminTiersResource {
  constructor(private readonly http: Http) {}

  /** Every tier, active or not. */
  list(opts?: RequestOptions): Promise<SubscriptionTier[]> {
    return unwrap(this.http.api.GET('/api/admin/subscription-tiers', this.http.via(opts)));
  }
}

export class BpayAdmin {
  readonly token: string;
  readonly baseUrl: string;
  /** When the token expires (ISO 8601), when this client came from login(). */
  readonly expiresAt: string | undefined;
  readonly kyc: AdminKycResource;
  readonly users: AdminUsersResource;
  readonly tiers: AdminTiersResource;
  private readonly http: Http;

  constructor(token: string, options: BpayAdminOptions = {}, expiresAt?: string) {
    if (!token) throw new TypeError('BpayAdmin: an admin token is required (or use BpayAdmin.login)');
    this.token = token;
    this.expiresAt = expiresAt;
    this.http = createHttp(`Bearer ${token}`, options);
    this.baseUrl = this.http.baseUrl;
    this.kyc = new AdminKycResource(this.http);
    this.users = new AdminUsersResource(this.http);
    this.tiers = new AdminTiersResource(this.http);
  }

  /**
   * Signs in and answers a client holding the token. Not retried: a TOTP code works once, so a second attempt after
   * the server saw the first could only fail. A wrong name, password or code is BpayAuthenticationError
   * (invalid_admin_credentials); a locked name is BpayRateLimitError (admin_locked, with Retry-After).
   */
  static async login(params: BpayAdminLoginParams): Promise<BpayAdmin> {
    const { username, password, code, ...options } = params;
    const http = createHttp('', options);
    const result: AdminLoginResult = await unwrap(
      http.api.POST('/api/admin/auth/login', {
        body: { username, password, accessCode: code },
        headers: { authorization: null },
        ...http.via({ maxRetries: 0 }),
      }),
    );
    return new BpayAdmin(result.token, options, result.expiresAt);
  }

  /** Whether the token is still good: answers the admin, or throws BpayAuthenticationError. */
  verify(opts?: RequestOptions): Promise<AdminVerifyResult> {
    return unwrap(this.http.api.GET('/api/admin/auth/verify', this.http.via(opts)));
  }

  /** Revokes the token on the server. */
  logout(opts?: RequestOptions): Promise<{ success: boolean }> {
    return unwrap(this.http.api.POST('/api/admin/auth/logout', this.http.via(opts)));
  }
}
