import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Bell, CheckCheck, Loader2, Settings } from 'lucide-react';
import { useLocation } from 'wouter';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../../../components/ui/dropdown-menu';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import {
  markAllNoticesReadRequest,
  markNoticeReadRequest,
  NOTIFICATIONS_QUERY_KEY,
  noticesQuery,
  unreadCountQuery,
  type Notice,
} from '../api';
import { NOTIFICATION_SETTINGS_PATH } from '../links';
import { noticeFullTime, noticeTime } from '../format';
import { useNoticeStream } from '../hooks/use-notice-stream';

function NoticeItem({ notice, onOpen }: { notice: Notice; onOpen(n: Notice): void }) {
  const { t, lang } = useLanguage();
  const unread = notice.readAt === null;
  return (
    <DropdownMenuItem
      onSelect={() => onOpen(notice)}
      className="items-start gap-3 px-3 py-2.5"
      data-testid="notification-item"
      data-unread={unread ? 'true' : 'false'}
    >
      <span
        className={`mt-1.5 h-2 w-2 shrink-0 rounded-full ${unread ? 'bg-brand-600' : 'bg-transparent'}`}
        aria-hidden
      />
      <span className="min-w-0 flex-1">
        <span className={`block text-sm ${unread ? 'font-semibold text-slate-900' : 'font-medium text-slate-700'}`} data-testid="notification-title">
          {unread && <span className="sr-only">{t('notifications.bell.unread')}: </span>}
          {notice.title}
        </span>
        <span className="mt-0.5 block break-words text-xs leading-relaxed text-slate-600" data-testid="notification-body">
          {notice.body}
        </span>
        <time className="mt-1 block text-xs text-slate-400" dateTime={notice.createdAt} title={noticeFullTime(notice.createdAt, lang)}>
          {noticeTime(notice.createdAt, lang)}
        </time>
      </span>
    </DropdownMenuItem>
  );
}

/**
 * The header's bell (issue 25): the unread count on it, and a menu of the newest notices (title, body, time, an unread
 * marker); choosing one marks it read and opens what it is about; "Mark all as read" clears the count. Kept live by
 * the notices stream while the dashboard is open.
 */
export function NotificationBell() {
  const { t, dir, lang } = useLanguage();
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  useNoticeStream(true);
  const unread = useQuery(unreadCountQuery());
  const list = useInfiniteQuery(noticesQuery(lang));
  const notices = list.data?.pages.flatMap((p) => p.items) ?? [];
  const count = unread.data ?? 0;
  const refresh = () => void qc.invalidateQueries({ queryKey: NOTIFICATIONS_QUERY_KEY });
  const failed = (error: unknown) =>
    toast({ title: t('notifications.bell.markFailed'), description: messageOf(error), variant: 'destructive' });
  const markOne = useMutation({ mutationFn: markNoticeReadRequest, onSettled: refresh, onError: failed });
  const markAll = useMutation({ mutationFn: markAllNoticesReadRequest, onSettled: refresh, onError: failed });

  const open = (n: Notice) => {
    if (n.readAt === null) markOne.mutate(n.id);
    if (n.link) navigate(n.link);
  };

  return (
    <DropdownMenu dir={dir}>
      <DropdownMenuTrigger
        className="relative flex h-10 w-10 items-center justify-center rounded-full text-slate-600 hover:bg-slate-100 data-[state=open]:bg-slate-100"
        aria-label={count > 0 ? t('notifications.bell.labelUnread', { count }) : t('notifications.bell.label')}
        data-testid="notification-bell"
      >
        <Bell className="h-5 w-5" aria-hidden />
        {count > 0 && (
          <span
            className="absolute -end-0.5 top-0.5 flex h-[1.15rem] min-w-[1.15rem] items-center justify-center rounded-full bg-red-600 px-1 text-[0.65rem] font-semibold leading-none text-white"
            aria-hidden
            dir="ltr"
            data-testid="notification-badge"
          >
            {count > 99 ? '99+' : count}
          </span>
        )}
      </DropdownMenuTrigger>
      <DropdownMenuContent
        align="end"
        collisionPadding={8}
        className="w-[min(24rem,calc(100vw-1rem))] p-0"
        data-testid="notification-menu"
        aria-label={t('notifications.bell.title')}
      >
        <div className="flex items-center justify-between gap-2 border-b border-slate-100 px-3 py-2">
          <p className="text-sm font-semibold text-slate-900">{t('notifications.bell.title')}</p>
          {count > 0 && (
            <DropdownMenuItem
              // Stays open: the list shows the notices turning read.
              onSelect={(e) => {
                e.preventDefault();
                markAll.mutate();
              }}
              disabled={markAll.isPending}
              className="w-auto shrink-0 px-2 py-1 text-xs font-medium text-brand-700"
              data-testid="notification-mark-all"
            >
              <CheckCheck className="h-4 w-4" aria-hidden />
              {t('notifications.bell.markAll')}
            </DropdownMenuItem>
          )}
        </div>
        <div className="max-h-[min(28rem,65vh)] overflow-y-auto py-1" data-testid="notification-list">
          {list.isLoading ? (
            <p className="flex justify-center py-6 text-slate-400" role="status">
              <Loader2 className="h-5 w-5 animate-spin" aria-hidden />
              <span className="sr-only">{t('common.loading')}</span>
            </p>
          ) : list.isError ? (
            <div className="space-y-2 px-3 py-4 text-center text-sm">
              <p className="text-slate-600" role="alert">
                {t('notifications.bell.loadFailed')}
              </p>
              <DropdownMenuItem
                onSelect={(e) => {
                  e.preventDefault();
                  void list.refetch();
                }}
                className="justify-center font-medium text-brand-700"
              >
                {t('notifications.bell.retry')}
              </DropdownMenuItem>
            </div>
          ) : notices.length === 0 ? (
            <div className="px-3 py-6 text-center" data-testid="notification-empty">
              <p className="text-sm font-medium text-slate-900">{t('notifications.bell.empty')}</p>
              <p className="mt-1 text-xs text-slate-500">{t('notifications.bell.emptyBody')}</p>
            </div>
          ) : (
            <>
              {notices.map((n) => (
                <NoticeItem key={n.id} notice={n} onOpen={open} />
              ))}
              {list.hasNextPage && (
                <DropdownMenuItem
                  onSelect={(e) => {
                    e.preventDefault();
                    void list.fetchNextPage();
                  }}
                  disabled={list.isFetchingNextPage}
                  className="justify-center text-xs font-medium text-brand-700"
                  data-testid="notification-load-more"
                >
                  {list.isFetchingNextPage && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
                  {t('notifications.bell.loadMore')}
                </DropdownMenuItem>
              )}
            </>
          )}
        </div>
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={() => navigate(NOTIFICATION_SETTINGS_PATH)} className="mx-1 mb-1 text-xs text-slate-600" data-testid="notification-settings">
          <Settings className="h-4 w-4" aria-hidden />
          {t('notifications.bell.settings')}
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
