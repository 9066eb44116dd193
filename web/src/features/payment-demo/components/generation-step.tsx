import { AlertTriangle, Check, CircleDashed, CircleHelp, CreditCard, Loader2, RotateCcw, Undo2, X } from 'lucide-react';
import type { ReactNode } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useLanguage, type MessageKey } from '../../../i18n';
import { isolateFor } from '../../../lib/card-display';
import { cn } from '../../../lib/cn';
import { formatCents } from '../../../lib/money';
import { progressOf, type CardStatus, type Failure, type Generation, type ShareReason, type ShareStatus } from '../flow';
import { failureMessage, failureTitle } from '../texts';

const STATUS_KEY: Record<ShareStatus, MessageKey> = {
  pending: 'paymentDemo.status.pending',
  processing: 'paymentDemo.status.processing',
  held: 'paymentDemo.status.held',
  captured: 'paymentDemo.status.captured',
  declined: 'paymentDemo.status.declined',
  released: 'paymentDemo.status.released',
  skipped: 'paymentDemo.status.skipped',
  unconfirmed: 'paymentDemo.status.unconfirmed',
};
const CARD_KEY: Record<CardStatus, MessageKey> = {
  pending: 'paymentDemo.cardStatus.pending',
  processing: 'paymentDemo.cardStatus.processing',
  issued: 'paymentDemo.cardStatus.issued',
  failed: 'paymentDemo.cardStatus.failed',
  unconfirmed: 'paymentDemo.cardStatus.unconfirmed',
};

type Tone = 'neutral' | 'busy' | 'ok' | 'bad' | 'back' | 'unknown';
const SHARE_TONE: Record<ShareStatus, Tone> = {
  pending: 'neutral',
  processing: 'busy',
  held: 'ok',
  captured: 'ok',
  declined: 'bad',
  released: 'back',
  skipped: 'neutral',
  unconfirmed: 'unknown',
};
const CARD_TONE: Record<CardStatus, Tone> = { pending: 'neutral', processing: 'busy', issued: 'ok', failed: 'bad', unconfirmed: 'unknown' };

function StatusIcon({ tone }: { tone: Tone }) {
  const cls = 'h-4 w-4 shrink-0';
  switch (tone) {
    case 'busy':
      return <Loader2 className={cn(cls, 'animate-spin text-brand-600')} aria-hidden />;
    case 'ok':
      return <Check className={cn(cls, 'text-green-600')} aria-hidden />;
    case 'bad':
      return <X className={cn(cls, 'text-red-600')} aria-hidden />;
    case 'back':
      return <Undo2 className={cn(cls, 'text-slate-500')} aria-hidden />;
    case 'unknown':
      return <CircleHelp className={cn(cls, 'text-amber-600')} aria-hidden />;
    default:
      return <CircleDashed className={cn(cls, 'text-slate-400')} aria-hidden />;
  }
}

function Row({ tone, status, children, testId, statusWord }: { tone: Tone; status: string; children: ReactNode; testId: string; statusWord: string }) {
  return (
    <li
      className={cn(
        'flex items-start gap-3 rounded-lg border p-3',
        tone === 'bad'
          ? 'border-red-200 bg-red-50'
          : tone === 'ok'
            ? 'border-green-200 bg-green-50/60'
            : tone === 'unknown'
              ? 'border-amber-200 bg-amber-50'
              : 'border-slate-200',
      )}
      data-testid={testId}
      data-status={status}
    >
      <span className="mt-0.5">
        <StatusIcon tone={tone} />
      </span>
      <div className="min-w-0 flex-1">{children}</div>
      <span
        className={cn(
          'shrink-0 text-xs font-medium',
          tone === 'bad' ? 'text-red-700' : tone === 'ok' ? 'text-green-700' : tone === 'unknown' ? 'text-amber-800' : 'text-slate-500',
        )}
      >
        {statusWord}
      </span>
    </li>
  );
}

/**
 * bcard (spec §2, §4): the progress bar in N+1 equal steps, each share's state (simulated, or as the server reported
 * it), Collected and Remaining, and after a failure the error panel whose Retry/Cancel buttons come 2 s later. The
 * page's live region announces the changes; nothing here is a live region of its own.
 */
