import { and, eq, inArray, sql } from 'drizzle-orm';
import { schema, prepared, preparedPerCount, slots } from '@bpay/db';

/*
 * The simulated processor's statements, built once (issue 29 §3, db/prepared.ts): a split runs the hold's, the
 * capture's and the refund's once per share, and a spent or ended bcard's card is deactivated once. simulated.ts says
 * what each means where it calls it.
 */

/* A refund's statements, built once (db/prepared.ts): a refund through a split runs them once per share. */
export const refundSubject = prepared((db) =>
  db
    .select({ hold: schema.simHolds, behavior: schema.simCards.behavior, done: schema.simRefunds.idempotencyKey })
    .from(schema.simHolds)
    .leftJoin(schema.simCards, eq(schema.simCards.token, schema.simHolds.token))
    .leftJoin(schema.simRefunds, eq(schema.simRefunds.idempotencyKey, sql.placeholder('key')))
    .where(eq(schema.simHolds.id, sql.placeholder('holdId')))
    .prepare(),
);
export const refundFromHold = prepared((db) =>
  db
    .update(schema.simHolds)
    .set({ refundedCents: sql`${schema.simHolds.refundedCents} + ${sql.placeholder('amount')}` })
    .where(and(eq(schema.simHolds.id, sql.placeholder('holdId')), sql`${schema.simHolds.refundedCents} + ${sql.placeholder('amount')} <= ${schema.simHolds.amountCents}`))
    .prepare(),
);
export const creditCard = prepared((db) =>
  db
    .update(schema.simCards)
    .set({ availableCents: sql`${schema.simCards.availableCents} + ${sql.placeholder('amount')}` })
    .where(eq(schema.simCards.token, sql.placeholder('token')))
    .prepare(),
);
export const creditBankAccount = prepared((db) =>
  db
    .update(schema.simBankAccounts)
    .set({ availableCents: sql`${schema.simBankAccounts.availableCents} + ${sql.placeholder('amount')}` })
    .where(eq(schema.simBankAccounts.token, sql.placeholder('token')))
    .prepare(),
);
export const insertSimRefund = prepared((db) =>
  db
    .insert(schema.simRefunds)
    .values({
      idempotencyKey: sql.placeholder('idempotencyKey'),
      holdId: sql.placeholder('holdId'),
      amountCents: sql.placeholder('amountCents'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
);

/* prepareHolds' read, built once per count (db/prepared.ts). */
export const cardsByToken = preparedPerCount((db, n) => db.select().from(schema.simCards).where(inArray(schema.simCards.token, slots('t', n))).prepare());

/* A bcard's statements, built once (db/prepared.ts): a split runs the hold's and the capture's once per share. */
export const holdByKey = prepared((db) =>
  db.select().from(schema.simHolds).where(eq(schema.simHolds.idempotencyKey, sql.placeholder('key'))).limit(1).prepare(),
);
export const cardByToken = prepared((db) =>
  db.select().from(schema.simCards).where(eq(schema.simCards.token, sql.placeholder('token'))).limit(1).prepare(),
);
export const debitCard = prepared((db) =>
  db
    .update(schema.simCards)
    .set({ availableCents: sql`${schema.simCards.availableCents} - ${sql.placeholder('amount')}` })
    .where(and(eq(schema.simCards.token, sql.placeholder('token')), sql`${schema.simCards.availableCents} >= ${sql.placeholder('amount')}`))
    .prepare(),
);
export const insertHold = prepared((db) =>
  db
    .insert(schema.simHolds)
    .values({
      id: sql.placeholder('id'),
      idempotencyKey: sql.placeholder('idempotencyKey'),
      token: sql.placeholder('token'),
      amountCents: sql.placeholder('amountCents'),
      status: 'held',
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
);
export const captureHold = prepared((db) =>
  db
    .update(schema.simHolds)
    .set({ status: 'captured' })
    .where(
      and(
        eq(schema.simHolds.id, sql.placeholder('holdId')),
        sql`${schema.simHolds.status} IN ('held', 'captured')`,
        sql`NOT EXISTS (SELECT 1 FROM ${schema.simCards} WHERE ${schema.simCards.token} = ${schema.simHolds.token} AND ${schema.simCards.behavior} = 'capture_fails')`,
      ),
    )
    .prepare(),
);
export const issuedById = prepared((db) =>
  db.select().from(schema.simIssuedCards).where(eq(schema.simIssuedCards.id, sql.placeholder('id'))).limit(1).prepare(),
);
export const insertIssued = prepared((db) =>
  db
    .insert(schema.simIssuedCards)
    .values({
      id: sql.placeholder('id'),
      idempotencyKey: sql.placeholder('idempotencyKey'),
      numberFingerprint: sql.placeholder('numberFingerprint'),
      numberNonce: sql.placeholder('numberNonce'),
      last4: sql.placeholder('last4'),
      expMonth: sql.placeholder('expMonth'),
      expYear: sql.placeholder('expYear'),
      limitCents: sql.placeholder('limitCents'),
      singleUse: true,
      status: 'active',
      expiresAt: sql.placeholder('expiresAt'),
      createdAt: sql.placeholder('createdAt'),
    })
    .onConflictDoNothing()
    .returning()
    .prepare(),
);

/* The hold's reads by key and by id, its void, and an issued card's deactivation. */
export const holdById = prepared((db) =>
  db.select().from(schema.simHolds).where(eq(schema.simHolds.id, sql.placeholder('id'))).limit(1).prepare(),
);
export const voidHeld = prepared((db) =>
  db.update(schema.simHolds).set({ status: 'voided' }).where(eq(schema.simHolds.id, sql.placeholder('id'))).prepare(),
);
export const deactivateIssued = prepared((db) =>
  db.update(schema.simIssuedCards).set({ status: 'inactive' }).where(eq(schema.simIssuedCards.id, sql.placeholder('id'))).prepare(),
);
