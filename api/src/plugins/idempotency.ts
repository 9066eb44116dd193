import { and, eq, lt, sql } from 'drizzle-orm';
import { schema, type Db, type DbOrTx, isUniqueViolationAt, prepared, writeUnit, type WriteUnit } from '@bpay/db';
import { AppError, errorBody } from '../errors';
import type { Clock } from '../lib/clock';
import { hmacHex } from '../lib/crypto';
import { setPlaceholder } from '../lib/set-placeholder';

export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** How long an unfinished request keeps its key to itself; after a crash the key can be used again. */
export const IDEMPOTENCY_LOCK_MS = 2 * 60_000;
export const REPLAY_HEADER = 'idempotent-replayed';

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  /** Keys the field digests, so even a 3-digit field (a CVV) cannot be recovered from them. */
  secret: string;
}

export interface HandlerResult {
  status: number;
  body: unknown;
}

export interface IdempotentOutcome extends HandlerResult {
  replayed: boolean;
}

/** One HMAC per top-level field of the body (bench/waste.ts measures it). */
export function digests(secret: string, body: unknown): Record<string, string> {
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : { '': body };
  return Object.fromEntries(
    Object.keys(fields)
      .sort()
      .map((k) => [k, hmacHex(secret, `idem:${k}:${JSON.stringify(fields[k] ?? null)}`)]),
  );
}

function differingFields(a: Record<string, string>, b: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => a[k] !== b[k]).sort();
}

/* runIdempotent's three statements on every keyed request (claim, and the answer stored), built once (db/prepared.ts). */
const sameKey = () => and(eq(schema.idempotencyKeys.scope, sql.placeholder('scope')), eq(schema.idempotencyKeys.key, sql.placeholder('key')));
const deleteExpiredKey = prepared((db) =>
  // A placeholder in a condition has no column encoder: the time goes as the column stores it (ms).
  db.delete(schema.idempotencyKeys).where(and(sameKey(), lt(schema.idempotencyKeys.expiresAt, sql.placeholder('now')))).prepare(),
);
const claimKey = prepared((db) =>
  db
    .insert(schema.idempotencyKeys)
    .values({
      scope: sql.placeholder('scope'),
      key: sql.placeholder('key'),
      method: sql.placeholder('method'),
      path: sql.placeholder('path'),
      fieldDigests: sql.placeholder('fieldDigests'),
      status: 'in_progress',
      lockedUntil: sql.placeholder('lockedUntil'),
      createdAt: sql.placeholder('createdAt'),
      expiresAt: sql.placeholder('expiresAt'),
    })
    .onConflictDoNothing()
    .returning({ id: schema.idempotencyKeys.id })
    .prepare(),
);
const storeAnswer = prepared((db) =>
  db
    .update(schema.idempotencyKeys)
    .set({ status: 'done', responseStatus: setPlaceholder<number>('responseStatus'), responseBody: setPlaceholder<string>('responseBody') })
    .where(sameKey())
    .prepare(),
);

/**
 * Runs a money-moving handler at most once per (scope, Idempotency-Key) for 24 hours. A replay answers the stored
 * status and body; the same key with a different body is an idempotency_error naming the fields that differ; a
 * key whose first request is still running answers 409. Client errors (4xx) are stored like successes; a server
 * error lets the request be retried (see the catch below). Without a key the handler simply runs.
 *
 * The handler is given the key to pass on (to the collection, to the processor): the client's key tagged with
 * this record's id. A retry that takes over an unfinished request gets the same one, so it finds what the first
 * attempt did; a key used again after 24 hours, or retried after a server error freed it, gets a new one, so it
 * starts a new request instead of answering the old one's outcome (records elsewhere outlive this one). A retry
 * after an unexpected 500 takes over like a retry after a crash.
 */