export function GenerationStep({ generation: g, onRetry, onCancel }: { generation: Generation; onRetry(): void; onCancel(): void }) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const money = (cents: number) => iso(formatCents(cents));
  const p = progressOf(g);
  const simulated = g.kind === 'simulated';

  const reasonText = (r: ShareReason | null): string | null => {
    if (!r) return null;
    if (r.kind === 'simulatedInsufficient') return t('paymentDemo.reason.simulatedInsufficient');
    if (r.kind === 'message') return r.text;
    if (r.requiredCents === null) return t('paymentDemo.reason.simulatedInsufficient');
    return r.availableCents === null
      ? t('paymentDemo.reason.insufficientNoBalance', { needs: money(r.requiredCents) })
      : t('paymentDemo.reason.insufficient', { needs: money(r.requiredCents), has: money(r.availableCents) });
  };

  return (
    <Card data-testid="pd-bcard" data-kind={g.kind} className="mx-auto max-w-3xl">
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle level={2} tabIndex={-1} data-step-heading data-testid="pd-step-heading" className="outline-none">
            {t('paymentDemo.bcard.title')}
          </CardTitle>
          <Badge tone={simulated ? 'yellow' : 'blue'} data-testid="pd-bcard-kind">
            {simulated ? t('paymentDemo.bcard.simulatedBadge') : t('paymentDemo.bcard.realBadge')}
          </Badge>
        </div>
        <CardDescription>{simulated ? t('paymentDemo.bcard.simulatedDescription') : t('paymentDemo.bcard.realDescription')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-5">
        <div className="space-y-2">
          <div className="flex items-center justify-between text-sm">
            <span className="font-medium text-slate-700" id="pd-progress-label">
              {t('paymentDemo.bcard.progress')}
            </span>
            <span className="text-slate-500" data-testid="pd-progress-steps">
              {t('paymentDemo.bcard.stepsDone', { done: p.stepsDone, total: p.stepsTotal })}
            </span>
          </div>
          <div
            className="h-2.5 w-full overflow-hidden rounded-full bg-slate-100"
            role="progressbar"
            aria-labelledby="pd-progress-label"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={p.percent}
            data-testid="pd-progress"
          >
            <div
              className={cn('h-full rounded-full transition-all duration-500', g.failure ? 'bg-red-500' : 'bg-brand-600')}
              style={{ width: `${p.percent}%` }}
            />
          </div>
          {!simulated && (
            <p className="text-sm text-slate-600" data-testid="pd-shares-done">
              {t('paymentDemo.bcard.sharesDone', { done: g.shares.filter((s) => s.status === 'captured').length, total: g.shares.length })}
            </p>
          )}
          <dl className="grid grid-cols-2 gap-3 pt-1 text-sm">
            <div className="rounded-lg bg-slate-50 p-3">
              <dt className="text-slate-500">{t('paymentDemo.bcard.collected')}</dt>
              <dd className="text-lg font-semibold tabular-nums">
                <span dir="ltr" data-testid="pd-collected">
                  {formatCents(p.collectedCents)}
                </span>
              </dd>
            </div>
            <div className="rounded-lg bg-slate-50 p-3">
              <dt className="text-slate-500">{t('paymentDemo.bcard.remaining')}</dt>
              <dd className="text-lg font-semibold tabular-nums">
                <span dir="ltr" data-testid="pd-remaining">
                  {formatCents(p.remainingCents)}
                </span>
              </dd>
            </div>
          </dl>
        </div>

        {g.resend && (
          <p className="flex items-center gap-2 text-sm text-amber-800" data-testid="pd-resending">
            <Loader2 className="h-4 w-4 shrink-0 animate-spin" aria-hidden />
            {t('paymentDemo.live.resending', { n: g.resend.attempt, total: g.resend.of })}
          </p>
        )}

        <ol className="space-y-2">
          {g.shares.map((s) => {
            const reason = reasonText(s.reason);
            return (
              <Row key={s.sourceId} tone={SHARE_TONE[s.status]} status={s.status} testId="pd-share" statusWord={t(STATUS_KEY[s.status])}>
                <p className="flex flex-wrap items-baseline gap-x-2 text-sm font-medium text-slate-900">
                  <span className="min-w-0 [overflow-wrap:anywhere]">{s.name}</span>
                  <span className="font-mono text-xs text-slate-400" dir="ltr">
                    •••• {s.last4}
                  </span>
                </p>
                <p className="text-sm tabular-nums text-slate-600">
                  <span dir="ltr">{formatCents(s.cents)}</span>
                </p>
                {!simulated && s.status !== 'skipped' && (
                  <p className="text-xs text-slate-500" data-testid="pd-share-test">
                    {t('paymentDemo.bcard.testStandIn')}
                  </p>
                )}
                {reason && (
                  <p className="text-xs text-red-700" data-testid="pd-share-reason">
                    {reason}
                  </p>
                )}
              </Row>
            );
          })}
          <Row tone={CARD_TONE[g.card]} status={g.card} testId="pd-card-step" statusWord={t(CARD_KEY[g.card])}>
            <p className="flex items-center gap-2 text-sm font-medium text-slate-900">
              <CreditCard className="h-4 w-4 text-slate-500" aria-hidden />
              {t('paymentDemo.bcard.cardStep')}
            </p>
            <p className="text-sm text-slate-600">{t('paymentDemo.bcard.cardAmount', { amount: money(g.amountCents) })}</p>
          </Row>
        </ol>

        {g.failure && <FailurePanel failure={g.failure} retryAvailable={g.retryAvailable} onRetry={onRetry} onCancel={onCancel} />}
      </CardContent>
    </Card>
  );
}

