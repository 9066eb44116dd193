import { and, asc, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import { schema, type DbOrTx, firstRow } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { invalid, notFound } from '../../errors';
import { newId } from '../../lib/ids';
import { shownText } from '../../lib/text';
import { createdCondition, type CreatedRange } from '../../lib/created-filter';
import { merchantScope } from '../webhooks/idempotent';

/*
 * A merchant's Customers (Stripe's object, issue 28): contact details and metadata that a payment intent can name.
 * Scoped to the merchant and its mode: another merchant's id is "No such customer". Deleting one keeps its row (the
 * intents that name it keep the id, and retrieve answers `{ id, object, deleted: true }` as Stripe does) and clears
 * its personal details at once.
 */

type MerchantRow = typeof schema.merchants.$inferSelect;
type CustomerRow = typeof schema.customers.$inferSelect;

export const MAX_CUSTOMER_METADATA_KEYS = 50;
/** One @, something before it, a dot after it, no spaces: what a mail server could take, not a full RFC 5322 parse. */
const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:"]+$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= 512 && EMAIL.test(value);
}

export interface CustomerObject {
  id: string;
  object: 'customer';
  email: string | null;
  name: string | null;
  phone: string | null;
  description: string | null;
  metadata: Record<string, string>;
  created: number;
  livemode: boolean;
}

export interface DeletedCustomerObject {
  id: string;
  object: 'customer';
  deleted: true;
}

export function toCustomerObject(c: CustomerRow): CustomerObject {
  return {
    id: c.id,
    object: 'customer',
    email: c.email,
    name: c.name,
    phone: c.phone,
    description: c.description,
    metadata: c.metadata,
    created: Math.floor(c.createdAt.getTime() / 1000),
    livemode: c.livemode,
  };
}

export interface CustomerFields {
  /** A string sets it; null or "" clears it. */
  email?: string | null;
  name?: string | null;
  phone?: string | null;
  description?: string | null;
}

/** "" and null clear a field; an e-mail must look like one. Fails with: validation_error. */
function checkFields(input: CustomerFields): Partial<Record<keyof CustomerFields, string | null>> {
  const out: Partial<Record<keyof CustomerFields, string | null>> = {};
  for (const key of ['email', 'name', 'phone', 'description'] as const) {
    const v = input[key];
    if (v === undefined) continue;
    out[key] = v === '' || v === null ? null : v;
  }
  if (out.email && !isEmailAddress(out.email)) throw invalid('email', `email must be an e-mail address (name@example.com); '${shownText(out.email)}' is not one.`);
  return out;
}

/** Metadata as given (at most MAX keys of 1-40 characters, string values of at most 500; "" means no value). */
function checkMetadata(metadata: Record<string, unknown>): void {
  const keys = Object.keys(metadata);
  if (keys.length > MAX_CUSTOMER_METADATA_KEYS) throw invalid('metadata', `metadata can have at most ${MAX_CUSTOMER_METADATA_KEYS} keys.`);
  for (const k of keys) {
    const param = `metadata[${shownText(k)}]`;
    if (k.length === 0 || k.length > 40) throw invalid(param, 'metadata keys must be 1 to 40 characters.');
    const v = metadata[k];
    if (typeof v !== 'string' || v.length > 500) {
      throw invalid(param, 'metadata values must be strings of at most 500 characters ("" means no value: the key is not kept).');
    }
  }
}

/**
 * Creates a customer. A metadata value "" is simply not stored (Stripe's rule: "" means unset, which on create is no
 * key at all; on update it removes the key). Fails with: validation_error.
 */
