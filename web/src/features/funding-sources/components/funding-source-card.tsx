import { CreditCard, Landmark, Loader2, ShieldCheck, Trash2 } from 'lucide-react';
import { Suspense, lazy, useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card } from '../../../components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { Switch } from '../../../components/ui/switch';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { cn } from '../../../lib/cn';
import { useRemoveFundingSource, useSetFundingSourceActive } from '../hooks/use-funding-source-actions';
import type { FundingSource } from '../api';
import { brandGradient, brandLabel } from './brand';

/** The micro-deposit dialog loads when it is first opened: the dashboard's first paint stays in budget. */
const VerifyMicrodepositsDialog = lazy(() => import('./verify-microdeposits-dialog').then((m) => ({ default: m.VerifyMicrodepositsDialog })));

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

/** "10000.00" -> "$10,000.00" (display only; amounts are never computed here). */
function formatBalance(balance: string): string {
  const n = Number(balance);
  return Number.isFinite(n) ? usd.format(n) : balance;
}

function RemoveDialog({
  source,
  open,
  onOpenChange,
}: {
  source: FundingSource;
  open: boolean;
  onOpenChange(open: boolean): void;
}) {
  const t = useT();
  const remove = useRemoveFundingSource();
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) remove.reset();
        onOpenChange(next);
      }}
    >
      <DialogContent closeLabel={t('common.close')} data-testid="funding-source-remove-dialog">
        <DialogHeader>
          <DialogTitle>{t('fundingSources.remove.title')}</DialogTitle>
          <DialogDescription>
            {t('fundingSources.remove.body', { name: source.name, last4: source.last4 })}
          </DialogDescription>
        </DialogHeader>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={() => onOpenChange(false)}>
            {t('common.cancel')}
          </Button>
          <Button
            variant="destructive"
            disabled={remove.isPending}
            data-testid="funding-source-remove-confirm"
            onClick={() =>
              remove.mutate(source.id, {
                onSuccess: () => {
                  toast({ title: t('fundingSources.toast.removed'), description: t('fundingSources.toast.removedBody') });
                  onOpenChange(false);
                },
                onError: (error) =>
                  toast({
                    title: t('fundingSources.toast.removeFailed'),
                    description: messageOf(error),
                    variant: 'destructive',
                  }),
              })
            }
          >
            {remove.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {t('fundingSources.remove.confirm')}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}

