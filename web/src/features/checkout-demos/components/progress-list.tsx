import { CircleCheck, Circle, KeyRound, Loader2 } from 'lucide-react';
import { useLanguage, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { formatCents } from '../../../lib/money';
import { isolateFor, progressPercent, shareProgress, type FlowShare, type Phase, type ShareProgress } from '../flow';

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

/** Each source's way through its code and processing, then the bcard's creation (N + 1 equal steps). */
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
                <span className="block text-xs text-slate-500" aria-live={state === 'pending' ? undefined : 'polite'}>
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
          <span className={cn('font-medium', creating ? 'text-slate-900' : 'text-slate-500')} role={creating ? 'status' : undefined} data-testid={creating ? 'demo-creating' : undefined}>
            {creating ? t('demos.progress.creating') : t('demos.progress.bcardPending')}
          </span>
        </li>
      </ol>
    </div>
  );
}