export async function createCustomer(
  tx: DbOrTx,
  deps: AppDeps,
  merchant: MerchantRow,
  livemode: boolean,
  input: CustomerFields & { metadata?: Record<string, string> },
): Promise<CustomerObject> {
  const fields = checkFields(input);
  checkMetadata(input.metadata ?? {});
  const metadata = Object.fromEntries(Object.entries(input.metadata ?? {}).filter(([, v]) => v !== ''));
  const now = deps.clock.now();
  const c = schema.customers;
  const next = sql<number>`(select coalesce(max(${c.seq}), 0) + 1 from ${c} where ${c.merchantId} = ${merchant.id} and ${c.livemode} = ${livemode})`;
  const [row] = await tx
    .insert(c)
    .values({
      id: newId('cus'),
      merchantId: merchant.id,
      livemode,
      email: fields.email ?? null,
      name: fields.name ?? null,
      phone: fields.phone ?? null,
      description: fields.description ?? null,
      metadata,
      seq: next,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return toCustomerObject(row!);
}

const scopeOf = (merchant: MerchantRow, livemode: boolean, id: string) =>
  and(eq(schema.customers.id, id), eq(schema.customers.merchantId, merchant.id), eq(schema.customers.livemode, livemode));

/** The merchant's customer in its mode, deleted or not; anything else is not found. Fails with: resource_not_found. */
async function findCustomer(db: DbOrTx, merchant: MerchantRow, livemode: boolean, id: string): Promise<CustomerRow> {
  const row = await firstRow(db, schema.customers, scopeOf(merchant, livemode, id));
  if (!row) throw notFound('customer', id, 'id');
  return row;
}

/** A customer, or `{ id, object, deleted: true }` once deleted (Stripe's answer). Fails with: resource_not_found. */
export async function retrieveCustomer(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<CustomerObject | DeletedCustomerObject> {
  const row = await findCustomer(deps.db, merchant, livemode, id);
  return row.deletedAt ? { id: row.id, object: 'customer', deleted: true } : toCustomerObject(row);
}

/**
 * Whether a payment intent may name this customer: the merchant's own, in the same mode, not deleted.
 * Fails with: validation_error naming `customer`.
 */
export async function assertIntentCustomer(tx: DbOrTx, merchant: MerchantRow, livemode: boolean, id: string): Promise<void> {
  const row = await firstRow(tx, schema.customers, and(scopeOf(merchant, livemode, id), isNull(schema.customers.deletedAt)));
  if (!row) throw invalid('customer', `No such customer: '${shownText(id)}'.`);
}

/**
 * Updates the fields given; metadata is merged as Stripe merges it (a key set to "" is removed; metadata "" or null
 * removes every key), in one statement with SQLite's json_patch, so two updates at once each keep the other's keys.
 * Fails with: validation_error, resource_not_found (also for a deleted customer, as Stripe answers).
 */
export async function updateCustomer(
  tx: DbOrTx,
  deps: AppDeps,
  merchant: MerchantRow,
  livemode: boolean,
  id: string,
  input: CustomerFields & { metadata?: Record<string, string> | '' | null },
): Promise<CustomerObject> {
  const fields = checkFields(input);
  const c = schema.customers;
  const set: SQLiteUpdateSetSource<typeof c> = { ...fields, updatedAt: deps.clock.now() };
  let metadata = sql`${c.metadata}`;
  if (input.metadata === '' || input.metadata === null) metadata = sql`'{}'`;
  else if (input.metadata !== undefined) {
    checkMetadata(input.metadata);
    const patch = Object.fromEntries(Object.entries(input.metadata).map(([k, v]) => [k, v === '' ? null : v]));
    metadata = sql`json_patch(${c.metadata}, ${JSON.stringify(patch)})`;
  }
  if (input.metadata !== undefined) set.metadata = metadata;
  const [row] = await tx
    .update(c)
    .set(set)
    .where(
      and(
        scopeOf(merchant, livemode, id),
        isNull(c.deletedAt),
        input.metadata === undefined ? undefined : sql`(select count(*) from json_each(${metadata})) <= ${MAX_CUSTOMER_METADATA_KEYS}`,
      ),
    )
    .returning();
  if (row) return toCustomerObject(row);
  const now = await findCustomer(tx, merchant, livemode, id);
  if (now.deletedAt) throw notFound('customer', id, 'id');
  throw invalid('metadata', `metadata can have at most ${MAX_CUSTOMER_METADATA_KEYS} keys; this update would leave it with more.`);
}

/**
 * Deletes a customer: the row stays (intents keep naming its id) with its personal details cleared. The answers kept
 * for Idempotency-Key replays of its create and updates held the details too (for 24 hours): in the same transaction
 * they become the deleted answer, so a replay answers the customer as it now is and nothing keeps the details
 * (hostile review 28-H). Deleting it again answers the same. Fails with: resource_not_found.
 */
export async function deleteCustomer(deps: AppDeps, merchant: MerchantRow, livemode: boolean, id: string): Promise<DeletedCustomerObject> {
  const at = deps.clock.now();
  const deleted: DeletedCustomerObject = { id, object: 'customer', deleted: true };
  const k = schema.idempotencyKeys;
  await deps.db.transaction(async (tx) => {
    const res = await tx
      .update(schema.customers)
      .set({ email: null, name: null, phone: null, description: null, metadata: {}, deletedAt: at, updatedAt: at })
      .where(and(scopeOf(merchant, livemode, id), isNull(schema.customers.deletedAt)));
    if (res.rowsAffected !== 1) return;
    await tx
      .update(k)
      .set({ responseBody: JSON.stringify(deleted) })
      .where(
        and(
          eq(k.scope, merchantScope(merchant.id)),
          eq(k.status, 'done'),
          eq(k.responseStatus, 200),
          // Every stored body is JSON; the CASE keeps json_extract from ever reading one that is not.
          sql`case when json_valid(${k.responseBody}) then json_extract(${k.responseBody}, '$.object') = 'customer' and json_extract(${k.responseBody}, '$.id') = ${id} else 0 end`,
        ),
      );
  });
  await findCustomer(deps.db, merchant, livemode, id);
  return deleted;
}

export interface CustomerListInput {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  /** Only customers with exactly this e-mail address (case-sensitive, as Stripe's filter). */
  email?: string;
  created?: CreatedRange;
}

/** Newest first, Stripe's cursor pagination; deleted customers are left out. Fails with: validation_error. */
export async function listCustomers(deps: AppDeps, merchant: MerchantRow, livemode: boolean, q: CustomerListInput) {
  if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > 100) throw invalid('limit', 'limit must be an integer from 1 to 100.');
  if (q.starting_after && q.ending_before) throw invalid('ending_before', 'Give starting_after or ending_before, not both.');
  const c = schema.customers;
  const scope = and(
    eq(c.merchantId, merchant.id),
    eq(c.livemode, livemode),
    isNull(c.deletedAt),
    q.email === undefined ? undefined : eq(c.email, q.email),
    createdCondition(c.createdAt, q.created ?? {}),
  );
  const anchorOf = async (param: 'starting_after' | 'ending_before', id: string) => {
    const row = await firstRow(deps.db, c, and(scopeOf(merchant, livemode, id)));
    if (!row) throw invalid(param, `${param} is not one of your customers.`);
    return row.seq;
  };
  const page = (rows: CustomerRow[], hasMore: boolean) => ({
    object: 'list' as const,
    url: '/api/v1/customers',
    has_more: hasMore,
    data: rows.map(toCustomerObject),
  });
  if (q.ending_before) {
    const seq = await anchorOf('ending_before', q.ending_before);
    const rows = (await deps.db.select().from(c).where(and(scope, gt(c.seq, seq))).orderBy(asc(c.seq)).limit(q.limit + 1)).reverse();
    const hasMore = rows.length > q.limit;
    return page(hasMore ? rows.slice(1) : rows, hasMore);
  }
  const after = q.starting_after ? lt(c.seq, await anchorOf('starting_after', q.starting_after)) : undefined;
  const rows = await deps.db.select().from(c).where(and(scope, after)).orderBy(desc(c.seq)).limit(q.limit + 1);
  return page(rows.slice(0, q.limit), rows.length > q.limit);
}
