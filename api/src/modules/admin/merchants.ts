import { and, desc, eq, or, sql } from 'drizzle-orm';
import { schema, type Environment } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { toMerchantView } from '../merchants/service';
import { ADMIN_LIST_LIMIT, likeContains } from './users';

/** Every merchant (newest first) with its owner; optional business name/e-mail search and environment filter. */
export async function listAllMerchants(deps: AppDeps, q: { search?: string; environment?: Environment }) {
  const conds = [];
  if (q.search?.trim()) {
    const p = likeContains(q.search.trim().toLowerCase());
    conds.push(
      or(
        sql`lower(${schema.merchants.businessName}) LIKE ${p} ESCAPE '\\'`,
        sql`lower(${schema.merchants.businessEmail}) LIKE ${p} ESCAPE '\\'`,
      ),
    );
  }
  if (q.environment) conds.push(eq(schema.merchants.environment, q.environment));
  const rows = await deps.db
    .select({ m: schema.merchants, u: schema.users })
    .from(schema.merchants)
    .innerJoin(schema.users, eq(schema.users.id, schema.merchants.userId))
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(desc(schema.merchants.createdAt))
    .limit(ADMIN_LIST_LIMIT);
  return rows.map(({ m, u }) => {
    const { secretKeyHint: _hint, secretKeyRolledAt: _rolled, ...view } = toMerchantView(m);
    return { ...view, user: { id: u.id, firstName: u.firstName, lastName: u.lastName, email: u.email } };
  });
}
