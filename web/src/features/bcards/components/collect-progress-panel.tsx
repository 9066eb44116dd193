import { CheckCircle2, CircleDashed, Loader2, Lock, RotateCcw, XCircle } from 'lucide-react';
import type { ReactNode } from 'react';
import { Badge } from '../../../components/ui/badge';
import { useLanguage, type MessageKey } from '../../../i18n';
import { isolateFor } from '../bcard-display';
import { mergeProgress, type CollectStage, type PlannedShare, type ProgressAnswer, type ShareProgress } from '../collect-progress';
import { formatCents } from '../split';

const stageText: Record<CollectStage, MessageKey> = {
  sending: 'bcards.progress.sending',
  holding: 'bcards.progress.holding',
  capturing: 'bcards.progress.capturing',
  completed: 'bcards.progress.completed',
  failed: 'bcards.progress.failed',
};
const statusText: Record<ShareProgress, MessageKey> = {
  waiting: 'bcards.progress.status.waiting',
  held: 'bcards.progress.status.held',
  captured: 'bcards.progress.status.captured',
  declined: 'bcards.progress.status.declined',
  released: 'bcards.progress.status.released',
  refunded: 'bcards.progress.status.refunded',
};
const tone = { waiting: 'neutral', held: 'yellow', captured: 'green', declined: 'red', released: 'neutral', refunded: 'neutral' } as const;
const icon: Record<ShareProgress, ReactNode> = {
  waiting: <CircleDashed className="h-4 w-4 text-slate-400" aria-hidden />,
  held: <Lock className="h-4 w-4 text-amber-600" aria-hidden />,
  captured: <CheckCircle2 className="h-4 w-4 text-green-600" aria-hidden />,
  declined: <XCircle className="h-4 w-4 text-red-600" aria-hidden />,
  released: <RotateCcw className="h-4 w-4 text-slate-500" aria-hidden />,
  refunded: <RotateCcw className="h-4 w-4 text-slate-500" aria-hidden />,
};

/**
 * Each share of the split with the status the server has recorded for it, and the stage in words (a polite live
 * region: a screen reader hears each stage once, not each poll).
 */
export function CollectProgressPanel({
  planned,
  answer,
  pending,
}: {
  planned: readonly PlannedShare[];
  answer: ProgressAnswer | undefined;
  /** The request is still open (a spinner on the stage line). */
  pending: boolean;
}) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const { stage, shares } = mergeProgress(planned, answer);
  return (
    <section
      className="space-y-2 rounded-lg border border-slate-200 bg-white p-3 text-sm"
      aria-label={t('bcards.progress.title')}
      data-testid="bcard-progress"
      data-stage={stage}
    >
      <p className="flex items-center gap-2 font-medium text-slate-800" aria-live="polite" data-testid="bcard-progress-stage">
        {pending && <Loader2 className="h-4 w-4 shrink-0 animate-spin" aria-hidden />}
        {t(stageText[stage])}
      </p>
      <ul className="space-y-1.5">
        {shares.map((s) => (
          <li
            key={s.sourceId}
            className="flex min-w-0 items-center justify-between gap-2"
            data-testid="bcard-progress-share"
            data-status={s.progress}
          >
            <span className="flex min-w-0 items-center gap-1.5">
              {icon[s.progress]}
              <span className="truncate">
                {t('bcards.progress.share', { name: s.name, last4: iso(`•••• ${s.last4}`), amount: iso(formatCents(s.cents)) })}
              </span>
            </span>
            <Badge tone={tone[s.progress]} className="shrink-0">
              {t(statusText[s.progress])}
            </Badge>
          </li>
        ))}
      </ul>
    </section>
  );
}
