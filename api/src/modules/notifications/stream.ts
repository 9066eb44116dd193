import type { AppDeps } from '../../deps';
import { AppError } from '../../errors';
import { polledStream, type StreamIo } from '../../lib/polled-stream';
import { credentialCheck } from '../events/stream';
import { latestNoticeSeq, noticeSeqOf, noticesAfter, noticeView, onNotice, userLanguage } from './service';

/**
 * Open notice streams one user may hold in this process (tabs, devices): each polls every pollMs, so without a cap one
 * account could make the server poll for it thousands of times a second. Past it: 429, until one closes.
 */
export const MAX_NOTICE_STREAMS_PER_USER = 5;
const openStreams = new WeakMap<object, Map<string, number>>();

/** How many notice streams this user has open in this app (tests: closed streams leave none counted). */
export function openNoticeStreams(deps: object, userId: string): number {
  return openStreams.get(deps)?.get(userId) ?? 0;
}

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
  let open = openStreams.get(deps);
  if (!open) openStreams.set(deps, (open = new Map()));
  const counts = open;
  if ((counts.get(userId) ?? 0) >= MAX_NOTICE_STREAMS_PER_USER) {
    throw new AppError(
      'rate_limited',
      `At most ${MAX_NOTICE_STREAMS_PER_USER} live notice streams can be open for one account; close one (another tab or device) first.`,
    );
  }
  // Counted at once (before any await), so parallel opens cannot all pass the check; given back when the stream
  // closes, or here if it never opens.
  counts.set(userId, (counts.get(userId) ?? 0) + 1);
  const release = () => {
    const n = (counts.get(userId) ?? 1) - 1;
    if (n > 0) counts.set(userId, n);
    else counts.delete(userId);
  };
  let cursor: number;
  try {
    const resumeAt = lastEventId ? await noticeSeqOf(deps.db, userId, lastEventId) : null;
    cursor = resumeAt ?? (await latestNoticeSeq(deps.db, userId));
  } catch (error) {
    release();
    throw error;
  }
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
    onClose: release,
  });
}