export async function runIdempotent(
  deps: IdempotencyDeps,
  req: { scope: string; key: string | null; method: string; path: string; body: unknown },
  handler: (scopedKey: string | null) => Promise<HandlerResult>,
): Promise<IdempotentOutcome> {
  if (req.key === null) return { ...(await handler(null)), replayed: false };
  if (req.key.length < 1 || req.key.length > 255 || !/^[\x21-\x7e]+$/.test(req.key)) {
    throw new AppError('invalid_idempotency_key', undefined, 'Idempotency-Key');
  }
  const { db, clock } = deps;
  const now = clock.now();
  const fieldDigests = digests(deps.secret, req.body);
  const where = and(eq(schema.idempotencyKeys.scope, req.scope), eq(schema.idempotencyKeys.key, req.key));

  // An expired record of this key gives way to the new one, in the same commit: one unit of work as data (issue 30),
  // one round trip to a libSQL server. The claim's RETURNING is read once the unit has committed.
  const key = req.key;
  const claim = writeUnit(db);
  await deleteExpiredKey(claim.tx).run({ scope: req.scope, key, now: now.getTime() });
  const claimAt = claim.size;
  await claimKey(claim.tx).run({
    scope: req.scope,
    key,
    method: req.method,
    path: req.path,
    fieldDigests,
    lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LOCK_MS),
    createdAt: now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
  });
  await claim.commit();
  const inserted = claim.result(claimAt).rows as unknown as Array<{ id: number }>;

  let recordId = inserted[0]?.id;
  if (recordId === undefined) {
    const row = await db.query.idempotencyKeys.findFirst({ where });
    if (!row) throw new AppError('idempotency_key_in_use');
    // Done, or another request's key: the stored answer or the reason (replayOf throws for a mismatch).
    const mismatch = row.method !== req.method || row.path !== req.path || differingFields(row.fieldDigests, fieldDigests).length > 0;
    if (row.status === 'done' || mismatch) return replayOf(row, req, fieldDigests);
    // Still running, unless its lock ran out (the process died): then this request takes the key over.
    const takeover = await db
      .update(schema.idempotencyKeys)
      .set({ lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LOCK_MS) })
      .where(and(where, eq(schema.idempotencyKeys.status, 'in_progress'), lt(schema.idempotencyKeys.lockedUntil, now)));
    if (takeover.rowsAffected !== 1) throw new AppError('idempotency_key_in_use');
    recordId = row.id;
  }

  // The answer, stored as a unit of its own (one round trip to a server, as the claim).
  const store = async (status: number, body: unknown) => {
    const unit = writeUnit(db);
    await storeAnswer(unit.tx).run({ responseStatus: status, responseBody: JSON.stringify(body), scope: req.scope, key });
    await unit.commit();
  };
  try {
    const result = await handler(`${req.key}#${recordId}`);
    await store(result.status, result.body);
    return { ...result, replayed: false };
  } catch (e) {
    // A retry that took over finds the first attempt's work still unfinished: not an answer to remember, or every
    // later retry would hear "still being processed" for 24 hours. The record stays in progress under its lock.
    if (e instanceof AppError && e.code === 'idempotency_key_in_use') throw e;
    // A rate limit refused the request before it did anything and asks for a retry after Retry-After: remembering
    // that answer would refuse the retry for 24 hours. The key is freed (as Stripe does not save a 429).
    if (e instanceof AppError && e.type === 'rate_limit_error') await db.delete(schema.idempotencyKeys).where(where);
    else if (e instanceof AppError && e.status < 500) await store(e.status, errorBody(e));
    // A server error the code answered on purpose (vendor_unavailable, processing_error) comes after everything was
    // undone: the key is freed and a retry starts afresh.
    else if (e instanceof AppError) await db.delete(schema.idempotencyKeys).where(where);
    // An unexpected failure may have left money moved: the record stays in progress with its lock released, so a
    // retry takes it over with the same handler key and finds what this attempt did instead of doing it again.
    else await db.update(schema.idempotencyKeys).set({ lockedUntil: new Date(now.getTime() - 1) }).where(where).catch(() => undefined);
    throw e;
  }
}

/** A key's record, and a finished one written: runIdempotentAtomic's two statements, built once (db/prepared.ts). */
const keyRecord = prepared((db) =>
  db
    .select()
    .from(schema.idempotencyKeys)
    .where(and(eq(schema.idempotencyKeys.scope, sql.placeholder('scope')), eq(schema.idempotencyKeys.key, sql.placeholder('key'))))
    .limit(1)
    .prepare(),
);
const insertDoneRecord = prepared((db) =>
  db
    .insert(schema.idempotencyKeys)
    .values({
      scope: sql.placeholder('scope'),
      key: sql.placeholder('key'),
      method: sql.placeholder('method'),
      path: sql.placeholder('path'),
      fieldDigests: sql.placeholder('fieldDigests'),
      status: 'done',
      responseStatus: sql.placeholder('responseStatus'),
      responseBody: sql.placeholder('responseBody'),
      lockedUntil: sql.placeholder('lockedUntil'),
      createdAt: sql.placeholder('createdAt'),
      expiresAt: sql.placeholder('expiresAt'),
    })
    .prepare(),
);

