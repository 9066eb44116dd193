import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { asc, eq, sql } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, makeTestApp, type TestContext } from '../api/test-support/app';
import { registerUser } from '../api/test-support/world';
import { migrateDb, openDb, schema, type DbHandle } from './client';
import { seedDb } from './seed';

describe('seedDb on an empty database', () => {
  let dir: string;
  let handle: DbHandle;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bpay-seed-'));
    handle = openDb({ url: `file:${join(dir, 'x.db')}` });
    await migrateDb(handle.db);
  });
  afterAll(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tiers = () =>
    handle.db.select().from(schema.subscriptionTiers).orderBy(asc(schema.subscriptionTiers.sortOrder));

  test('creates free, pro and premium with the exact values', async () => {
    expect(await tiers()).toHaveLength(0);
    await seedDb(handle.db, new Date(Date.UTC(2026, 0, 1)));
    const rows = await tiers();
    expect(
      rows.map((t) => ({
        name: t.name,
        displayName: t.displayName,
        monthlyPriceCents: t.monthlyPriceCents,
        transactionFeeBps: t.transactionFeeBps,
        fundingSourcesLimit: t.fundingSourcesLimit,
        isActive: t.isActive,
      })),
    ).toEqual([
      { name: 'free', displayName: 'Free', monthlyPriceCents: 0, transactionFeeBps: 290, fundingSourcesLimit: 2, isActive: true },
      { name: 'pro', displayName: 'Professional', monthlyPriceCents: 999, transactionFeeBps: 290, fundingSourcesLimit: 5, isActive: true },
      { name: 'premium', displayName: 'Premium', monthlyPriceCents: 1999, transactionFeeBps: 190, fundingSourcesLimit: -1, isActive: true },
    ]);
    // Integer columns, not floats.
    for (const t of rows) {
      expect(Number.isInteger(t.monthlyPriceCents)).toBe(true);
      expect(Number.isInteger(t.transactionFeeBps)).toBe(true);
      expect(t.createdAt.getTime()).toBe(Date.UTC(2026, 0, 1));
    }
  });

  test('is idempotent: a second and third run add and change nothing', async () => {
    const before = await tiers();
    await seedDb(handle.db, new Date(Date.UTC(2027, 5, 1)));
    await seedDb(handle.db, new Date(Date.UTC(2028, 5, 1)));
    const after = await tiers();
    expect(after).toEqual(before);
    const [count] = await handle.db.select({ n: sql<number>`count(*)` }).from(schema.subscriptionTiers);
    expect(Number(count?.n)).toBe(3);
  });

  test('does not overwrite plans an operator changed', async () => {
    await handle.db
      .update(schema.subscriptionTiers)
      .set({ monthlyPriceCents: 1499 })
      .where(eq(schema.subscriptionTiers.name, 'pro'));
    await seedDb(handle.db, new Date());
    const pro = await handle.db.query.subscriptionTiers.findFirst({ where: eq(schema.subscriptionTiers.name, 'pro') });
    expect(pro?.monthlyPriceCents).toBe(1499);
  });
});

describe('plans over the API', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => ctx.close());

  test('GET /api/subscription/tiers answers the seeded plans in order, without a cookie', async () => {
    const res = await call(ctx, '/api/subscription/tiers');
    expect(res.status).toBe(200);
    const tiers = res.body.tiers as Array<{ name: string; displayName: string; monthlyPrice: number; transactionFeeRate: number; limits: { fundingSources: number } }>;
    expect(tiers.map((t) => t.name)).toEqual(['free', 'pro', 'premium']);
    expect(tiers.map((t) => t.displayName)).toEqual(['Free', 'Professional', 'Premium']);
    expect(tiers.map((t) => t.monthlyPrice)).toEqual([0, 9.99, 19.99]);
    expect(tiers.map((t) => t.transactionFeeRate)).toEqual([0.029, 0.029, 0.019]);
    expect(tiers.map((t) => t.limits.fundingSources)).toEqual([2, 5, -1]);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  test("a new user's benefits: free plan, 2 sources, name verification, 2.9 %", async () => {
    const { cookie } = await registerUser(ctx);
    const res = await call(ctx, '/api/subscription/benefits', { cookie });
    expect(res.status).toBe(200);
    expect(res.body.currentTier).toBe('free');
    expect(res.body.benefits).toMatchObject({
      maxFundingSources: 2,
      nameVerificationRequired: true,
      isKycVerified: false,
      feePercentage: 2.9,
    });
  });

  test('a verified user on the free plan gets a third source and no name verification', async () => {
    const { cookie, user } = await registerUser(ctx);
    await ctx.handle.db.update(schema.users).set({ kycStatus: 'verified' }).where(eq(schema.users.id, user.id));
    const res = await call(ctx, '/api/subscription/benefits', { cookie });
    expect(res.status).toBe(200);
    expect(res.body.currentTier).toBe('free');
    expect(res.body.benefits).toMatchObject({
      maxFundingSources: 3,
      nameVerificationRequired: false,
      isKycVerified: true,
      feePercentage: 2.9,
    });
    const me = await call(ctx, '/api/auth/user', { cookie });
    expect(me.body.isKycVerified).toBe(true);
  });

  test('benefits without a cookie is 401 in the error shape', async () => {
    const res = await call(ctx, '/api/subscription/benefits');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: {
        type: 'authentication_error',
        code: 'unauthenticated',
        message: expect.any(String),
        request_id: res.headers.get('request-id'),
      },
    });
  });
});
