import { and, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import { schema, type Environment } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { toMerchantView } from '../merchants/service';
import { afterCursor, likeContains, toPage } from './users';

/**
 * Every merchant with its owner, newest first (ties by id), a page at a time; optional business name/e-mail search
 * and environment filter. Fails with: validation_error (cursor).
 */
export async function listAllMerchants(
  deps: AppDeps,
  q: { search?: string; environment?: Environment; limit: number; cursor?: string | null },
) {
  const conds: SQL[] = [];
  if (q.search?.trim()) {
    const p = likeContains(q.search.trim().toLowerCase());
    const match = or(
      sql`lower(${schema.merchants.businessName}) LIKE ${p} ESCAPE '\\'`,
      sql`lower(${schema.merchants.businessEmail}) LIKE ${p} ESCAPE '\\'`,
    );
    if (match) conds.push(match);
  }
  if (q.environment) conds.push(eq(schema.merchants.environment, q.environment));
  // merchants_created_idx / merchants_environment_idx end in (created_at, id): the row value seeks them.
  if (q.cursor) conds.push(afterCursor(schema.merchants.createdAt, schema.merchants.id, q.cursor));
  const rows = await deps.db
    .select({ m: schema.merchants, u: schema.users })
    .from(schema.merchants)
    .innerJoin(schema.users, eq(schema.users.id, schema.merchants.userId))
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(desc(schema.merchants.createdAt), desc(schema.merchants.id))
    .limit(q.limit + 1);
  const page = toPage(rows.map((r) => ({ ...r, createdAt: r.m.createdAt, id: r.m.id })), q.limit);
  return {
    data: page.rows.map(({ m, u }) => {
      const { secretKeyHint: _hint, secretKeyRolledAt: _rolled, ...view } = toMerchantView(m);
      return { ...view, user: { id: u.id, firstName: u.firstName, lastName: u.lastName, email: u.email } };
    }),
    nextCursor: page.nextCursor,
  };
}
