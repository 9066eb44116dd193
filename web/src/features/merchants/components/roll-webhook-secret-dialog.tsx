import { useMutation } from '@tanstack/react-query';
import { Loader2, ShieldAlert } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { FormDialog } from '../../../components/ui/dialog-form';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { useIdempotencyKeys } from '../../../lib/idempotency';
import { Label } from '../../../components/ui/label';
import { rollWebhookSecretRequest, SECRET_GRACE_PERIODS, type RolledWebhookEndpoint, type SecretGracePeriod, type WebhookEndpoint } from '../api';
import { SecretReveal } from './secret-reveal';

/** The API keys tab's words for the same periods. */
const PERIOD_LABEL = { now: 'merchants.keys.expire.now', '1h': 'merchants.keys.expire.1h', '24h': 'merchants.keys.expire.24h' } as const;

/**
 * Roll an endpoint's signing secret: a confirmation with how long the old secret keeps signing beside the new one
 * (none by default, else 1 or 24 hours: deliveries then carry both signatures), then the new secret shown once, in
 * this dialog's state only.
 */
export function RollWebhookSecretDialog({
  merchantId,
  endpoint,
  onClose,
}: {
  merchantId: string;
  endpoint: WebhookEndpoint | null;
  onClose(): void;
}) {
  const t = useT();
  const keys = useIdempotencyKeys();
  const [rolled, setRolled] = useState<RolledWebhookEndpoint | null>(null);
  const [period, setPeriod] = useState<SecretGracePeriod>('now');
  const roll = useMutation({
    mutationFn: async (id: string) => {
      const attempt = keys.begin({ roll: id, expire_old_secret_in: period });
      try {
        const answer = await rollWebhookSecretRequest(merchantId, id, period, attempt.key);
        keys.settle(attempt);
        return answer;
      } catch (error) {
        keys.settle(attempt, error);
        throw error;
      }
    },
    onSuccess: (answer) => {
      setRolled(answer);
      toast({
        title: t('merchants.webhookRoll.rolledToast'),
        description:
          period === 'now' ? t('merchants.webhookRoll.rolledToastBody') : t('merchants.webhookRoll.rolledToastBodyGrace', { period: t(PERIOD_LABEL[period]) }),
      });
    },
    onError: (e) => toast({ title: t('merchants.webhookRoll.failed'), description: messageOf(e), variant: 'destructive' }),
  });

  const close = () => {
    if (roll.isPending) return;
    setRolled(null);
    setPeriod('now');
    roll.reset();
    keys.reset();
    onClose();
  };

  return (
    <FormDialog
      open={endpoint !== null}
      onOpenChange={(open) => {
        if (!open) close();
      }}
      busy={roll.isPending}
      testId="roll-webhook-secret-dialog"
      title={rolled ? t('merchants.webhookRoll.rolledTitle') : t('merchants.webhookRoll.title')}
      description={rolled ? t('merchants.webhooks.createdDescription') : t('merchants.webhookRoll.description')}
    >
      <p className="mb-4 break-all rounded-md bg-slate-50 px-3 py-2 font-mono text-sm" dir="ltr">
        {endpoint?.url}
      </p>
      {rolled?.secret ? (
        <div className="space-y-4">
          <SecretReveal
            title={t('merchants.webhooks.secretTitle')}
            secret={rolled.secret}
            warning={t('merchants.webhooks.secretWarning')}
            copyLabel={t('merchants.webhooks.secretLabel')}
            testId="webhook-rolled-secret"
          />
          <div className="flex justify-end">
            <Button onClick={close} data-testid="webhook-rolled-secret-done">
              {t('merchants.keys.savedIt')}
            </Button>
          </div>
        </div>
      ) : rolled ? (
        // A replayed roll whose secret can no longer be read (see endpointSecretIdempotency): say so, never a blank.
        <div className="space-y-4">
          <p className="rounded-md bg-red-50 p-3 text-sm text-red-800" role="alert">
            {t('merchants.webhookRoll.secretUnavailable')}
          </p>
          <div className="flex justify-end">
            <Button onClick={close}>{t('common.close')}</Button>
          </div>
        </div>
      ) : (
        <div className="space-y-4">
          <div className="space-y-1.5">
            <Label htmlFor="webhook-roll-expire">{t('merchants.webhookRoll.expireOldLabel')}</Label>
            <select
              id="webhook-roll-expire"
              data-testid="webhook-roll-expire"
              aria-describedby="webhook-roll-expire-hint"
              className="h-10 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900"
              value={period}
              disabled={roll.isPending}
              onChange={(e) => setPeriod(SECRET_GRACE_PERIODS.find((p) => p === e.target.value) ?? 'now')}
            >
              {SECRET_GRACE_PERIODS.map((p) => (
                <option key={p} value={p}>
                  {t(PERIOD_LABEL[p])}
                </option>
              ))}
            </select>
            <p id="webhook-roll-expire-hint" className="text-xs text-slate-500">
              {t('merchants.webhookRoll.expireOldHint')}
            </p>
          </div>
          <p className="flex items-start gap-2 rounded-md bg-red-50 p-3 text-sm text-red-800" role="note">
            <ShieldAlert className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
            {t('merchants.webhookRoll.warning')}
          </p>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <Button variant="outline" onClick={close} disabled={roll.isPending}>
              {t('common.cancel')}
            </Button>
            <Button
              variant="destructive"
              onClick={() => endpoint && !roll.isPending && roll.mutate(endpoint.id)}
              disabled={roll.isPending}
              data-testid="webhook-roll-confirm"
            >
              {roll.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
              {t('merchants.webhookRoll.confirm')}
            </Button>
          </div>
        </div>
      )}
    </FormDialog>
  );
}