function FailurePanel({
  failure,
  retryAvailable,
  onRetry,
  onCancel,
}: {
  failure: Failure;
  retryAvailable: boolean;
  onRetry(): void;
  onCancel(): void;
}) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const money = (cents: number) => iso(formatCents(cents));
  const f = { t, money, iso };
  const unconfirmed = failure.kind === 'unconfirmed';

  return (
    <div
      className={cn('space-y-4 rounded-lg border p-4', unconfirmed ? 'border-amber-300 bg-amber-50' : 'border-red-200 bg-red-50')}
      data-testid="pd-error"
      data-failure={failure.kind}
    >
      <div className="flex items-start gap-3">
        <AlertTriangle className={cn('mt-0.5 h-5 w-5 shrink-0', unconfirmed ? 'text-amber-600' : 'text-red-600')} aria-hidden />
        <div className="min-w-0 space-y-1">
          <p className={cn('font-semibold', unconfirmed ? 'text-amber-900' : 'text-red-800')}>{failureTitle(failure, f)}</p>
          <p className={cn('break-words text-sm', unconfirmed ? 'text-amber-900' : 'text-red-700')} data-testid="pd-error-message">
            {failureMessage(failure, f)}
          </p>
          {failure.kind === 'unconfirmed' && failure.message && (
            <p className="break-words text-sm text-amber-900" data-testid="pd-error-server-message">
              {failure.message}
            </p>
          )}
          {failure.kind === 'insufficient' && failure.sources.length > 0 && (
            <ul className="list-disc space-y-0.5 ps-5 text-sm text-red-700" data-testid="pd-error-sources">
              {failure.sources.map((s, i) => (
                <li key={`${s.name}-${i}`}>
                  {s.requiredCents !== null && s.availableCents !== null
                    ? t('paymentDemo.error.sourceLine', { name: s.name, needs: money(s.requiredCents), has: money(s.availableCents) })
                    : t('paymentDemo.error.sourceLineNoBalance', { name: s.name, needs: money(s.requiredCents ?? 0) })}
                </li>
              ))}
            </ul>
          )}
          {failure.kind !== 'simulated' && !unconfirmed && <p className="text-sm text-red-700">{t('paymentDemo.error.nothingCharged')}</p>}
        </div>
      </div>
      <div className="text-sm text-slate-700">
        <p className="font-medium">{t('paymentDemo.error.hintsTitle')}</p>
        <ul className="mt-1 list-disc space-y-0.5 ps-5" data-testid="pd-error-hints">
          {unconfirmed ? (
            <li>{t('paymentDemo.error.unconfirmedHint')}</li>
          ) : (
            <>
              <li>{t('paymentDemo.error.hint.balance')}</li>
              <li>{t('paymentDemo.error.hint.card')}</li>
              <li>{t('paymentDemo.error.hint.another')}</li>
              <li>{t('paymentDemo.error.hint.amount')}</li>
            </>
          )}
        </ul>
      </div>
      {retryAvailable ? (
        <div className="flex flex-col gap-2 sm:flex-row">
          <Button onClick={onRetry} data-testid="pd-retry">
            <RotateCcw className="h-4 w-4" aria-hidden />
            {t('paymentDemo.error.retry')}
          </Button>
          <Button variant="outline" onClick={onCancel} data-testid="pd-cancel">
            {t('paymentDemo.error.cancel')}
          </Button>
        </div>
      ) : (
        <p className="flex items-center gap-2 text-sm text-slate-600" data-testid="pd-error-waiting">
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
          {t('paymentDemo.error.waiting')}
        </p>
      )}
    </div>
  );
}
