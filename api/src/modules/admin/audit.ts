import { desc } from 'drizzle-orm';
import { schema, type Db, type DbOrTx } from '@bpay/db';
import type { Clock } from '../../lib/clock';
import { newId } from '../../lib/ids';

export interface AuditEntry {
  adminId: string | null;
  action: string;
  targetType: string;
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
  ip?: string | null;
}

/**
 * Appends one audit row. Call it with the transaction that makes the change, so a change and its record commit
 * together. Never put a secret in before/after: callers pass views (last 4 characters, "set" flags), not values.
 */
export async function recordAudit(db: DbOrTx, clock: Clock, e: AuditEntry): Promise<void> {
  await db.insert(schema.auditLog).values({
    id: newId('aud'),
    adminId: e.adminId,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId ?? null,
    before: e.before ?? null,
    after: e.after ?? null,
    ip: e.ip ?? null,
    at: clock.now(),
  });
}

/** Newest first. */
export async function listAudit(db: Db, limit = 100) {
  return db.select().from(schema.auditLog).orderBy(desc(schema.auditLog.at)).limit(limit);
}
