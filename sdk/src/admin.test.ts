import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { registerUser } from '../../api/test-support/world';
import { ADMIN_PASSWORD, codeNow, makeAdmin } from '../../api/test-support/modules/admin';
import { BpayAdmin, BpayAuthenticationError, BpayInvalidRequestError } from './index';
import { startLiveServer, submitKyc, type LiveServer } from '../test-support/live-server';

/* The admin client against the real admin API: TOTP sign-in, KYC review, users, tiers, sign-out. */

let live: LiveServer;

beforeAll(async () => {
  live = await startLiveServer();
  await makeAdmin(live.ctx);
});
afterAll(() => live.close());

/** Signs in with the authenticator's code for the next 30-second step (each code works once). */
function login(): Promise<BpayAdmin> {
  live.ctx.clock.advance(30_000);
  return BpayAdmin.login({ baseUrl: live.baseUrl, username: 'root', password: ADMIN_PASSWORD, code: codeNow(live.ctx) });
}

describe('BpayAdmin', () => {
  test('login with a TOTP code; verify; a used code is BpayAuthenticationError, tried once (no retry)', async () => {
    const admin = await login();
    expect(admin.token).toMatch(/^ey/);
    expect(admin.expiresAt).toBeTruthy();
    expect((await admin.verify()).admin.username).toBe('root');

    const from = live.requests.length;
    const reused = await BpayAdmin.login({ baseUrl: live.baseUrl, username: 'root', password: ADMIN_PASSWORD, code: codeNow(live.ctx) }).catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(BpayAuthenticationError);
    expect(reused).toMatchObject({ code: 'invalid_admin_credentials', statusCode: 401 });
    expect((reused as BpayAuthenticationError).requestId).toMatch(/^req_/);
    expect(live.requests.length - from).toBe(1);
  });

  test('KYC: list pending, retrieve, review with risk score and notes, dashboard', async () => {
    const admin = await login();
    const user = await registerUser(live.ctx);
    const id = await submitKyc(live.ctx, user.cookie);

    const pending = await admin.kyc.list({ status: 'pending' });
    expect(pending.map((v) => v.id)).toContain(id);
    const one = await admin.kyc.retrieve(id);
    expect(one).toMatchObject({ id, status: 'pending', user: { email: user.email } });

    const reviewed = await admin.kyc.review(id, { status: 'verified', riskScore: 12, adminNotes: 'Passport matches' });
    expect(reviewed).toMatchObject({ id, status: 'verified', riskScore: 12, adminNotes: 'Passport matches' });
    expect((await admin.kyc.retrieve(id)).status).toBe('verified');
    expect((await admin.kyc.list({ status: 'pending' })).map((v) => v.id)).not.toContain(id);
    expect((await admin.users.list({ search: user.email }))[0]).toMatchObject({ email: user.email, isKycVerified: true });

    const dashboard = await admin.kyc.dashboard();
    expect(dashboard).toMatchObject({ verifiedUsers: 1 });

    const missing = await admin.kyc.retrieve('kyc_nope').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(BpayInvalidRequestError);
    expect(missing).toMatchObject({ code: 'resource_not_found', statusCode: 404 });
  });

  test('users: list by role, set role, set tier; tiers list', async () => {
    const admin = await login();
    const user = await registerUser(live.ctx);
    const id: string = user.user.id;
    expect((await admin.users.setRole(id, 'merchant')).role).toBe('merchant');
    expect((await admin.users.list({ role: 'merchant' })).map((u) => u.id)).toContain(id);

    const tiers = await admin.tiers.list();
    const pro = tiers.find((t) => t.name === 'pro');
    expect(pro).toBeDefined();
    const sub = await admin.users.setTier(id, pro!.id);
    expect(sub).toMatchObject({ userId: id, tierId: pro!.id, status: 'active', tier: { name: 'pro' } });
    expect((await admin.users.list({ search: user.email }))[0]!.tier?.name).toBe('pro');
  });

  test('logout revokes the token: the same client then gets BpayAuthenticationError', async () => {
    const admin = await login();
    expect(await admin.logout()).toEqual({ success: true });
    const err = await admin.verify().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BpayAuthenticationError);
    // A kept token can be used by a new client.
    const again = await login();
    expect((await new BpayAdmin(again.token, { baseUrl: live.baseUrl }).verify()).admin.username).toBe('root');
  });
});
