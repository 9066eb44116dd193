import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { unseal } from '../../lib/crypto';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { addCard, bcardCard, createMerchant, registerUser } from '../../../test-support/world';
import { startStripeStub, type StripeStub } from '../../../test-support/stripe-stub';
import { checkStripeCredentials } from '../../vendors/stripe';
import { FEE_MESSAGE, PRICE_MESSAGE } from './tiers';
import { ROLE_MESSAGE, setUserRole } from './users';
import { activeStripeCredentials, SIMULATED_CONNECTION_MESSAGE } from './vendors';
import { ADMIN_ROUTES, adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';

let ctx: TestContext;
let token: string;
let adminId: string;
beforeAll(async () => {
  ctx = await makeTestApp();
  adminId = (await makeAdmin(ctx)).id;
  token = await adminToken(ctx);
});
afterAll(() => ctx.close());

/** Tokens live 15 minutes; tests that move the clock far get a fresh one. */
const api = <T = any>(path: string, opts: { method?: string; body?: unknown; headers?: Record<string, string>; rawBody?: BodyInit } = {}) =>
  adminCall<T>(ctx, token, path, opts);

const auditRows = (action: string) => ctx.handle.db.select().from(schema.auditLog).where(eq(schema.auditLog.action, action));

describe('route table: validation and 404s', () => {
  const cases: Array<{ name: string; method: string; path: string; body?: unknown; expectStatus: number; expectCode: string; expectMessage?: string }> = [
    { name: 'unknown user', method: 'PATCH', path: '/api/admin/users/usr_nope', body: { role: 'merchant' }, expectStatus: 404, expectCode: 'resource_not_found' },
    { name: 'bad role', method: 'PATCH', path: '/api/admin/users/usr_nope', body: { role: 'superuser' }, expectStatus: 400, expectCode: 'validation_error', expectMessage: ROLE_MESSAGE },
    { name: 'role admin: admins are separate accounts', method: 'PATCH', path: '/api/admin/users/usr_nope', body: { role: 'admin' }, expectStatus: 400, expectCode: 'validation_error', expectMessage: ROLE_MESSAGE },
    { name: 'extra field on user', method: 'PATCH', path: '/api/admin/users/usr_nope', body: { role: 'merchant', kycStatus: 'verified' }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'role filter', method: 'GET', path: '/api/admin/users?role=boss', expectStatus: 400, expectCode: 'validation_error' },
    { name: 'unknown tier for a subscription', method: 'PATCH', path: '/api/admin/users/usr_nope/subscription', body: { tierId: 'tier_nope' }, expectStatus: 404, expectCode: 'resource_not_found' },
    { name: 'no tierId', method: 'PATCH', path: '/api/admin/users/usr_nope/subscription', body: {}, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'tier name', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'Bad Name', displayName: 'X', monthlyPrice: 1 }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'price below a cent', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x1', displayName: 'X', monthlyPrice: 1.005 }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'negative price', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x1', displayName: 'X', monthlyPrice: -1 }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'fee below a basis point', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x1', displayName: 'X', monthlyPrice: 1, transactionFeeRate: 0.02905 }, expectStatus: 400, expectCode: 'validation_error', expectMessage: FEE_MESSAGE },
    { name: 'fee above 100 %', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x1', displayName: 'X', monthlyPrice: 1, transactionFeeRate: 1.5 }, expectStatus: 400, expectCode: 'validation_error', expectMessage: FEE_MESSAGE },
    { name: 'negative fee', method: 'PATCH', path: '/api/admin/subscription-tiers/tier_pro', body: { transactionFeeRate: -0.01 }, expectStatus: 400, expectCode: 'validation_error', expectMessage: FEE_MESSAGE },
    { name: 'fee as a string', method: 'PATCH', path: '/api/admin/subscription-tiers/tier_pro', body: { transactionFeeRate: '2.9' }, expectStatus: 400, expectCode: 'validation_error', expectMessage: FEE_MESSAGE },
    { name: 'price above the maximum', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x1', displayName: 'X', monthlyPrice: 1_000_001 }, expectStatus: 400, expectCode: 'validation_error', expectMessage: PRICE_MESSAGE },
    { name: 'limit above the maximum', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x1', displayName: 'X', monthlyPrice: 1, limits: { apiCallsPerMonth: 2e9 } }, expectStatus: 400, expectCode: 'validation_error', expectMessage: 'limits.apiCallsPerMonth must be a whole number from 0 to 1,000,000,000 (0 or -1 is unlimited).' },
    { name: 'unknown feature', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x1', displayName: 'X', monthlyPrice: 1, features: ['teleport'] }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'fractional limit', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x1', displayName: 'X', monthlyPrice: 1, limits: { fundingSources: 1.5 } }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'no displayName', method: 'POST', path: '/api/admin/subscription-tiers', body: { name: 'x1', monthlyPrice: 1 }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'edit unknown tier', method: 'PATCH', path: '/api/admin/subscription-tiers/tier_nope', body: { displayName: 'Y' }, expectStatus: 404, expectCode: 'resource_not_found' },
    { name: 'toggle unknown tier', method: 'PATCH', path: '/api/admin/subscription-tiers/tier_nope/toggle', expectStatus: 404, expectCode: 'resource_not_found' },
    { name: 'delete unknown tier', method: 'DELETE', path: '/api/admin/subscription-tiers/tier_nope', expectStatus: 404, expectCode: 'resource_not_found' },
    { name: 'vendor mode', method: 'PUT', path: '/api/admin/vendors/staging', body: {}, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'live key in test mode', method: 'PUT', path: '/api/admin/vendors/test', body: { secretKey: 'sk_live_abc123' }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'publishable key as secret', method: 'PUT', path: '/api/admin/vendors/test', body: { secretKey: 'pk_test_abc123' }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'webhook secret', method: 'PUT', path: '/api/admin/vendors/live', body: { webhookSecret: 'secret' }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'vendor settings mode', method: 'PATCH', path: '/api/admin/vendors', body: { mode: 'prod' }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'unknown feature switch', method: 'PATCH', path: '/api/admin/vendors', body: { features: { teleport: true } }, expectStatus: 400, expectCode: 'validation_error' },
    { name: 'test connection mode', method: 'POST', path: '/api/admin/vendors/test-connection', body: { mode: 'production' }, expectStatus: 400, expectCode: 'validation_error', expectMessage: 'mode must be test or live.' },
    { name: 'unknown admin route', method: 'GET', path: '/api/admin/nope', expectStatus: 404, expectCode: 'route_not_found' },
  ];
  test.each(cases)('$name → $expectStatus $expectCode', async ({ method, path, body, expectStatus, expectCode, expectMessage }) => {
    const res = await api(path, { method, ...(body !== undefined ? { body } : {}) });
    expect(res.status).toBe(expectStatus);
    expect(res.body.error.code).toBe(expectCode);
    if (expectMessage !== undefined) expect(res.body.error.message).toBe(expectMessage);
  });

  test('a form-encoded body is refused with 415', async () => {
    const res = await api('/api/admin/subscription-tiers', {
      method: 'POST',
      rawBody: 'name=x&displayName=X&monthlyPrice=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
  });


  test('every admin route answers an admin token (no route in the table is missing)', async () => {
    for (const r of ADMIN_ROUTES.filter((x) => x.method === 'GET' && !x.path.includes('/auth/') && !x.path.endsWith('_x'))) {
      expect((await api(r.path)).status).toBe(200);
    }
  });
});

describe('users', () => {
  test('search by e-mail and filter by role; a role change is audited with before and after', async () => {
    const a = await registerUser(ctx, { email: 'Findme.Alpha@example.com' });
    await registerUser(ctx, { email: 'other@example.com' });
    const found = await api('/api/admin/users?search=findme.ALPHA');
    expect(found.status).toBe(200);
    expect(found.body.map((u: { email: string }) => u.email)).toEqual(['Findme.Alpha@example.com']);
    expect(found.body[0]).toMatchObject({ role: 'user', tier: { name: 'free' }, isKycVerified: false });
    expect(Object.keys(found.body[0])).not.toContain('passwordHash');
    // LIKE wildcards are taken literally.
    expect((await api('/api/admin/users?search=%25%25%25')).body).toEqual([]);

    const patched = await api(`/api/admin/users/${a.user.id}`, { method: 'PATCH', body: { role: 'merchant' } });
    expect(patched.status).toBe(200);
    expect(patched.body.role).toBe('merchant');
    const merchants = await api('/api/admin/users?role=merchant');
    expect(merchants.body.map((u: { id: string }) => u.id)).toEqual([a.user.id]);
    const [row] = await auditRows('user.update');
    expect(row).toMatchObject({ adminId, targetType: 'user', targetId: a.user.id, before: { role: 'user' }, after: { role: 'merchant' } });
    expect(row?.ip).toBe('203.0.113.7');
  });

  test('role admin is refused with the reason, at the route and in the service; a row that says admin can be moved back', async () => {
    const u = await registerUser(ctx);
    const refused = await api(`/api/admin/users/${u.user.id}`, { method: 'PATCH', body: { role: 'admin' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation_error', param: 'role', message: ROLE_MESSAGE });
    expect(refused.body.error.message).toContain('bun run admin:create');
    await expect(setUserRole(ctx.handle.db, ctx.clock, { adminId, ip: null }, u.user.id, 'admin')).rejects.toMatchObject({ param: 'role', message: ROLE_MESSAGE });
    const row = await ctx.handle.db.query.users.findFirst({ where: eq(schema.users.id, u.user.id) });
    expect(row!.role).toBe('user');

    // An older row that says admin: listed as such, and an admin can make it a user again.
    await ctx.handle.db.update(schema.users).set({ role: 'admin' }).where(eq(schema.users.id, u.user.id));
    expect((await api('/api/admin/users?role=admin')).body.map((x: { id: string }) => x.id)).toContain(u.user.id);
    const back = await api(`/api/admin/users/${u.user.id}`, { method: 'PATCH', body: { role: 'user' } });
    expect(back.status).toBe(200);
    expect(back.body.role).toBe('user');
  });
});

describe('user subscriptions', () => {
  test('moving to an active tier ends the old subscription and starts a new one; an inactive tier is refused', async () => {
    const u = await registerUser(ctx);
    const res = await api(`/api/admin/users/${u.user.id}/subscription`, { method: 'PATCH', body: { tierId: 'tier_pro' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ userId: u.user.id, tierId: 'tier_pro', status: 'active', tier: { name: 'pro', isActive: true } });
    expect(new Date(res.body.currentPeriodEnd).getUTCMonth()).toBe((new Date(res.body.currentPeriodStart).getUTCMonth() + 1) % 12);
    const subs = await ctx.handle.db.select().from(schema.userSubscriptions).where(eq(schema.userSubscriptions.userId, u.user.id));
    expect(subs.map((s) => [s.tierId, s.status]).sort()).toEqual([
      ['tier_free', 'ended'],
      ['tier_pro', 'active'],
    ]);
    const audit = (await auditRows('user.subscription.change')).find((r) => r.targetId === u.user.id);
    expect(audit?.before).toMatchObject({ tierId: 'tier_free' });
    expect(audit?.after).toMatchObject({ tierId: 'tier_pro' });

    const tier = await api('/api/admin/subscription-tiers', { method: 'POST', body: { name: 'legacy', displayName: 'Legacy', monthlyPrice: 5, isActive: false } });
    const refused = await api(`/api/admin/users/${u.user.id}/subscription`, { method: 'PATCH', body: { tierId: tier.body.id } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('tier_inactive');
    const active = await ctx.handle.db
      .select()
      .from(schema.userSubscriptions)
      .where(and(eq(schema.userSubscriptions.userId, u.user.id), eq(schema.userSubscriptions.status, 'active')));
    expect(active.map((s) => s.tierId)).toEqual(['tier_pro']);

    const list = await api('/api/admin/user-subscriptions');
    const mine = list.body.filter((s: { userId: string }) => s.userId === u.user.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ tierId: 'tier_pro', user: { email: u.email }, tier: { displayName: expect.any(String) } });
  });
});

describe('subscription tiers', () => {
  test('a new tier gets the spec defaults; dollars and fractions become exact cents and basis points', async () => {
    const res = await api('/api/admin/subscription-tiers', { method: 'POST', body: { name: 'plus', displayName: 'Plus', monthlyPrice: 19.99 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'plus',
      displayName: 'Plus',
      monthlyPrice: 19.99,
      transactionFeeRate: 0.029,
      limits: { fundingSources: 5, monthlyTransactions: 100, apiCallsPerMonth: 1000, bcardGenerationLimit: 10 },
      features: [],
      isActive: true,
    });
    const row = await ctx.handle.db.query.subscriptionTiers.findFirst({ where: eq(schema.subscriptionTiers.id, res.body.id) });
    expect(row).toMatchObject({ monthlyPriceCents: 1999, transactionFeeBps: 290 });

    const edited = await api(`/api/admin/subscription-tiers/${res.body.id}`, {
      method: 'PATCH',
      body: { transactionFeeRate: 0.0125, monthlyPrice: 0.29, limits: { fundingSources: 0 }, features: ['priority_support', 'api_access'] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ transactionFeeRate: 0.0125, monthlyPrice: 0.29, limits: { fundingSources: -1, monthlyTransactions: 100 } });
    const row2 = await ctx.handle.db.query.subscriptionTiers.findFirst({ where: eq(schema.subscriptionTiers.id, res.body.id) });
    expect(row2).toMatchObject({ monthlyPriceCents: 29, transactionFeeBps: 125, fundingSourcesLimit: -1 });
    const [audit] = (await auditRows('tier.update')).filter((r) => r.targetId === res.body.id);
    expect(audit?.before).toMatchObject({ monthlyPrice: 19.99 });
    expect(audit?.after).toMatchObject({ monthlyPrice: 0.29 });

    const dup = await api('/api/admin/subscription-tiers', { method: 'POST', body: { name: 'plus', displayName: 'Plus again', monthlyPrice: 1 } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('tier_name_taken');
  });

  test('delete: only inactive, unreferenced tiers; never the free plan', async () => {
    const made = await api('/api/admin/subscription-tiers', { method: 'POST', body: { name: 'temp', displayName: 'Temp', monthlyPrice: 3 } });
    const id = made.body.id;
    const active = await api(`/api/admin/subscription-tiers/${id}`, { method: 'DELETE' });
    expect(active.status).toBe(409);
    expect(active.body.error.code).toBe('tier_in_use');
    expect(active.body.error.message).toContain('inactive');

    // Referenced by a (since ended) subscription: kept.
    const u = await registerUser(ctx);
    expect((await api(`/api/admin/users/${u.user.id}/subscription`, { method: 'PATCH', body: { tierId: id } })).status).toBe(200);
    expect((await api(`/api/admin/users/${u.user.id}/subscription`, { method: 'PATCH', body: { tierId: 'tier_free' } })).status).toBe(200);
    const toggled = await api(`/api/admin/subscription-tiers/${id}/toggle`, { method: 'PATCH' });
    expect(toggled.body.isActive).toBe(false);
    const referenced = await api(`/api/admin/subscription-tiers/${id}`, { method: 'DELETE' });
    expect(referenced.status).toBe(409);
    expect(referenced.body.error.message).toContain('reference');

    const free = await ctx.handle.db.query.subscriptionTiers.findFirst({ where: eq(schema.subscriptionTiers.name, 'free') });
    await ctx.handle.db.update(schema.subscriptionTiers).set({ isActive: false }).where(eq(schema.subscriptionTiers.id, free!.id));
    const freeGone = await api(`/api/admin/subscription-tiers/${free!.id}`, { method: 'DELETE' });
    expect(freeGone.status).toBe(409);
    expect(freeGone.body.error.code).toBe('tier_is_default');
    await ctx.handle.db.update(schema.subscriptionTiers).set({ isActive: true }).where(eq(schema.subscriptionTiers.id, free!.id));

    const spare = await api('/api/admin/subscription-tiers', { method: 'POST', body: { name: 'spare', displayName: 'Spare', monthlyPrice: 3, isActive: false } });
    const gone = await api(`/api/admin/subscription-tiers/${spare.body.id}`, { method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ deleted: true, id: spare.body.id });
    expect((await api('/api/admin/subscription-tiers')).body.map((t: { id: string }) => t.id)).not.toContain(spare.body.id);
    const [audit] = (await auditRows('tier.delete')).filter((r) => r.targetId === spare.body.id);
    expect(audit?.before).toMatchObject({ name: 'spare' });
    expect(audit?.after).toBeNull();
  });
});

describe('the default plan (free): where new accounts start', () => {
  const freeRow = () => ctx.handle.db.query.subscriptionTiers.findFirst({ where: eq(schema.subscriptionTiers.id, 'tier_free') });

  test('cannot be deactivated, renamed or deleted, with a message that says why; the rest stays editable', async () => {
    const refusals = [
      await api('/api/admin/subscription-tiers/tier_free/toggle', { method: 'PATCH' }),
      await api('/api/admin/subscription-tiers/tier_free', { method: 'PATCH', body: { isActive: false } }),
      await api('/api/admin/subscription-tiers/tier_free', { method: 'PATCH', body: { name: 'basic' } }),
      await api('/api/admin/subscription-tiers/tier_free', { method: 'PATCH', body: { displayName: 'Basic', isActive: false } }),
      await api('/api/admin/subscription-tiers/tier_free', { method: 'DELETE' }),
    ];
    for (const r of refusals) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({
        code: 'tier_is_default',
        message: 'New accounts start on the free plan, so it cannot be deactivated, renamed or deleted. Its price, fee, limits and features can be edited.',
      });
    }
    // Nothing of a refused edit was written, not even the fields that were allowed.
    expect(await freeRow()).toMatchObject({ name: 'free', isActive: true });
    expect((await freeRow())!.displayName).not.toBe('Basic');

    const edited = await api('/api/admin/subscription-tiers/tier_free', {
      method: 'PATCH',
      body: { name: 'free', displayName: 'Free forever', transactionFeeRate: 0.0315, isActive: true, limits: { fundingSources: 3 } },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'free', displayName: 'Free forever', transactionFeeRate: 0.0315, isActive: true });
    expect((await freeRow())!.transactionFeeBps).toBe(315);
    // New accounts still land on it.
    const u = await registerUser(ctx);
    const users = await api(`/api/admin/users?search=${encodeURIComponent(u.email)}`);
    expect(users.body[0].tier).toMatchObject({ id: 'tier_free', name: 'free' });
  });

  test('a free plan found inactive (an older database) can be turned back on, not off', async () => {
    await ctx.handle.db.update(schema.subscriptionTiers).set({ isActive: false }).where(eq(schema.subscriptionTiers.id, 'tier_free'));
    const on = await api('/api/admin/subscription-tiers/tier_free/toggle', { method: 'PATCH' });
    expect(on.status).toBe(200);
    expect(on.body.isActive).toBe(true);
    expect((await api('/api/admin/subscription-tiers/tier_free/toggle', { method: 'PATCH' })).status).toBe(409);
  });

  test('race-safe: concurrent toggles each flip once (none lost), and none turns the free plan off', async () => {
    const made = await api('/api/admin/subscription-tiers', { method: 'POST', body: { name: 'racer', displayName: 'Racer', monthlyPrice: 2 } });
    const id = made.body.id as string;
    const auditBefore = (await auditRows('tier.update')).filter((r) => r.targetId === id).length;
    const flips = await Promise.all(Array.from({ length: 11 }, () => api(`/api/admin/subscription-tiers/${id}/toggle`, { method: 'PATCH' })));
    expect(flips.map((f) => f.status)).toEqual(Array(11).fill(200));
    // Each answer is the state its own flip produced: 6 off and 5 on, ending off (an odd number of flips).
    expect(flips.filter((f) => f.body.isActive === false)).toHaveLength(6);
    const row = await ctx.handle.db.query.subscriptionTiers.findFirst({ where: eq(schema.subscriptionTiers.id, id) });
    expect(row!.isActive).toBe(false);
    expect((await auditRows('tier.update')).filter((r) => r.targetId === id).length - auditBefore).toBe(11);

    const tries = await Promise.all([
      ...Array.from({ length: 10 }, () => api('/api/admin/subscription-tiers/tier_free/toggle', { method: 'PATCH' })),
      ...Array.from({ length: 10 }, () => api('/api/admin/subscription-tiers/tier_free', { method: 'PATCH', body: { isActive: false } })),
    ]);
    expect(new Set(tries.map((r) => r.status))).toEqual(new Set([409]));
    expect((await freeRow())!.isActive).toBe(true);
  });
});

describe('vendors', () => {
  let stub: StripeStub;
  beforeAll(() => {
    stub = startStripeStub({ secretKey: 'sk_test_goodkey1234' });
  });
  afterAll(() => stub.stop());

  test('Test Connection with the simulator in use and no key saved: ok, the simulator needs no credentials', async () => {
    expect(ctx.deps.vendorInUse).toEqual({ vendor: 'simulated', mode: null, source: 'default' });
    const res = await api('/api/admin/vendors/test-connection', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, provider: 'simulated', mode: 'test', message: SIMULATED_CONNECTION_MESSAGE });
    expect(res.body.message).toContain('built-in simulated processor');
    const [audit] = await auditRows('vendor.test_connection');
    expect(audit?.after).toMatchObject({ ok: true, provider: 'simulated' });
    expect(stub.find('GET', '/v1/balance')).toHaveLength(0);
  });

  test('Test Connection with Stripe in use and no key saved for the mode: 400 vendor_secret_missing, the panel text', async () => {
    const saved = ctx.deps.vendorInUse;
    ctx.deps.vendorInUse = { vendor: 'stripe', mode: 'test', source: 'environment' };
    try {
      const res = await api('/api/admin/vendors/test-connection', { method: 'POST' });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'vendor_secret_missing', message: 'No secret key configured for current mode' });
    } finally {
      ctx.deps.vendorInUse = saved;
    }
  });

  test('secrets are write-only, sealed at rest and never in the audit log', async () => {
    const empty = await api('/api/admin/vendors');
    expect(empty.body).toMatchObject({
      inUse: { vendor: 'simulated', mode: null, source: 'default' },
      mode: 'test',
      features: { paymentProcessing: true, cardIssuing: true, identity: false, connect: false },
      test: { configured: false, secretKeySet: false },
      live: { configured: false },
    });
    const put = await api('/api/admin/vendors/test', {
      method: 'PUT',
      body: { publishableKey: 'pk_test_pub111', secretKey: 'sk_test_goodkey1234', webhookSecret: 'whsec_hook9876' },
    });
    expect(put.status).toBe(200);
    // Saved keys wait for the next start: this process still uses the simulator, and says so.
    expect(put.body.inUse).toEqual({ vendor: 'simulated', mode: null, source: 'default' });
    const got = await api('/api/admin/vendors');
    expect(got.body.test).toMatchObject({
      publishableKey: 'pk_test_pub111',
      secretKeySet: true,
      secretKeyLast4: '1234',
      webhookSecretSet: true,
      webhookSecretLast4: '9876',
      configured: true,
    });
    for (const text of [put.text, got.text]) {
      expect(text).not.toContain('sk_test_goodkey1234');
      expect(text).not.toContain('whsec_hook9876');
    }
    const [row] = await ctx.handle.db.select().from(schema.vendorCredentials).where(eq(schema.vendorCredentials.mode, 'test'));
    expect(row!.secretKeySealed).not.toContain('goodkey');
    expect(row!.secretKeySealed).toStartWith('v1.');
    expect(unseal(ctx.deps.vendorKey, row!.secretKeySealed!)).toBe('sk_test_goodkey1234');
    expect(unseal(ctx.deps.vendorKey, row!.webhookSecretSealed!)).toBe('whsec_hook9876');
    const audit = JSON.stringify(await auditRows('vendor.credentials.update'));
    expect(audit).not.toContain('goodkey');
    expect(audit).not.toContain('hook9876');
    expect(audit).toContain('"secretKeySet":true');
  });

  test('Test Connection checks the current mode key with Stripe; the mode switch changes which key', async () => {
    ctx.deps.checkStripe = (key) => checkStripeCredentials(key, { host: 'localhost', port: stub.port, protocol: 'http' });
    const ok = await api('/api/admin/vendors/test-connection', { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, provider: 'stripe', mode: 'test' });
    expect(stub.find('GET', '/v1/balance').length).toBeGreaterThan(0);

    const switched = await api('/api/admin/vendors', { method: 'PATCH', body: { mode: 'live', features: { identity: true } } });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ mode: 'live', features: { identity: true, paymentProcessing: true } });
    // No live key saved and this server runs the simulator: that is what is in use, and it needs no key.
    const simulated = await api('/api/admin/vendors/test-connection', { method: 'POST' });
    expect(simulated.status).toBe(200);
    expect(simulated.body).toMatchObject({ ok: true, provider: 'simulated', mode: 'live' });

    await api('/api/admin/vendors/live', { method: 'PUT', body: { secretKey: 'sk_live_wrongkey5555' } });
    const refused = await api('/api/admin/vendors/test-connection', { method: 'POST' });
    expect(refused.status).toBe(200);
    expect(refused.body.ok).toBe(false);
    expect(refused.body.mode).toBe('live');
    expect(refused.text).not.toContain('wrongkey');
    // What the server would use at its next start.
    expect((await activeStripeCredentials(ctx.handle.db, ctx.deps.vendorKey))?.secretKey).toBe('sk_live_wrongkey5555');
    const [settingsAudit] = await auditRows('vendor.settings.update');
    expect(settingsAudit?.before).toMatchObject({ mode: 'test' });
    expect(settingsAudit?.after).toMatchObject({ mode: 'live' });

    // null clears a secret.
    const cleared = await api('/api/admin/vendors/live', { method: 'PUT', body: { secretKey: null } });
    expect(cleared.body.live).toMatchObject({ secretKeySet: false, secretKeyLast4: null });
    await api('/api/admin/vendors', { method: 'PATCH', body: { mode: 'test' } });
  });

  test('Test Connection checks the mode the panel shows (body mode), not only the saved one, and names it', async () => {
    // Saved: mode test, with a good test key. The screen shows live (not saved yet), whose key is wrong.
    await api('/api/admin/vendors/live', { method: 'PUT', body: { secretKey: 'sk_live_wrongkey7777' } });
    expect((await api('/api/admin/vendors')).body.mode).toBe('test');
    const balanceCalls = stub.find('GET', '/v1/balance').length;

    const live = await api('/api/admin/vendors/test-connection', { method: 'POST', body: { mode: 'live' } });
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ ok: false, provider: 'stripe', mode: 'live' });
    expect(live.body.message.length).toBeGreaterThan(0);
    expect(stub.find('GET', '/v1/balance').length).toBe(balanceCalls + 1);
    const test = await api('/api/admin/vendors/test-connection', { method: 'POST', body: { mode: 'test' } });
    expect(test.body).toMatchObject({ ok: true, provider: 'stripe', mode: 'test', message: 'Connection successful' });
    // No mode: the saved active one, as before.
    const saved = await api('/api/admin/vendors/test-connection', { method: 'POST', body: {} });
    expect(saved.body).toMatchObject({ ok: true, mode: 'test' });
    // Testing a mode does not switch to it.
    expect((await api('/api/admin/vendors')).body.mode).toBe('test');
    const audits = (await auditRows('vendor.test_connection')).slice(-3);
    expect(audits.map((a) => a.targetId).sort()).toEqual(['live', 'test', 'test']);

    // A mode with no key while the simulator runs: that mode would run on the simulator.
    await api('/api/admin/vendors/live', { method: 'PUT', body: { secretKey: null } });
    const simulated = await api('/api/admin/vendors/test-connection', { method: 'POST', body: { mode: 'live' } });
    expect(simulated.body).toEqual({ ok: true, provider: 'simulated', mode: 'live', message: SIMULATED_CONNECTION_MESSAGE });
    // Stripe in use and the shown mode has no key: the panel's text.
    const inUse = ctx.deps.vendorInUse;
    ctx.deps.vendorInUse = { vendor: 'stripe', mode: 'test', source: 'admin' };
    try {
      const missing = await api('/api/admin/vendors/test-connection', { method: 'POST', body: { mode: 'live' } });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatchObject({ code: 'vendor_secret_missing', message: 'No secret key configured for current mode' });
    } finally {
      ctx.deps.vendorInUse = inUse;
    }
  });
});

describe('figures', () => {
  test('the dashboard and analytics are computed from real data', async () => {
    const c = await makeTestApp({ clock: ctx.clock });
    try {
      await makeAdmin(c);
      const t = await adminToken(c);
      const get = (p: string) => adminCall(c, t, p);
      const before = await get('/api/admin/dashboard');
      expect(before.status).toBe(200);
      expect(before.body).toMatchObject({
        users: { total: 0 },
        merchants: { total: 0 },
        bcardGeneration: { total: 0, successRate: 100 },
        fundingPool: { balance: 0 },
        transactions: { volume: 0 },
        fundingDeductions: { successRate: 100 },
        bcardsToday: 0,
        revenue: { total: 0 },
      });

      const u = await registerUser(c);
      const src = await addCard(c, u.cookie);
      await bcardCard(c, u.cookie, src.id, '25.00');
      await createMerchant(c, u.cookie);
      // A plan an admin gives brings no revenue and is not a paying subscriber; one the user pays for is both.
      const given = await registerUser(c);
      await adminCall(c, t, `/api/admin/users/${given.user.id}/subscription`, { method: 'PATCH', body: { tierId: 'tier_pro' } });
      const pro = await registerUser(c);
      const proCard = await addCard(c, pro.cookie);
      const paid = await call(c, '/api/subscription/upgrade', {
        method: 'POST',
        cookie: pro.cookie,
        body: { tierId: 'tier_pro', fundingSourceId: proCard.id },
        headers: { 'idempotency-key': 'admin-figures-upgrade' },
      });
      expect(paid.status).toBe(200);
      const proPrice = (await c.handle.db.query.subscriptionTiers.findFirst({ where: eq(schema.subscriptionTiers.id, 'tier_pro') }))!.monthlyPriceCents;
      const feeRows = (await c.handle.client.execute("SELECT coalesce(sum(amount_cents), 0) AS s FROM ledger_postings WHERE account = 'bpay:fees'")).rows;
      const fees = Number(feeRows[0]?.s);
      expect(fees).toBeGreaterThan(0);

      const d = (await get('/api/admin/dashboard')).body;
      expect(d).toMatchObject({
        users: { total: 3 },
        merchants: { total: 1 },
        bcardGeneration: { total: 1, successRate: 100 },
        fundingPool: { balance: 25 },
        transactions: { volume: 25 },
        fundingDeductions: { successRate: 100 },
        bcardsToday: 1,
      });
      expect(d.revenue.fees).toBe(fees / 100);
      expect(d.revenue.subscriptions).toBe(proPrice / 100);
      expect(d.revenue.total).toBe((proPrice + fees) / 100);

      const a = (await get('/api/admin/analytics')).body;
      expect(a.paymentVolumeByDay).toHaveLength(30);
      expect(a.paymentVolumeByDay.at(-1)).toEqual({ date: c.clock.now().toISOString().slice(0, 10), amount: 25 });
      expect(a.bcardsByDay.at(-1).count).toBe(1);
      expect(a.bcardsByDay.slice(0, -1).every((x: { count: number }) => x.count === 0)).toBe(true);
      expect(a.sharesPerPayment).toEqual([{ shares: 1, count: 1 }]);
      expect(a.revenueByPlan).toContainEqual({ plan: expect.any(String), revenue: proPrice / 100 });

      const s = (await get('/api/admin/subscription-analytics')).body;
      expect(s.totalSubscriptionRevenue).toBe(proPrice / 100);
      const byName = Object.fromEntries(s.subscriptionsByTier.map((x: { tierId: string; count: number }) => [x.tierId, x.count]));
      expect(byName).toMatchObject({ tier_free: 1, tier_pro: 1, tier_premium: 0 });
      const proRow = s.subscriptionsByTier.find((x: { tierId: string }) => x.tierId === 'tier_pro');
      expect(proRow.monthlyRevenue).toBe(proPrice / 100);

      const m = (await get('/api/admin/merchants')).body;
      expect(m).toHaveLength(1);
      expect(m[0]).toMatchObject({ businessName: 'Acme Shop', user: { email: u.email, firstName: 'Ada', lastName: 'Lovelace' } });
      expect(JSON.stringify(m)).not.toContain('secretKeyHash');
      expect((await get('/api/admin/merchants?search=nomatch')).body).toEqual([]);
    } finally {
      c.close();
    }
  });
});

describe('OpenAPI', () => {
  test('every admin route is documented with adminToken security and the error shape', async () => {
    const spec = (await call(ctx, '/swagger/json')).body;
    expect(spec.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const r of ADMIN_ROUTES) {
      const path = r.path.replace(/(usr_x|tier_pro|kyc_x|doc_x|dsp_x)/, '{id}').replace(/vendors\/test$/, 'vendors/{mode}');
      const op = spec.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${path}`).toBeDefined();
      expect(op.security).toEqual([{ adminToken: [] }]);
      expect(Object.keys(op.responses)).toContain('401');
      expect(op.tags).toContain('Admin');
    }
    expect(spec.paths['/api/admin/auth/login'].post.security).toEqual([]);
  });
});
