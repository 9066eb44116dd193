import type { AppDeps } from '../../deps';
import type { AppError } from '../../errors';
import { polledStream, type StreamIo } from '../../lib/polled-stream';
import { credentialCheck } from '../events/stream';
import { latestNoticeSeq, noticeSeqOf, noticesAfter, noticeView, onNotice, userLanguage } from './service';

export interface NoticeStreamOptions {
  signal: AbortSignal;
  /** Last-Event-ID: also send the user's notices written since that one. */
  lastEventId: string | null;
  /** Whether the session that opened the stream still signs the user in: null while it does, else the error. */
  recheck: () => Promise<AppError | null>;
}

/**
 * GET /api/notifications/stream: the user's notices written after the call, as `event: notice` messages whose data is
 * the notice as the list shows it (in the user's language of the moment). The same driver as the merchants' events
 * stream (lib/polled-stream.ts): polls the table after the last seq sent (so notices written by another process
 * arrive), at once when this process writes one, pings, and stops everything when the client goes away. The session
 * is checked before each batch and every `recheckMs`; once it no longer signs the user in, one `event: error` and the
 * end.
 */
export async function openNoticeStream(
  deps: Pick<AppDeps, 'db' | 'log' | 'eventStream'>,
  userId: string,
  { signal, lastEventId, recheck }: NoticeStreamOptions,
): Promise<Response> {
  const resumeAt = lastEventId ? await noticeSeqOf(deps.db, userId, lastEventId) : null;
  let cursor = resumeAt ?? (await latestNoticeSeq(deps.db, userId));
  const { pollMs, pingMs, recheckMs } = deps.eventStream;
  const stillSignedIn = credentialCheck(recheck, (error) => deps.log.error('notices stream session check failed', { userId, error }));
  return polledStream({
    signal,
    pollMs,
    pingMs,
    subscribe: onNotice,
    async poll(io) {
      const rows = await noticesAfter(deps.db, userId, cursor);
      if (rows.length === 0 || !(await stillSignedIn(io))) return false;
      const lang = await userLanguage(deps.db, userId);
      for (const row of rows) {
        if (io.closed) return false;
        cursor = row.seq;
        io.send(`id: ${row.id}\nevent: notice\ndata: ${JSON.stringify(noticeView(row, lang))}\n\n`);
      }
      return rows.length === 100;
    },
    check: { everyMs: recheckMs, run: (io) => void stillSignedIn(io) },
    onPollError: (error) => deps.log.error('notices stream poll failed', { userId, error }),
  });
}
