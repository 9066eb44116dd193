import { Elysia, t } from 'elysia';
import { NOTICE_KINDS } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { AppError, invalid } from '../../errors';
import { NEXT_CURSOR_HEADER } from '../../lib/cursor';
import { errors, rawResponses, ScreenLanguage, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { findSessionUser } from '../auth/sessions';
import { getNoticePreferences, NOTICE_GROUP_NAMES, updateNoticePreferences } from './preferences';
import { languageOf, listNotices, markAllNoticesRead, markNoticeRead, unreadCount } from './service';
import { openNoticeStream } from './stream';

const NoticeModel = t.Object(
  {
    id: t.String({ examples: ['ntf_4f9c0a1b2c3d4e5f6a7b8c9d'] }),
    kind: t.UnionEnum(NOTICE_KINDS),
    title: t.String({ description: "In the user's language (users.language)" }),
    body: t.String({ description: "In the user's language; figures and names inside Unicode isolates in Arabic" }),
    link: t.Union([t.String(), t.Null()], { description: 'A path in the web app this notice is about (e.g. /?tab=transactions&transaction=col_…)' }),
    createdAt: t.String({ format: 'date-time' }),
    readAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { $id: '#/components/schemas/Notification' },
);

const PreferenceModel = t.Object({
  kind: t.UnionEnum(NOTICE_KINDS),
  group: t.UnionEnum(NOTICE_GROUP_NAMES),
  email: t.Boolean({ description: 'Whether this kind is sent by e-mail' }),
  locked: t.Boolean({ description: 'Security notices and plan receipts: always sent (sign_in: as Login Notifications says); cannot be turned off here' }),
});

const NoticeStreamBody = t.String({
  description: 'A text/event-stream: `id: <notice id>`, `event: notice`, `data: <the notice JSON>` per message.',
  examples: ['id: ntf_123\nevent: notice\ndata: {"id":"ntf_123","kind":"bcard_spent","title":"$40.00 spent at Shoe Shop"}\n\n'],
});

/** The signed-in consumer's notices (issue 25): the bell's list and count, reading them, mail choices, the live stream. */
export function notificationRoutes(deps: AppDeps) {
  return new Elysia({ prefix: '/api/notifications', tags: ['Notifications'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get(
      '',
      async ({ user, query, set }) => {
        const limit = query.limit ?? 20;
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'limit must be between 1 and 100.');
        const lang = query.language ?? languageOf(user.language);
        const page = await listNotices(deps.db, user.id, lang, { limit, cursor: query.cursor ?? null });
        if (page.nextCursor) set.headers[NEXT_CURSOR_HEADER] = page.nextCursor;
        return page.data;
      },
      {
        auth: true,
        query: t.Object({
          limit: t.Optional(t.Numeric({ error: 'limit must be between 1 and 100.' })),
          cursor: t.Optional(t.String({ maxLength: 200 })),
          language: ScreenLanguage,
        }),
        response: { 200: t.Array(NoticeModel), ...errors(400, 401) },
        detail: {
          summary: 'Your notices, newest first',
          description: `Written in your language (or the one asked for). When more exist, the ${NEXT_CURSOR_HEADER} header holds the cursor for the next page.`,
        },
      },
    )
    .get('/unread-count', async ({ user }) => ({ unread: await unreadCount(deps.db, user.id) }), {
      auth: true,
      response: { 200: t.Object({ unread: t.Integer() }), ...errors(401) },
      detail: {
        summary: 'How many of your notices are unread (the bell\'s badge)',
        description:
          "How many of the signed-in user's notices are unread: the number on the bell. Read only.",
      },
    })
    .post('/read-all', async ({ user }) => ({ marked: await markAllNoticesRead(deps.db, user.id, deps.clock.now()) }), {
      auth: true,
      response: { 200: t.Object({ marked: t.Integer({ description: 'How many were unread' }) }), ...errors(401) },
      detail: {
        summary: 'Mark all your notices read',
        description:
          'Marks every unread notice of the signed-in user read and answers how many were unread. Nothing else ' +
          'changes.',
      },
    })
    .get('/preferences', ({ user }) => getNoticePreferences(deps.db, user.id), {
      auth: true,
      response: { 200: t.Array(PreferenceModel), ...errors(401) },
      detail: {
        summary: 'Which notices you get by e-mail, per kind',
        description:
          'For each kind of notice: its group, whether it also comes by e-mail, and whether it is locked on ' +
          '(security notices and plan receipts). For the signed-in user; read only.',
      },
    })
    .put('/preferences', ({ user, body }) => updateNoticePreferences(deps.db, user.id, body.email, deps.clock.now()), {
      auth: true,
      parse: 'json',
      body: t.Object({
        email: t.Record(t.String({ maxLength: 64 }), t.Boolean(), {
          description: 'Kinds to turn on (true) or off (false) by e-mail; kinds left out keep their setting. Security kinds cannot be turned off.',
        }),
      }, { examples: [{ email: { bcard_spent: false, merchant_refund: true } }] }),
      response: { 200: t.Array(PreferenceModel), ...errors(400, 401) },
      detail: {
        summary: 'Choose which notices you get by e-mail',
        description:
          'Turns e-mail on or off per kind of notice for the signed-in user; kinds left out keep their setting, ' +
          "and locked kinds (security notices, plan receipts) stay on. Answers every kind's setting after the " +
          'change.',
      },
    })
    .get(
      '/stream',
      ({ user, sessionToken, headers, request }) =>
        openNoticeStream(deps, user.id, {
          signal: request.signal,
          lastEventId: headers['last-event-id'] ?? null,
          // The session it was opened with still signs this user in (not signed out, expired, or ended by a password change).
          recheck: async () => {
            const found = await findSessionUser(deps.db, deps.clock, deps.session, sessionToken);
            return found?.user.id === user.id ? null : new AppError('unauthenticated');
          },
        }),
      {
        auth: true,
        headers: t.Object({
          'last-event-id': t.Optional(
            t.String({ maxLength: 64, description: 'The id of the last notice received: the stream first sends the ones written since.' }),
          ),
        }),
        detail: {
          responses: rawResponses(
            {
              description: 'A text/event-stream that stays open',
              content: { 'text/event-stream': { schema: NoticeStreamBody as unknown as Record<string, unknown> } },
            },
            401,
            429,
          ) as never,
          summary: 'Stream your new notices as they are written (server-sent events)',
          description:
            'Answers `text/event-stream` and stays open. Only notices written after the connection opened are sent (with ' +
            '`Last-Event-ID`, also those written since that notice); each is `event: notice` with the notice JSON of the ' +
            'list as data. Comment lines (`: connected`, `: ping`) keep the connection alive. When the session that opened ' +
            'it ends, the stream sends `event: error` with `data: {"error":{…}}` and ends. At most 5 streams per account are ' +
            'open at once (429 rate_limited past that, until one closes).',
        },
      },
    )
    .post('/:id/read', ({ user, params }) => markNoticeRead(deps.db, user.id, languageOf(user.language), params.id, deps.clock.now()), {
      auth: true,
      // Any text: an id that is none (malformed, too long, another user's) is 404 like an unknown one.
      params: t.Object({ id: t.String() }),
      response: { 200: NoticeModel, ...errors(401, 404) },
      detail: {
        summary: 'Mark one of your notices read',
        description:
          "Marks one of the signed-in user's notices read and answers it. Another user's notice, or an id that is " +
          'none, is 404.',
      },
    });
}
