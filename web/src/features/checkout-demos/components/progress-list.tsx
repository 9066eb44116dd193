import { CircleCheck, Circle, KeyRound, Loader2 } from 'lucide-react';
import { useLanguage, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { formatCents } from '../../../lib/money';
import { isolateFor } from '../../../lib/card-display';
import { progressPercent, shareProgress, type FlowShare, type Phase, type ShareProgress } from '../flow';

const STATUS_TEXT: Record<ShareProgress, MessageKey> = {
  done: 'demos.progress.done',
  verifying: 'demos.progress.verifying',
  charging: 'demos.progress.charging',
  awaiting_code: 'demos.progress.awaitingCode',
  pending: 'demos.progress.pending',
};

function StatusIcon({ state }: { state: ShareProgress }) {
  if (state === 'done') return <CircleCheck className="h-5 w-5 text-green-600" aria-hidden />;
  if (state === 'verifying' || state === 'charging') return <Loader2 className="h-5 w-5 animate-spin text-brand-600" aria-hidden />;
  if (state === 'awaiting_code') return <KeyRound className="h-5 w-5 text-brand-600" aria-hidden />;
  return <Circle className="h-5 w-5 text-slate-300" aria-hidden />;
}

/**
 * Each source's way through its code and processing, then the bcard's creation (N + 1 equal steps). Silent for
 * screen readers by itself: it is mounted afresh as the phase changes, and a live region that appears with its
 * text is not read. ProgressAnnouncer, mounted once for the whole flow, reads each change instead.
 */
export function ProgressList({ phase, shares }: { phase: Phase; shares: readonly FlowShare[] }) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const percent = progressPercent(phase, shares.length);
  const creating = phase.kind === 'creating';
  return (
    <div className="space-y-3" data-testid="demo-progress">
      <div
        className="h-2 overflow-hidden rounded-full bg-slate-100"
        role="progressbar"
        aria-label={t('demos.progress.label')}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <div className="h-full rounded-full bg-brand-600 transition-[width] duration-500" style={{ width: `${percent}%` }} />
      </div>
      <ol className="space-y-2">
        {shares.map((s, i) => {
          const state = shareProgress(phase, i);
          return (
            <li
              key={s.sourceId}
              className={cn('flex items-center gap-3 rounded-lg border p-3 text-sm', state === 'pending' ? 'border-slate-200' : 'border-brand-100 bg-brand-50/40')}
              data-testid="demo-progress-row"
              data-state={state}
            >
              <StatusIcon state={state} />
              <span className="min-w-0 flex-1">
                <span className="block truncate font-medium text-slate-900">
                  {s.name}{' '}
                  <span className="font-mono text-slate-400" dir="ltr">
                    •••• {s.last4}
                  </span>
                </span>
                <span className="block text-xs text-slate-500">
                  {t(STATUS_TEXT[state], { amount: iso(formatCents(s.cents)) })}
                </span>
              </span>
              <span className="tabular-nums font-medium" dir="ltr">
                {formatCents(s.cents)}
              </span>
            </li>
          );
        })}
        <li
          className={cn('flex items-center gap-3 rounded-lg border p-3 text-sm', creating ? 'border-brand-100 bg-brand-50/40' : 'border-slate-200')}
          data-testid="demo-progress-bcard"
        >
          {creating ? <Loader2 className="h-5 w-5 animate-spin text-brand-600" aria-hidden /> : <Circle className="h-5 w-5 text-slate-300" aria-hidden />}
          <span className={cn('font-medium', creating ? 'text-slate-900' : 'text-slate-500')} data-testid={creating ? 'demo-creating' : undefined}>
            {creating ? t('demos.progress.creating') : t('demos.progress.bcardPending')}
          </span>
        </li>
      </ol>
    </div>
  );
}

/** What the live region says for the phase: the share being worked on, the bcard being created, the card ready. */
export function useProgressAnnouncement(phase: Phase, shares: readonly FlowShare[], cardTotalCents: number | null): string {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const line = (index: number) => {
    const share = shares[index];
    if (!share) return '';
    return t('demos.progress.live', {
      source: `${share.name} ${iso(`•••• ${share.last4}`)}`,
      status: t(STATUS_TEXT[shareProgress(phase, index)], { amount: iso(formatCents(share.cents)) }),
    });
  };
  switch (phase.kind) {
    // The code field takes the focus and reads its own prompt; the region says the last share is done.
    case 'verify':
      return phase.index > 0 ? line(phase.index - 1) : '';
    case 'processing':
      return line(phase.index);
    case 'creating':
      return t('demos.progress.creating');
    case 'card':
      return cardTotalCents === null ? '' : t('demos.card.ready', { amount: iso(formatCents(cardTotalCents)) });
    default:
      return '';
  }
}

/**
 * The flow's one polite live region: mounted with the bpay steps (before any progress exists, so each change of its
 * text is announced) and kept, unlike the lists and cards it speaks for, until the flow leaves bpay. Inside the
 * Customer Demo's overlay it has to be within the dialog: the rest of the page is hidden from screen readers then.
 */
export function ProgressAnnouncer({ text }: { text: string }) {
  return (
    <p className="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="demo-progress-live">
      {text}
    </p>
  );
}
