import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { useIdempotencyKeys } from '../../../lib/idempotency';
import { payingSourcesQuery, refreshAfterChange, upgradePlan, type Plan, type Tier } from '../api';
import { formatDate, formatPrice } from '../format';

/**
 * Pays for a dearer plan: the user picks one of their funding sources and the new plan's monthly price is charged
 * now (in the middle of a paid period the server charges the prorated difference instead, issue 26). One Idempotency-Key per attempt (the same one again when that attempt got no final answer), so pressing
 * Pay twice or retrying after a timeout never charges twice. The dialog stays open while the payment runs.
 */
export function PayDialog({ tier, plan, onClose }: { tier: Tier; plan: Plan; onClose(): void }) {
  const { t, lang } = useLanguage();
  const queryClient = useQueryClient();
  const sources = useQuery(payingSourcesQuery());
  const keys = useIdempotencyKeys();
  const usable = (sources.data ?? []).filter((s) => s.isActive);
  const [sourceId, setSourceId] = useState<string | null>(null);
  const chosen = sourceId ?? usable[0]?.id ?? null;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const busyId = useId();
  const errorId = useId();
  const price = formatPrice(tier.monthlyPrice);
  // In the middle of a paid period the server prorates (issue 26): the difference for the rest of it, the period kept.
  const prorated =
    plan.tier.monthlyPrice > 0 && plan.currentPeriodEnd !== null && !plan.pastDueSince && new Date(plan.currentPeriodEnd).getTime() > Date.now();

  async function pay(e: FormEvent) {
    e.preventDefault();
    if (!chosen || busy) return;
    const body = { tierId: tier.id, fundingSourceId: chosen };
    const attempt = keys.begin(body);
    setBusy(true);
    setError(null);
    try {
      const answer = await upgradePlan(body, attempt.key);
      keys.settle(attempt);
      toast({
        title: t('plans.toast.upgraded', { plan: tier.displayName }),
        description: t('plans.toast.upgradedDescription', { id: answer.receipt.id, amount: formatPrice(Number(answer.receipt.amount)) }),
      });
      await refreshAfterChange(queryClient, answer.plan);
      onClose();
    } catch (err) {
      keys.settle(attempt, err);
      const message = messageOf(err) ?? t('plans.toast.upgradeFailed');
      setError(message);
      toast({ title: t('plans.toast.upgradeFailed'), description: message, variant: 'destructive' });
      await refreshAfterChange(queryClient);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open onOpenChange={(open) => !open && !busy && onClose()}>
      <DialogContent closeLabel={t('common.close')} closeDisabled={busy} closeDescribedBy={busyId} data-testid="plans-pay-dialog">
        <DialogHeader>
          <DialogTitle>{t('plans.pay.title', { plan: tier.displayName })}</DialogTitle>
          <DialogDescription>
            {prorated && plan.currentPeriodEnd
              ? t('plans.pay.descriptionProrated', { date: formatDate(plan.currentPeriodEnd, lang), current: plan.tier.displayName, price })
              : t('plans.pay.description', { price })}
          </DialogDescription>
        </DialogHeader>
        <form onSubmit={(e) => void pay(e)} className="space-y-4" noValidate>
          {sources.isPending ? (
            <p className="text-sm text-slate-600">{t('plans.loading')}</p>
          ) : usable.length === 0 ? (
            <p className="text-sm text-amber-800" role="alert">
              {t('plans.pay.noSources')}
            </p>
          ) : (
            <fieldset className="space-y-2" aria-describedby={error ? errorId : undefined}>
              <legend className="mb-2 text-sm font-medium text-slate-900">{t('plans.pay.source')}</legend>
              {(sources.data ?? []).map((s) => (
                <label
                  key={s.id}
                  className="flex cursor-pointer items-center gap-3 rounded-lg border border-slate-200 p-3 text-sm has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50 has-[:disabled]:cursor-not-allowed has-[:disabled]:opacity-60"
                >
                  <input
                    type="radio"
                    name="plan-source"
                    value={s.id}
                    checked={chosen === s.id}
                    disabled={!s.isActive || busy}
                    onChange={() => setSourceId(s.id)}
                    className="h-4 w-4 accent-brand-600"
                  />
                  <span className="min-w-0 flex-1 truncate">
                    {s.isActive ? `${s.name} (•••• ${s.last4})` : t('plans.pay.paused', { source: `${s.name} (•••• ${s.last4})` })}
                  </span>
                </label>
              ))}
            </fieldset>
          )}
          {error && (
            <p id={errorId} className="rounded-lg bg-red-50 p-3 text-sm text-red-800" role="alert" data-testid="plans-pay-error">
              {error}
            </p>
          )}
          {busy && (
            <p id={busyId} className="text-sm text-slate-600" role="status">
              {t('plans.pay.busy')}
            </p>
          )}
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Button variant="outline" onClick={onClose} disabled={busy}>
              {t('plans.pay.cancel')}
            </Button>
            <Button type="submit" disabled={!chosen || busy} data-testid="plans-pay-submit">
              {busy ? t('plans.pay.processing') : prorated ? t('plans.pay.submitProrated') : t('plans.pay.submit', { price })}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
