import { and, asc, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import { schema, prepared, type Db, type DbOrTx, type NoticeKind } from '@bpay/db';
import { AppError, notFound } from '../../errors';
import { decodeCursor, encodeCursor } from '../../lib/cursor';
import { newId } from '../../lib/ids';
import { wakeChannel } from '../../lib/wake';
import { wordsLanguage } from '../../lib/server-words';
import { enqueueEmail } from '../email/outbox';
import { isSecurityKind, type NoticeFacts } from './kinds';
import { noticeEmail } from './mail';
import { notifyMails } from './preferences';
import { noticeLink, noticeText, type Lang } from './texts';

/*
 * Notices (issue 25). `notify` is called in the transaction of the change it tells about (a spend, a refund, a
 * password change), so a notice exists if and only if that change committed, and its mail (when the user wants it)
 * is an outbox row in the same transaction. A notice keeps its facts; its words are written when it is read, in the
 * reader's language of the moment (texts.ts).
 */

/** What notify needs from the app: the public URL (links in mail). */
export interface NotifyDeps {
  publicUrl: URL;
}

type NoticeRow = typeof schema.notifications.$inferSelect;

/** The stored language, checked in code (users.language has no CHECK): anything but 'ar' reads as English. */
export const languageOf: (stored: string | null | undefined) => Lang = wordsLanguage;

const notices = wakeChannel();
/** Calls `fn` when this process records a notice (a hint for open streams to poll now). */
export const onNotice = (fn: () => void) => notices.on(fn);
/** Open notice streams of this process (tests check that closed streams leave none behind). */
export const noticeListenerCount = () => notices.count();

/* Built once (db/prepared.ts): every money path's notice runs these two. */
export type Recipient = NonNullable<Awaited<ReturnType<ReturnType<typeof recipient>['get']>>>;

/** What notify() reads of its recipient, read before a unit of work as data (issue 30). */
export const readRecipient = (db: DbOrTx, userId: string): Promise<Recipient | null> => recipient(db).get({ id: userId }).then((r) => r ?? null);

const recipient = prepared((db) =>
  db
    .select({
      id: schema.users.id,
      email: schema.users.email,
      firstName: schema.users.firstName,
      language: schema.users.language,
      loginNotifications: schema.users.loginNotifications,
      prefs: schema.users.noticeEmailPrefs,
    })
    .from(schema.users)
    .where(eq(schema.users.id, sql.placeholder('id')))
    .limit(1)
    .prepare(),
);
const insertNotice = prepared((db) =>
  db
    .insert(schema.notifications)
    .values({
      id: sql.placeholder('id'),
      userId: sql.placeholder('userId'),
      kind: sql.placeholder('kind'),
      params: sql.placeholder('params'),
      link: sql.placeholder('link'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
);

/**
 * Records one notice for a user, and queues its mail in the user's language when they want this kind by mail
 * (preferences.ts: security kinds always, sign_in as Login Notifications says, the others as chosen). Wakes this
 * process's open streams. Returns the notice's id; a user that no longer exists gets none (returns null).
 */
export async function notify<K extends NoticeKind>(
  tx: DbOrTx,
  deps: NotifyDeps,
  userId: string,
  kind: K,
  facts: NoticeFacts[K],
  at: Date,
  /** The recipient read before (a unit of work as data cannot read inside: issue 30); read here when not given. */
  known?: Recipient | null,
): Promise<string | null> {
  const user = known === undefined ? await recipient(tx).get({ id: userId }) : known;
  if (!user) return null;
  const id = newId('ntf');
  const link = noticeLink(kind, facts);
  await insertNotice(tx).run({ id, userId, kind, params: facts, link, createdAt: at });
  if (notifyMails(kind, user.prefs, user.loginNotifications)) {
    const lang = languageOf(user.language);
    await enqueueEmail(
      tx,
      at,
      noticeEmail({
        userId,
        to: user.email,
        firstName: user.firstName,
        lang,
        kind,
        security: isSecurityKind(kind),
        text: noticeText(lang, kind, facts),
        url: new URL(link, deps.publicUrl).toString(),
        publicUrl: deps.publicUrl,
        at,
      }),
    );
  }
  // Inside the caller's transaction: streams look now and again a moment later; their regular poll is the guarantee.
  notices.wake();
  return id;
}

export interface NoticeView {
  id: string;
  kind: NoticeKind;
  title: string;
  body: string;
  link: string | null;
  createdAt: string;
  readAt: string | null;
}

export function noticeView(row: NoticeRow, lang: Lang): NoticeView {
  const text = noticeText(lang, row.kind, row.params as never);
  return {
    id: row.id,
    kind: row.kind,
    title: text.title,
    body: text.body,
    link: row.link,
    createdAt: row.createdAt.toISOString(),
    readAt: row.readAt?.toISOString() ?? null,
  };
}

/**
 * The user's notices, newest first, one page at a time. The cursor is the last row's place in the order notices were
 * written (its seq) and id, opaque to the client. Fails with: validation_error (cursor).
 */
/** The list's name in its cursors (lib/cursor.ts). */
export const NOTIFICATIONS_LIST = 'notifications';

export async function listNotices(
  db: Db,
  userId: string,
  lang: Lang,
  q: { limit: number; cursor: string | null },
): Promise<{ data: NoticeView[]; nextCursor: string | null }> {
  const n = schema.notifications;
  const conds = [eq(n.userId, userId)];
  if (q.cursor) conds.push(lt(n.seq, decodeCursor(q.cursor, { list: NOTIFICATIONS_LIST, owner: userId }).t));
  const rows = await db
    .select()
    .from(n)
    .where(and(...conds))
    .orderBy(desc(n.seq))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: page.map((r) => noticeView(r, lang)),
    nextCursor: rows.length > q.limit && last ? encodeCursor({ t: last.seq, id: last.id }, { list: NOTIFICATIONS_LIST, owner: userId }) : null,
  };
}

export async function unreadCount(db: Db, userId: string): Promise<number> {
  const n = schema.notifications;
  const [row] = await db
    .select({ count: sql<number>`count(*)` })
    .from(n)
    .where(and(eq(n.userId, userId), isNull(n.readAt)));
  return Number(row?.count ?? 0);
}

/**
 * Marks one of the user's notices read (again: its first reading time stays). Another user's notice, or an id that
 * is none, is not found. Fails with: resource_not_found.
 */
export async function markNoticeRead(db: Db, userId: string, lang: Lang, id: string, at: Date): Promise<NoticeView> {
  const n = schema.notifications;
  const mine = and(eq(n.id, id), eq(n.userId, userId));
  await db.update(n).set({ readAt: at }).where(and(mine, isNull(n.readAt)));
  const [row] = await db.select().from(n).where(mine).limit(1);
  if (!row) throw notFound('notification', id, 'id');
  return noticeView(row, lang);
}

/** Marks every unread notice of the user read; returns how many it marked. */
export async function markAllNoticesRead(db: Db, userId: string, at: Date): Promise<number> {
  const n = schema.notifications;
  const res = await db
    .update(n)
    .set({ readAt: at })
    .where(and(eq(n.userId, userId), isNull(n.readAt)));
  return res.rowsAffected;
}

/** The newest seq of the user's notices (0 for none): a stream starts after it, so it sends no backlog. */
export async function latestNoticeSeq(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ seq: sql<number | null>`max(${schema.notifications.seq})` })
    .from(schema.notifications)
    .where(eq(schema.notifications.userId, userId));
  return Number(row?.seq ?? 0);
}

/** The seq of one of the user's notices, or null (unknown id, another user's). */
export async function noticeSeqOf(db: Db, userId: string, id: string): Promise<number | null> {
  const [row] = await db
    .select({ seq: schema.notifications.seq })
    .from(schema.notifications)
    .where(and(eq(schema.notifications.id, id), eq(schema.notifications.userId, userId)))
    .limit(1);
  return row?.seq ?? null;
}

/** The user's notices written after `seq`, oldest first. */
export async function noticesAfter(db: Db, userId: string, seq: number, limit = 100): Promise<NoticeRow[]> {
  const n = schema.notifications;
  return db
    .select()
    .from(n)
    .where(and(eq(n.userId, userId), gt(n.seq, seq)))
    .orderBy(asc(n.seq))
    .limit(limit);
}

/** The user's language as stored now (a stream writes each batch in it). */
export async function userLanguage(db: Db, userId: string): Promise<Lang> {
  const [row] = await db.select({ language: schema.users.language }).from(schema.users).where(eq(schema.users.id, userId)).limit(1);
  if (!row) throw new AppError('unauthenticated');
  return languageOf(row.language);
}
