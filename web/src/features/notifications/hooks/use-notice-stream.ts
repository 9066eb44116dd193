import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { NOTICE_STREAM_URL, NOTIFICATIONS_QUERY_KEY } from '../api';

/** The wait before reconnecting a stream the browser gave up on: doubling from 1 s, at most a minute. */
export const reconnectDelay = (attempt: number) => Math.min(60_000, 1000 * 2 ** Math.min(attempt, 6));

/**
 * Keeps the bell live: an EventSource on GET /api/notifications/stream; each notice that arrives refreshes the list and
 * the count (one invalidation of the feature's key). While the connection drops and comes back the browser
 * reconnects by itself, sending the last notice id (the server resends what was missed); when it gives up (the
 * server answered an error, or the session ended: `event: error`), it is reopened after a growing wait, at once when
 * the browser comes back online, and the list is refreshed on every reopening, for anything missed meanwhile.
 */
export function useNoticeStream(enabled: boolean): void {
  const qc = useQueryClient();
  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let stopped = false;
    let everOpened = false;
    const refresh = () => void qc.invalidateQueries({ queryKey: NOTIFICATIONS_QUERY_KEY });

    const reopenLater = (ms: number) => {
      source?.close();
      source = null;
      clearTimeout(timer);
      if (!stopped) timer = setTimeout(connect, ms);
    };
    function connect() {
      if (stopped) return;
      const es = new EventSource(NOTICE_STREAM_URL, { withCredentials: true });
      source = es;
      es.addEventListener('open', () => {
        attempt = 0;
        // The first opening follows the list's own load; a later one may follow missed notices.
        if (everOpened) refresh();
        everOpened = true;
      });
      es.addEventListener('notice', refresh);
      es.addEventListener('error', (event) => {
        // A message named error (the session ended) or a connection the browser will not retry: reopen ourselves.
        const fromServer = event instanceof MessageEvent;
        if (fromServer || es.readyState === EventSource.CLOSED) reopenLater(reconnectDelay(attempt++));
      });
    }
    const online = () => {
      if (!source || source.readyState === EventSource.CLOSED) reopenLater(0);
    };
    connect();
    window.addEventListener('online', online);
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
      window.removeEventListener('online', online);
    };
  }, [enabled, qc]);
}
