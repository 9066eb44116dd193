import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { downgradePlan, refreshAfterChange, type Plan, type Tier } from '../api';
import { formatDate } from '../format';

/** Confirms a move to a cheaper plan (or Free: a cancellation), which waits for the end of a paid period. */
export function DowngradeDialog({ tier, plan, onClose }: { tier: Tier; plan: Plan; onClose(): void }) {
  const { t, lang } = useLanguage();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const end = plan.currentPeriodEnd ? formatDate(plan.currentPeriodEnd, lang) : null;

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      const next = await downgradePlan(tier.id);
      toast({ title: next.pendingTier ? t('plans.toast.scheduled') : t('plans.toast.changed') });
      await refreshAfterChange(queryClient, next);
      onClose();
    } catch (err) {
      const message = messageOf(err) ?? t('plans.toast.failed');
      setError(message);
      toast({ title: t('plans.toast.failed'), description: message, variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open onOpenChange={(open) => !open && !busy && onClose()}>
      <DialogContent closeLabel={t('common.close')} closeDisabled={busy} data-testid="plans-downgrade-dialog">
        <DialogHeader>
          <DialogTitle>{t('plans.down.title', { plan: tier.displayName })}</DialogTitle>
          <DialogDescription>
            {end
              ? t('plans.down.description', { plan: tier.displayName, current: plan.tier.displayName, date: end })
              : t('plans.down.descriptionNow', { plan: tier.displayName })}
          </DialogDescription>
        </DialogHeader>
        {error && (
          <p className="mb-4 rounded-lg bg-red-50 p-3 text-sm text-red-800" role="alert">
            {error}
          </p>
        )}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={onClose} disabled={busy}>
            {t('plans.down.back')}
          </Button>
          <Button onClick={() => void confirm()} disabled={busy} data-testid="plans-downgrade-confirm">
            {t('plans.down.confirm')}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
