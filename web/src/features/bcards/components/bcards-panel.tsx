import { useQueryClient } from '@tanstack/react-query';
import { CreditCard, FlaskConical, Plus } from 'lucide-react';
import { useEffect, useMemo, useState } from 'react';
import { EmptyState, ListState, listStatus, LoadError } from '../../../components/ui/list-state';
import { useT } from '../../../i18n';
import { bcardsQuery } from '../api';
import { useRevealBcard } from '../hooks/use-bcard-actions';
import { useNow } from '../hooks/use-now';
import { nextExpiry } from '../bcard-display';
import type { Bcard } from '../api';
import { BcardDetailsDialog, CancelBcardDialog } from './bcard-dialogs';
import { BcardTile } from './bcard-tile';

/** setTimeout cannot wait longer than this. */
const MAX_TIMER_MS = 2_147_483_647;
/** Give the server's expiry sweep a moment before asking again. */
const EXPIRY_REFRESH_GRACE_MS = 5_000;

/** Active cards first (the ones that can still be used), otherwise in the server's order (newest first). */
function ordered(bcards: readonly Bcard[]): Bcard[] {
  return [...bcards].sort((a, b) => Number(b.status === 'active') - Number(a.status === 'active'));
}

/**
 * The bcards tab's content: a grid of tiles plus the tile that opens Create bcard; 'No bcards yet' when there are
 * none. Reveal and cancel work on active cards; in demo mode the sample cards are read-only.
 */
export function BcardsPanel({
  bcards,
  isLoading,
  error,
  onRetry,
  isDemo,
  onCreate,
  onMoneyMoved,
}: {
  bcards: readonly Bcard[];
  isLoading: boolean;
  error: unknown;
  onRetry(): void;
  isDemo: boolean;
  onCreate(): void;
  onMoneyMoved(): void;
}) {
  const t = useT();
  const qc = useQueryClient();
  // Woken exactly when the soonest active card's session ends, so its tile turns expired then.
  const [wakeAt, setWakeAt] = useState<number | undefined>(undefined);
  const now = useNow(15_000, wakeAt);
  useEffect(() => {
    setWakeAt(isDemo ? undefined : nextExpiry(bcards, now));
  }, [bcards, now, isDemo]);
  const reveal = useRevealBcard();
  const [revealed, setRevealed] = useState<Bcard | null>(null);
  const [canceling, setCanceling] = useState<Bcard | null>(null);
  const list = useMemo(() => ordered(bcards), [bcards]);

  // When the soonest active card runs out, ask the server again so its status follows.
  useEffect(() => {
    if (isDemo) return;
    const next = bcards
      .filter((b) => b.status === 'active')
      .map((b) => Date.parse(b.expiresAt))
      .filter(Number.isFinite)
      .sort((a, b) => a - b)[0];
    if (next === undefined) return;
    const wait = Math.max(0, next - Date.now()) + EXPIRY_REFRESH_GRACE_MS;
    if (wait > MAX_TIMER_MS) return;
    const id = setTimeout(() => {
      void qc.invalidateQueries({ queryKey: bcardsQuery().queryKey });
    }, wait);
    return () => clearTimeout(id);
  }, [bcards, isDemo, qc]);

  function openReveal(bcard: Bcard) {
    // Started from the click (not an effect) so exactly one reveal is recorded per press.
    reveal.reset();
    reveal.mutate(bcard.id);
    setRevealed(bcard);
  }

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-1">
        <h2 className="text-lg font-semibold text-slate-900">{t('bcards.title')}</h2>
        <p className="text-sm text-slate-500">{t('bcards.description')}</p>
      </div>
      {isDemo && (
        <p className="flex items-start gap-2 text-sm text-amber-800" data-testid="bcards-demo-note">
          <FlaskConical className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
          {t('bcards.demoNote')}
        </p>
      )}
      <ListState
        status={listStatus({ isLoading, error, total: list.length })}
        error={<LoadError message={t('bcards.loadFailed')} error={error} onRetry={onRetry} />}
      >
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label={t('bcards.title')}>
          {list.length === 0 && (
            <EmptyState
              as="li"
              className="sm:col-span-1 lg:col-span-2"
              icon={<CreditCard className="h-6 w-6" />}
              title={t('bcards.empty')}
              description={t('bcards.emptyBody')}
              testId="bcards-empty"
            />
          )}
          {list.map((b) => (
            <li key={b.id}>
              <BcardTile bcard={b} now={now} isDemo={isDemo} onReveal={openReveal} onCancel={setCanceling} />
            </li>
          ))}
          <li>
            <button
              type="button"
              onClick={onCreate}
              data-testid="create-bcard-tile"
              className="flex h-full min-h-56 w-full flex-col items-center justify-center gap-3 rounded-xl border-2 border-dashed border-brand-100 bg-white p-6 text-center text-brand-700 transition-colors hover:border-brand-500 hover:bg-brand-50"
            >
              <span className="flex h-12 w-12 items-center justify-center rounded-full bg-brand-50" aria-hidden>
                <Plus className="h-6 w-6" />
              </span>
              <span className="font-semibold">{t('bcards.createTile')}</span>
              <span className="text-xs text-slate-500">{t('bcards.createTileBody')}</span>
            </button>
          </li>
        </ul>
      </ListState>
      <BcardDetailsDialog
        bcard={revealed}
        reveal={reveal}
        onClose={() => {
          setRevealed(null);
          reveal.reset();
        }}
      />
      <CancelBcardDialog bcard={canceling} onClose={() => setCanceling(null)} onMoneyMoved={onMoneyMoved} />
    </div>
  );
}
