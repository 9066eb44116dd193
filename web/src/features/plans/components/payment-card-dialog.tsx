import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { useIdempotencyKeys } from '../../../lib/idempotency';
import { payingSourcesQuery, refreshAfterChange, retryRenewal, setPaymentSource, type Plan } from '../api';
import { formatDate, formatPrice } from '../format';

/**
 * "Change card" (issue 26): the card the plan renews on, one of the user's active cards (a plan is paid by card, so
 * bank accounts are not offered). Nothing is charged now. When the plan is past due, the same submit also retries the
 * renewal at once on the new card (one Idempotency-Key per attempt, as the pay dialog does).
 */
export function PaymentCardDialog({ plan, onClose }: { plan: Plan; onClose(): void }) {
  const { t, lang } = useLanguage();
  const queryClient = useQueryClient();
  const sources = useQuery(payingSourcesQuery());
  const keys = useIdempotencyKeys();
  const cards = (sources.data ?? []).filter((s) => s.type !== 'bank_account');
  const [sourceId, setSourceId] = useState<string | null>(null);
  const chosen = sourceId ?? plan.paymentSource?.id ?? cards.find((s) => s.isActive)?.id ?? null;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const errorId = useId();
  const pastDue = Boolean(plan.pastDueSince);
  const price = formatPrice(plan.tier.monthlyPrice);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!chosen || busy) return;
    setBusy(true);
    setError(null);
    try {
      if (chosen !== plan.paymentSource?.id) {
        const next = await setPaymentSource(chosen);
        await refreshAfterChange(queryClient, next);
      }
      if (pastDue) {
        const attempt = keys.begin({ retry: chosen });
        try {
          const answer = await retryRenewal(attempt.key);
          keys.settle(attempt);
          toast({ title: t('plans.card.toast.renewed', { plan: plan.tier.displayName, amount: formatPrice(Number(answer.receipt.amount)) }) });
          await refreshAfterChange(queryClient, answer.plan);
        } catch (err) {
          keys.settle(attempt, err);
          throw err;
        }
      } else {
        toast({ title: t('plans.card.toast.changed') });
      }
      onClose();
    } catch (err) {
      const message = messageOf(err) ?? t('plans.toast.failed');
      setError(message);
      await refreshAfterChange(queryClient);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open onOpenChange={(open) => !open && !busy && onClose()}>
      <DialogContent closeLabel={t('common.close')} closeDisabled={busy} data-testid="plans-card-dialog">
        <DialogHeader>
          <DialogTitle>{t('plans.card.title')}</DialogTitle>
          <DialogDescription>
            {pastDue
              ? t('plans.card.descriptionPastDue', { price })
              : t('plans.card.description', { date: plan.currentPeriodEnd ? formatDate(plan.currentPeriodEnd, lang) : '' })}
          </DialogDescription>
        </DialogHeader>
        <form onSubmit={(e) => void save(e)} className="space-y-4" noValidate>
          {sources.isPending ? (
            <p className="text-sm text-slate-600">{t('plans.loading')}</p>
          ) : cards.length === 0 ? (
            <p className="text-sm text-amber-800" role="alert">
              {t('plans.card.noCards')}
            </p>
          ) : (
            <fieldset className="space-y-2" aria-describedby={error ? errorId : undefined}>
              <legend className="mb-2 text-sm font-medium text-slate-900">{t('plans.card.legend')}</legend>
              {cards.map((s) => (
                <label
                  key={s.id}
                  className="flex cursor-pointer items-center gap-3 rounded-lg border border-slate-200 p-3 text-sm has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50 has-[:disabled]:cursor-not-allowed has-[:disabled]:opacity-60"
                >
                  <input
                    type="radio"
                    name="plan-card"
                    value={s.id}
                    checked={chosen === s.id}
                    disabled={!s.isActive || busy}
                    onChange={() => setSourceId(s.id)}
                    className="h-4 w-4 accent-brand-600"
                  />
                  <span className="min-w-0 flex-1 truncate">
                    {s.isActive ? `${s.name} (•••• ${s.last4})` : t('plans.pay.paused', { source: `${s.name} (•••• ${s.last4})` })}
                  </span>
                  {s.id === plan.paymentSource?.id && <span className="shrink-0 text-xs text-slate-500">{t('plans.card.current')}</span>}
                </label>
              ))}
            </fieldset>
          )}
          {error && (
            <p id={errorId} className="rounded-lg bg-red-50 p-3 text-sm text-red-800" role="alert" data-testid="plans-card-error">
              {error}
            </p>
          )}
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Button variant="outline" onClick={onClose} disabled={busy}>
              {t('plans.pay.cancel')}
            </Button>
            <Button
              type="submit"
              disabled={!chosen || busy || (!pastDue && chosen === plan.paymentSource?.id)}
              data-testid="plans-card-submit"
            >
              {busy ? t('plans.pay.processing') : pastDue ? t('plans.card.submitRetry', { price }) : t('plans.card.submit')}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
