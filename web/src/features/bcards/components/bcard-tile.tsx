import { Ban, Clock, CreditCard, Eye } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card } from '../../../components/ui/card';
import { useLanguage, useT, type MessageKey } from '../../../i18n';
import { cn } from '../../../lib/cn';
import { displayStatus, expiryCountdown, isolateFor, type Countdown } from '../bcard-display';
import { formatMoney } from '../split';
import type { Bcard } from '../api';
import { BcardStageBadge } from './bcard-stage';

const statusTone = { active: 'green', used: 'blue', expired: 'neutral', canceled: 'red' } as const;
const statusLabel: Record<keyof typeof statusTone, MessageKey> = {
  active: 'bcards.status.active',
  used: 'bcards.status.used',
  expired: 'bcards.status.expired',
  canceled: 'bcards.status.canceled',
};
const isKnown = (s: string): s is keyof typeof statusTone => Object.hasOwn(statusTone, s);

function useCountdownText() {
  const t = useT();
  return (c: Countdown): string => {
    switch (c.kind) {
      case 'expired':
        return t('bcards.tile.expiring');
      case 'lessThanMinute':
        return t('bcards.tile.expiresSoon');
      case 'minutes':
        return t('bcards.tile.expiresInMinutes', { n: c.minutes });
      case 'hours':
        return t('bcards.tile.expiresInHours', { h: c.hours, m: c.minutes });
      case 'days':
        return t('bcards.tile.expiresInDays', { n: c.days });
    }
  };
}

/** One bcard: name, masked number, status, what is left of the limit, the countdown while active, its sources. */
export function BcardTile({
  bcard,
  now,
  isDemo,
  onReveal,
  onCancel,
}: {
  bcard: Bcard;
  now: Date;
  isDemo: boolean;
  onReveal(bcard: Bcard): void;
  onCancel(bcard: Bcard): void;
}) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const countdownText = useCountdownText();
  // Past its session the card is expired on screen at once, without waiting for the list to be read again.
  const status = displayStatus(bcard, now);
  const active = status === 'active';
  // Its stage in words; one whose session just ended on screen is on its way back, as the server will say.
  const stage =
    bcard.stage.code === 'active' && !active ? { ...bcard.stage, code: 'expiring' as const, held: null, returned: bcard.totalCharged } : bcard.stage;
  const expiry = `${String(bcard.expiryMonth).padStart(2, '0')}/${String(bcard.expiryYear % 100).padStart(2, '0')}`;

  return (
    <Card className="flex h-full flex-col overflow-hidden" data-testid="bcard-tile" data-status={status} data-bcard-id={bcard.id}>
      <div
        className={cn(
          'bg-gradient-to-br p-5 text-white',
          active ? 'from-brand-600 to-indigo-800' : 'from-slate-400 to-slate-600',
        )}
      >
        <div className="flex items-start justify-between gap-3">
          <p className="min-w-0 truncate font-semibold" data-testid="bcard-name-label">
            {bcard.name}
          </p>
          <Badge tone={isKnown(status) ? statusTone[status] : 'neutral'} data-testid="bcard-status">
            {isKnown(status) ? t(statusLabel[status]) : status}
          </Badge>
        </div>
        <p className="mt-6 font-mono text-lg tracking-widest" dir="ltr" data-testid="bcard-number">
          {bcard.cardNumber}
        </p>
        <div className="mt-1 flex items-end justify-between gap-3 text-xs opacity-90">
          <span className="truncate uppercase tracking-wide">{bcard.cardholderName}</span>
          <span className="shrink-0 font-mono" dir="ltr">
            {expiry}
          </span>
        </div>
      </div>
      <div className="flex flex-1 flex-col gap-4 p-5 text-sm">
        <div className="flex items-baseline justify-between gap-3">
          <span className="text-xs text-slate-500">{t('bcards.tile.balance')}</span>
          <span className="font-semibold tabular-nums text-slate-900" data-testid="bcard-balance">
            {t('bcards.tile.balanceOf', {
              balance: iso(formatMoney(bcard.balance)),
              limit: iso(formatMoney(bcard.spendingLimit)),
            })}
          </span>
        </div>
        <div className="flex min-w-0 flex-wrap">
          <BcardStageBadge stage={stage} />
        </div>
        {active && (
          <p className="flex items-center gap-1.5 text-xs font-medium text-amber-700" data-testid="bcard-countdown">
            <Clock className="h-3.5 w-3.5" aria-hidden />
            {countdownText(expiryCountdown(bcard.expiresAt, now))}
          </p>
        )}
        {bcard.lockedDomain && (
          <p className="truncate text-xs text-slate-500" data-testid="bcard-locked">
            {t('bcards.tile.lockedTo', { site: bcard.lockedDomain })}
          </p>
        )}
        {bcard.closedReason === 'too_many_incorrect_attempts' && (
          <p className="text-xs font-medium text-red-700" role="note" data-testid="bcard-closed-reason">
            {t('bcards.tile.closedAttempts')}
          </p>
        )}
        {bcard.fundingSources.length > 0 && (
          <div>
            <p className="mb-1.5 text-xs text-slate-500">{t('bcards.tile.fundedBy')}</p>
            <ul className="space-y-1" data-testid="bcard-sources">
              {bcard.fundingSources.map((s) => (
                <li key={s.fundingSourceId} className="flex items-center justify-between gap-2 text-xs">
                  <span className="flex min-w-0 items-center gap-1.5 text-slate-700">
                    <CreditCard className="h-3.5 w-3.5 shrink-0 text-slate-400" aria-hidden />
                    <span className="truncate">{s.name}</span>
                    <span className="shrink-0 whitespace-nowrap font-mono text-slate-400" dir="ltr">
                      •••• {s.last4}
                    </span>
                  </span>
                  <span className="shrink-0 tabular-nums text-slate-600" dir="ltr">
                    {t('bcards.tile.share', { pct: s.percentage, amount: formatMoney(s.amount) })}
                  </span>
                </li>
              ))}
            </ul>
          </div>
        )}
        {active && (
          <div className="mt-auto flex flex-wrap gap-2 pt-1">
            <Button
              size="sm"
              variant="outline"
              onClick={() => onReveal(bcard)}
              disabled={isDemo}
              data-testid="bcard-reveal"
            >
              <Eye className="h-4 w-4" aria-hidden />
              {t('bcards.tile.showDetails')}
            </Button>
            <Button
              size="sm"
              variant="ghost"
              className="text-red-600 hover:bg-red-50"
              onClick={() => onCancel(bcard)}
              disabled={isDemo}
              data-testid="bcard-cancel"
            >
              <Ban className="h-4 w-4" aria-hidden />
              {t('bcards.tile.cancel')}
            </Button>
          </div>
        )}
      </div>
    </Card>
  );
}
