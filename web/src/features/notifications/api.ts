import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { Lang } from '../../i18n';
import { api, unwrap, unwrapWithHeaders, type ApiAnswer, type ApiBody } from '../../lib/api';

/*
 * The notification centre's calls (issue 25). Shapes come from the server's OpenAPI types: a renamed field breaks
 * this feature's typecheck. Every query key starts with NOTIFICATIONS_QUERY_KEY, so one invalidation (a notice
 * arriving on the stream, a mark-as-read) refreshes the list and the bell's count together.
 */

/** A notice as GET /api/notifications answers it: title and body already in the user's language. */
export type Notice = ApiAnswer<'/api/notifications'>[number];
export type NoticeKind = Notice['kind'];
/** One kind's mail choice (GET /api/notifications/preferences). */
export type NoticePreference = ApiAnswer<'/api/notifications/preferences'>[number];
export type NoticeGroup = NoticePreference['group'];
export type NoticePreferenceChanges = ApiBody<'/api/notifications/preferences', 'put'>['email'];

export const NOTIFICATIONS_QUERY_KEY = ['/api/notifications'] as const;
export const NOTICE_PAGE_SIZE = 20;
export const NOTICE_STREAM_URL = '/api/notifications/stream';
const NEXT_CURSOR_HEADER = 'Bpay-Next-Cursor';

export interface NoticePage {
  items: Notice[];
  nextCursor: string | null;
}

/** The user's notices, newest first, a page at a time, written in the screen's language. */
export function noticesQuery(language: Lang) {
  return infiniteQueryOptions({
    queryKey: [...NOTIFICATIONS_QUERY_KEY, 'list', language] as const,
    queryFn: async ({ pageParam }): Promise<NoticePage> => {
      const query = pageParam ? { limit: NOTICE_PAGE_SIZE, language, cursor: pageParam } : { limit: NOTICE_PAGE_SIZE, language };
      const { data, headers } = await unwrapWithHeaders(api.GET('/api/notifications', { params: { query } }));
      return { items: data ?? [], nextCursor: headers.get(NEXT_CURSOR_HEADER) || null };
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
}

/** The bell's badge. */
export function unreadCountQuery() {
  return queryOptions({
    queryKey: [...NOTIFICATIONS_QUERY_KEY, 'unread'] as const,
    queryFn: async () => (await unwrap(api.GET('/api/notifications/unread-count'))).unread,
  });
}

export function noticePreferencesQuery() {
  return queryOptions({
    queryKey: [...NOTIFICATIONS_QUERY_KEY, 'preferences'] as const,
    queryFn: () => unwrap(api.GET('/api/notifications/preferences')),
  });
}

export const markNoticeReadRequest = (id: string) => unwrap(api.POST('/api/notifications/{id}/read', { params: { path: { id } } }));
export const markAllNoticesReadRequest = () => unwrap(api.POST('/api/notifications/read-all'));
export const updateNoticePreferencesRequest = (email: NoticePreferenceChanges) =>
  unwrap(api.PUT('/api/notifications/preferences', { body: { email } }));

/** The settings screen's switches: one per group, in this order. */
export const NOTICE_GROUPS = ['bcards', 'refunds', 'bank', 'plans', 'identity', 'security'] as const satisfies readonly NoticeGroup[];

/** A group is on when every kind of it is mailed (a group switch sets all its kinds at once). */
export function groupIsOn(prefs: readonly NoticePreference[], group: NoticeGroup): boolean {
  const kinds = prefs.filter((p) => p.group === group);
  return kinds.length > 0 && kinds.every((p) => p.email);
}

/** The change that turns a whole group on or off (security kinds, always on, are left out). */
export function groupChange(prefs: readonly NoticePreference[], group: NoticeGroup, on: boolean): NoticePreferenceChanges {
  return Object.fromEntries(prefs.filter((p) => p.group === group && !p.locked).map((p) => [p.kind, on]));
}
