import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema, type Db } from '@bpay/db';
import { makeTestApp, type TestContext } from '../../../test-support/app';
import { makeAdmin } from '../../../test-support/modules/admin';
import { createTier, toggleTier, updateTier } from './tiers';
import type { AdminActor } from './users';

/*
 * The tier writes that race are single guarded statements. These tests put another writer exactly between a
 * service's first read and its write (when the service opens its transaction), which no scheduling of real requests
 * does reliably.
 */
let ctx: TestContext;
let actor: AdminActor;
beforeAll(async () => {
  ctx = await makeTestApp();
  actor = { adminId: (await makeAdmin(ctx)).id, ip: null };
});
afterAll(() => ctx.close());

/** The database, except that `meanwhile` runs once, just before the first transaction starts. */
function withWriterBetween(db: Db, meanwhile: () => Promise<unknown>): Db {
  let done = false;
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'transaction') {
        return async (...args: Parameters<Db['transaction']>) => {
          if (!done) {
            done = true;
            await meanwhile();
          }
          return target.transaction(...args);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const tierRow = (id: string) => ctx.handle.db.query.subscriptionTiers.findFirst({ where: eq(schema.subscriptionTiers.id, id) });

describe('toggle', () => {
  test('a toggle committed by someone else meanwhile is not lost: two toggles, two flips', async () => {
    const tier = await createTier(ctx.handle.db, ctx.clock, actor, { name: 'flip', displayName: 'Flip', monthlyPrice: 1 });
    expect(tier.isActive).toBe(true);
    const db = withWriterBetween(ctx.handle.db, () => toggleTier(ctx.handle.db, ctx.clock, actor, tier.id));
    const after = await toggleTier(db, ctx.clock, actor, tier.id);
    // Off by the other admin, then on again by this one (a read-then-write would have written "off" twice).
    expect(after.isActive).toBe(true);
    expect((await tierRow(tier.id))!.isActive).toBe(true);
  });
});

describe('the default plan', () => {
  test('the guard is in the statement: a tier that became the default plan meanwhile is not deactivated or renamed', async () => {
    const tier = await createTier(ctx.handle.db, ctx.clock, actor, { name: 'heir', displayName: 'Heir', monthlyPrice: 0 });
    // Someone (a migration, another process) makes this tier the default plan between the service's read and its write.
    const promote = async () => {
      await ctx.handle.db.update(schema.subscriptionTiers).set({ name: 'free_old' }).where(eq(schema.subscriptionTiers.id, 'tier_free'));
      await ctx.handle.db.update(schema.subscriptionTiers).set({ name: 'free' }).where(eq(schema.subscriptionTiers.id, tier.id));
    };
    const off = toggleTier(withWriterBetween(ctx.handle.db, promote), ctx.clock, actor, tier.id);
    await expect(off).rejects.toMatchObject({ code: 'tier_is_default' });
    expect(await tierRow(tier.id)).toMatchObject({ name: 'free', isActive: true });

    // Back to the seeded default, then the same race for an edit that deactivates and one that renames.
    const restore = async () => {
      await ctx.handle.db.update(schema.subscriptionTiers).set({ name: 'heir' }).where(eq(schema.subscriptionTiers.id, tier.id));
      await ctx.handle.db.update(schema.subscriptionTiers).set({ name: 'free' }).where(eq(schema.subscriptionTiers.id, 'tier_free'));
    };
    await restore();
    for (const input of [{ isActive: false }, { name: 'heir2', displayName: 'Renamed' }]) {
      const edit = updateTier(withWriterBetween(ctx.handle.db, promote), ctx.clock, actor, tier.id, input);
      await expect(edit).rejects.toMatchObject({ code: 'tier_is_default' });
      expect(await tierRow(tier.id)).toMatchObject({ name: 'free', displayName: 'Heir', isActive: true });
      await restore();
    }
  });
});
