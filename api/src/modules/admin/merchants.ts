import { and, desc, eq, or, type SQL } from 'drizzle-orm';
import { schema, type Environment } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { toMerchantView } from '../merchants/service';
import { ADMIN_LISTS, afterCursor, toPage } from './users';
import { searchCondition, searchMatches, searchText } from './search';

/**
 * Every merchant with its owner, newest first (ties by id), a page at a time; optional search (a part of the business
 * name or e-mail or of the owner's name, at least 3 characters: search.ts) and environment filter. Fails with:
 * validation_error (cursor, search).
 */
export async function listAllMerchants(
  deps: AppDeps,
  q: { search?: string; environment?: Environment; limit: number; cursor?: string | null; searchMany?: number },
) {
  // The cursor first: one from another list is refused before anything is read (the search included).
  // merchants_created_idx / merchants_environment_idx end in (created_at, id): the row value seeks them.
  const after = q.cursor ? afterCursor(schema.merchants.createdAt, schema.merchants.id, q.cursor, ADMIN_LISTS.merchants) : null;
  const conds: SQL[] = [];
  const text = searchText(q.search);
  if (text !== null) {
    conds.push(searchCondition('merchants', schema.merchants.id, text, await searchMatches(deps.db, 'merchants', text, q.searchMany)));
  }
  if (q.environment) conds.push(eq(schema.merchants.environment, q.environment));
  if (after) conds.push(after);
  const rows = await deps.db
    // The owner as the list shows them: never their password hash or two-factor secrets.
    .select({ m: schema.merchants, u: { id: schema.users.id, firstName: schema.users.firstName, lastName: schema.users.lastName, email: schema.users.email } })
    .from(schema.merchants)
    .innerJoin(schema.users, eq(schema.users.id, schema.merchants.userId))
    .where(conds.length ? and(...conds) : undefined)
    .orderBy(desc(schema.merchants.createdAt), desc(schema.merchants.id))
    .limit(q.limit + 1);
  const page = toPage(rows.map((r) => ({ ...r, createdAt: r.m.createdAt, id: r.m.id })), q.limit, ADMIN_LISTS.merchants);
  return {
    data: page.rows.map(({ m, u }) => {
      const { secretKeyHint: _hint, secretKeyRolledAt: _rolled, ...view } = toMerchantView(m);
      return { ...view, user: { id: u.id, firstName: u.firstName, lastName: u.lastName, email: u.email } };
    }),
    nextCursor: page.nextCursor,
  };
}