/**
 * runIdempotent for a handler that only writes to the database (no processor call, nothing outside the transaction):
 * the key's record, the handler's writes and the stored answer commit together, one transaction and so one unit of
 * group commit (issue 14), where runIdempotent takes three commits around the handler's. There is no in-progress
 * state to manage: a request with the same key runs after this one has committed (writes are serialised) and
 * replays it; a crash leaves nothing behind, so a retry runs afresh. Client errors (4xx) are stored like successes,
 * after the handler's writes are rolled back to its savepoint; any other failure rolls everything back and records
 * nothing, so a retry runs afresh. Replays, mismatches and 409 answer exactly as runIdempotent's.
 */
export async function runIdempotentAtomic(
  deps: IdempotencyDeps,
  req: { scope: string; key: string | null; method: string; path: string; body: unknown },
  handler: (tx: DbOrTx) => Promise<HandlerResult>,
): Promise<IdempotentOutcome> {
  if (req.key === null) return { ...(await deps.db.transaction((tx) => handler(tx))), replayed: false };
  if (req.key.length < 1 || req.key.length > 255 || !/^[\x21-\x7e]+$/.test(req.key)) {
    throw new AppError('invalid_idempotency_key', undefined, 'Idempotency-Key');
  }
  const key = req.key;
  const now = deps.clock.now();
  const fieldDigests = digests(deps.secret, req.body);
  const outcome = await deps.db.transaction(async (tx): Promise<IdempotentOutcome | { refused: AppError }> => {
    const row = await keyRecord(tx).get({ scope: req.scope, key });
    // A record past its 24 hours gives way to this request (the common case, no record, costs one read).
    if (row && row.expiresAt.getTime() >= now.getTime()) return replayOf(row, req, fieldDigests);
    if (row) await tx.delete(schema.idempotencyKeys).where(eq(schema.idempotencyKeys.id, row.id));
    const record = (status: number, body: unknown) => insertDoneRecord(tx).run(doneRecord(req, key, fieldDigests, now, status, body));
    try {
      // A savepoint: a client error undoes the handler's writes and keeps the transaction for the record.
      const result = await tx.transaction((inner) => handler(inner));
      await record(result.status, result.body);
      return { ...result, replayed: false };
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500 || e.type === 'rate_limit_error') throw e;
      await record(e.status, errorBody(e));
      return { refused: e };
    }
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome;
}

/**
 * runIdempotentAtomic as a unit of work as data (issue 30 §2, db/unit.ts): against a libSQL server the key's record,
 * the handler's writes and the stored answer are ONE request, with every other unit queued meanwhile; on the file, one
 * unit of group commit as before. The key's record is read first, outside the write lock (a replay costs no write); the
 * handler records its writes on `unit` (reading, if it must, on the database before, never inside the unit) and the
 * answer is stored last, by an insert that fails if the key has a record by then: another request with the same key
 * committed first, so this one rolls back whole and replays that one's answer, as a request serialised behind it would.
 * A record past its 24 hours is deleted in the same unit. Client errors (4xx) thrown by the handler are stored (the
 * handler's writes never sent); any other failure records nothing, so a retry runs afresh.
 */
export async function runIdempotentUnit(
  deps: IdempotencyDeps,
  req: { scope: string; key: string | null; method: string; path: string; body: unknown },
  handler: (unit: DbOrTx) => Promise<HandlerResult>,
): Promise<IdempotentOutcome> {
  if (req.key === null) {
    const unit = writeUnit(deps.db);
    const result = await handler(unit.tx);
    await unit.commit();
    return { ...result, replayed: false };
  }
  if (req.key.length < 1 || req.key.length > 255 || !/^[\x21-\x7e]+$/.test(req.key)) {
    throw new AppError('invalid_idempotency_key', undefined, 'Idempotency-Key');
  }
  const key = req.key;
  const now = deps.clock.now();
  const fieldDigests = digests(deps.secret, req.body);
  const row = await keyRecord(deps.db).get({ scope: req.scope, key });
  if (row && row.expiresAt.getTime() >= now.getTime()) return replayOf(row, req, fieldDigests);
  /** Sends `unit` with the answer stored last; a record made meanwhile by the same key wins and is replayed. */
  const commitWith = async (unit: WriteUnit, status: number, body: unknown): Promise<IdempotentOutcome | null> => {
    if (row) await expiredRecord(unit.tx).run({ id: row.id, now: now.getTime() });
    const at = unit.size;
    await insertDoneRecord(unit.tx).run(doneRecord(req, key, fieldDigests, now, status, body));
    try {
      await unit.commit();
      return null;
    } catch (e) {
      if (!isUniqueViolationAt(e, at)) throw e;
      const winner = await keyRecord(deps.db).get({ scope: req.scope, key });
      if (!winner) throw new AppError('idempotency_key_in_use');
      return replayOf(winner, req, fieldDigests);
    }
  };
  const unit = writeUnit(deps.db);
  let result: HandlerResult;
  try {
    result = await handler(unit.tx);
  } catch (e) {
    if (!(e instanceof AppError) || e.status >= 500 || e.type === 'rate_limit_error') throw e;
    // The refusal is the answer: stored alone (the handler's recorded writes are never sent).
    const replay = await commitWith(writeUnit(deps.db), e.status, errorBody(e));
    if (replay) return replay;
    throw e;
  }
  return (await commitWith(unit, result.status, result.body)) ?? { ...result, replayed: false };
}

/** A finished record's values: the request's key, method, path and digests, and its answer, kept 24 hours. */
function doneRecord(req: { scope: string; method: string; path: string }, key: string, fieldDigests: Record<string, string>, now: Date, status: number, body: unknown) {
  return {
    scope: req.scope,
    key,
    method: req.method,
    path: req.path,
    fieldDigests,
    responseStatus: status,
    responseBody: JSON.stringify(body),
    lockedUntil: now,
    createdAt: now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
  };
}

/** A key's record past its 24 hours, by id (runIdempotentUnit deletes it with the request that replaces it). */
const expiredRecord = prepared((db) =>
  db
    .delete(schema.idempotencyKeys)
    .where(and(eq(schema.idempotencyKeys.id, sql.placeholder('id')), lt(schema.idempotencyKeys.expiresAt, sql.placeholder('now'))))
    .prepare(),
);

type KeyRow = typeof schema.idempotencyKeys.$inferSelect;

/** What a request whose key already has a record gets: the stored answer, or why not (both runIdempotent kinds). */
function replayOf(row: KeyRow, req: { method: string; path: string }, fieldDigests: Record<string, string>): IdempotentOutcome {
  if (row.method !== req.method || row.path !== req.path) {
    throw new AppError(
      'idempotency_error',
      `This Idempotency-Key was used for ${row.method} ${row.path}; use a new key for ${req.method} ${req.path}.`,
      'Idempotency-Key',
    );
  }
  const differ = differingFields(row.fieldDigests, fieldDigests);
  if (differ.length > 0) {
    throw new AppError(
      'idempotency_error',
      `Keys for idempotent requests can only be used with the same parameters they were first used with. ` +
        `Different here: ${differ.join(', ')}.`,
      differ[0],
    );
  }
  if (row.status !== 'done') throw new AppError('idempotency_key_in_use');
  return { status: row.responseStatus ?? 200, body: JSON.parse(row.responseBody ?? 'null'), replayed: true };
}

/** Turns an outcome into the HTTP answer, marking replays. */
export function idempotentResponse(outcome: IdempotentOutcome): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (outcome.replayed) headers[REPLAY_HEADER] = 'true';
  return new Response(JSON.stringify(outcome.body), { status: outcome.status, headers });
}

export async function pruneIdempotencyKeys(db: Db, clock: Clock): Promise<void> {
  await db.delete(schema.idempotencyKeys).where(lt(schema.idempotencyKeys.expiresAt, clock.now()));
}