/** One linked card: the face (brand, last four, name), expiry, default split, balance, the active switch, remove. */
export function FundingSourceCard({ source, isDemo }: { source: FundingSource; isDemo: boolean }) {
  const t = useT();
  const setActive = useSetFundingSourceActive();
  const [removing, setRemoving] = useState(false);
  const [verifying, setVerifying] = useState(false);
  const bank = source.bankAccount;
  const expiry =
    source.expiryMonth === null || source.expiryYear === null
      ? null
      : `${String(source.expiryMonth).padStart(2, '0')}/${String(source.expiryYear % 100).padStart(2, '0')}`;
  const fundingBadge =
    source.type === 'debit_card' ? t('fundingSources.card.debit') : source.type === 'prepaid_card' ? t('fundingSources.card.prepaid') : null;
  const switchId = `funding-source-active-${source.id}`;
  const usable = !bank || bank.verificationStatus === 'verified';

  return (
    <Card className="flex h-full flex-col overflow-hidden" data-testid="funding-source" data-source-id={source.id}>
      {bank ? (
        <div className={cn('bg-gradient-to-br from-emerald-600 to-teal-700 p-5 text-white', !source.isActive && 'opacity-60')}>
          <div className="flex items-center justify-between">
            <span className="text-xs font-semibold uppercase tracking-wider opacity-90">
              {t(bank.accountType === 'savings' ? 'fundingSources.bank.tile.savings' : 'fundingSources.bank.tile.checking')}
            </span>
            <Landmark className="h-5 w-5 opacity-80" aria-hidden />
          </div>
          <p
            className="mt-6 font-mono text-lg tracking-widest"
            dir="ltr"
            aria-label={t('fundingSources.bank.tile.endingIn', { last4: source.last4 })}
          >
            •••• {source.last4}
          </p>
          <div className="mt-1 flex items-end justify-between gap-3">
            <p className="truncate text-sm font-medium opacity-95">{source.name}</p>
            <p className="shrink-0 font-mono text-xs opacity-90" dir="ltr" aria-label={t('fundingSources.bank.tile.routing', { routing: bank.routingNumber })}>
              {bank.routingNumber}
            </p>
          </div>
        </div>
      ) : (
      <div className={cn('bg-gradient-to-br p-5 text-white', brandGradient[source.brand], !source.isActive && 'opacity-60')}>
        <div className="flex items-center justify-between">
          <span className="flex items-center gap-2">
            <span className="text-xs font-semibold uppercase tracking-wider opacity-90">{t(brandLabel[source.brand])}</span>
            {fundingBadge && (
              <span
                className="rounded-full bg-white/20 px-2 py-0.5 text-[11px] font-semibold uppercase tracking-wide"
                data-testid="funding-source-funding"
              >
                {fundingBadge}
              </span>
            )}
          </span>
          <CreditCard className="h-5 w-5 opacity-80" aria-hidden />
        </div>
        <p
          className="mt-6 font-mono text-lg tracking-widest"
          dir="ltr"
          aria-label={t('fundingSources.card.endingIn', { last4: source.last4 })}
        >
          •••• {source.last4}
        </p>
        <div className="mt-1 flex items-end justify-between gap-3">
          <p className="truncate text-sm font-medium opacity-95">{source.name}</p>
          {expiry && (
            <p className="shrink-0 font-mono text-xs opacity-90" dir="ltr" aria-label={t('fundingSources.card.expires', { expiry })}>
              {expiry}
            </p>
          )}
        </div>
      </div>
      )}
      {bank && bank.verificationStatus === 'verified' && (
        <div className="flex items-center gap-2 px-5 pt-4 text-sm" data-testid="bank-verification" data-status="verified">
          <Badge tone="green">{t('fundingSources.bank.tile.verified')}</Badge>
        </div>
      )}
      {bank && bank.verificationStatus !== 'verified' && (
        <div
          className={cn(
            'flex flex-wrap items-center justify-between gap-2 px-5 pt-4 text-sm',
            bank.verificationStatus === 'failed' ? 'text-red-700' : 'text-amber-800',
          )}
          data-testid="bank-verification"
          data-status={bank.verificationStatus}
        >
          <Badge tone={bank.verificationStatus === 'failed' ? 'red' : 'yellow'}>
            {t(bank.verificationStatus === 'failed' ? 'fundingSources.bank.tile.failed' : 'fundingSources.bank.tile.pending')}
          </Badge>
          {bank.verificationStatus === 'pending' && !isDemo && (
            <Button size="sm" variant="outline" onClick={() => setVerifying(true)} data-testid="bank-verify-button">
              <ShieldCheck className="h-4 w-4" aria-hidden />
              {t('fundingSources.bank.tile.verify')}
            </Button>
          )}
          <p className="w-full text-xs text-slate-500">
            {t(bank.verificationStatus === 'failed' ? 'fundingSources.bank.tile.failedBody' : 'fundingSources.bank.tile.pendingBody')}
          </p>
        </div>
      )}
      <dl className="grid flex-1 grid-cols-2 gap-4 p-5 text-sm">
        {/* A bank account's balance is the bank's to know (the API answers none): its verification shows above instead. */}
        {!bank && (
        <div>
          <dt className="text-xs text-slate-500">{t('fundingSources.card.balance')}</dt>
          <dd className="font-semibold tabular-nums text-slate-900" dir="ltr" data-testid="funding-source-balance">
            {source.balance === null ? (
              <span className="font-normal text-slate-400">{t('fundingSources.card.balanceUnknown')}</span>
            ) : (
              formatBalance(source.balance)
            )}
          </dd>
        </div>
        )}
        <div>
          <dt className="text-xs text-slate-500">{t('fundingSources.card.defaultSplit')}</dt>
          <dd className="font-semibold tabular-nums text-slate-900">
            {t('fundingSources.card.percent', { n: source.defaultSplitPercentage })}
          </dd>
        </div>
      </dl>
      <div className="flex items-center justify-between gap-3 border-t border-slate-100 px-5 py-3">
        <div className="flex items-center gap-2">
          <Switch
            id={switchId}
            checked={source.isActive}
            disabled={isDemo || setActive.isPending}
            data-testid="funding-source-active"
            onCheckedChange={(isActive) =>
              setActive.mutate(
                { id: source.id, isActive },
                {
                  onError: (error) =>
                    toast({
                      title: t('fundingSources.toast.updateFailed'),
                      description: messageOf(error),
                      variant: 'destructive',
                    }),
                },
              )
            }
          />
          <label htmlFor={switchId} className="cursor-pointer text-sm">
            {/* An unverified bank account cannot fund anything yet: it is not called Active until it can. */}
            <Badge tone={source.isActive && usable ? 'green' : 'neutral'} data-testid="funding-source-state">
              {!usable ? t('fundingSources.bank.tile.notUsable') : source.isActive ? t('fundingSources.card.active') : t('fundingSources.card.inactive')}
            </Badge>
          </label>
        </div>
        {!isDemo && (
          <Button
            variant="ghost"
            size="sm"
            className="text-red-600 hover:bg-red-50"
            onClick={() => setRemoving(true)}
            data-testid="funding-source-remove"
            aria-label={t('fundingSources.remove.label', { name: source.name, last4: source.last4 })}
          >
            <Trash2 className="h-4 w-4" aria-hidden />
            {t('fundingSources.remove.button')}
          </Button>
        )}
      </div>
      {!isDemo && <RemoveDialog source={source} open={removing} onOpenChange={setRemoving} />}
      {bank && !isDemo && verifying && (
        <Suspense fallback={null}>
          <VerifyMicrodepositsDialog source={source} open={verifying} onOpenChange={setVerifying} />
        </Suspense>
      )}
    </Card>
  );
}
