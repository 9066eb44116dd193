import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Clock, KeyRound, Loader2, RotateCw, ShieldAlert } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage, type MessageKey } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { KEY_GRACE_PERIODS, merchantsQuery, rollSecretRequest, type KeyGracePeriod, type Merchant, type MerchantWithSecret } from '../api';
import { useIdempotencyKeys } from '../../../lib/idempotency';
import { formatDateTime } from '../display';
import { CopyButton } from './copy-button';
import { SecretReveal } from './secret-reveal';

const PERIOD_LABEL: Record<KeyGracePeriod, MessageKey> = {
  now: 'merchants.keys.expire.now',
  '1h': 'merchants.keys.expire.1h',
  '24h': 'merchants.keys.expire.24h',
  '7d': 'merchants.keys.expire.7d',
};

/** A key hint inside a sentence: isolated left-to-right, so it reads the same inside Arabic text. */
const ltr = (s: string) => `\u2066${s}\u2069`;

/** The key a roll replaced, while it still works (the server answers it only then; the clock may have moved since). */
function oldKeyInGrace(merchant: Merchant): { hint: string; until: string } | null {
  const { previousSecretKeyHint: hint, previousSecretKeyExpiresAt: until } = merchant;
  return hint && until && new Date(until).getTime() > Date.now() ? { hint, until } : null;
}

/**
 * Roll the secret key: a confirmation with how long the old key keeps working (Stripe's "expire the old key in"),
 * then the new key shown once (in this dialog's state only).
 */
function RollSecretDialog({ merchant, open, onOpenChange }: { merchant: Merchant; open: boolean; onOpenChange(open: boolean): void }) {
  const { t, lang } = useLanguage();
  const qc = useQueryClient();
  const [rolled, setRolled] = useState<MerchantWithSecret | null>(null);
  const [period, setPeriod] = useState<KeyGracePeriod>('now');
  const keys = useIdempotencyKeys();
  const roll = useMutation({
    mutationFn: async () => {
      const attempt = keys.begin({ expire_old_key_in: period });
      try {
        const answer = await rollSecretRequest(merchant.id, period, attempt.key);
        keys.settle(attempt);
        return answer;
      } catch (error) {
        keys.settle(attempt, error);
        throw error;
      }
    },
    onSuccess: (m) => {
      const { secretApiKey, ...listed } = m;
      qc.setQueryData(merchantsQuery().queryKey, (list) => list?.map((x) => (x.id === m.id ? listed : x)));
      if (secretApiKey === undefined) {
        // A retry of a roll whose answer was lost: it happened once, and its key cannot be shown again.
        void qc.invalidateQueries({ queryKey: merchantsQuery().queryKey });
        toast({ title: t('merchants.keys.rollReplayedTitle'), description: t('merchants.keys.rollReplayedBody'), variant: 'destructive' });
        setPeriod('now');
        keys.reset();
        onOpenChange(false);
        return;
      }
      setRolled({ ...listed, secretApiKey });
      const until = oldKeyInGrace(m)?.until;
      toast({
        title: t('merchants.keys.rolledToast'),
        description: until
          ? t('merchants.keys.rolledToastBodyGrace', { date: formatDateTime(until, lang) })
          : t('merchants.keys.rolledToastBody'),
      });
    },
    onError: (error) => toast({ title: t('merchants.keys.rollFailed'), description: messageOf(error), variant: 'destructive' }),
  });
  const close = (next: boolean) => {
    if (next) return onOpenChange(true);
    if (roll.isPending) return;
    setRolled(null);
    setPeriod('now');
    keys.reset();
    roll.reset();
    onOpenChange(false);
  };
  const replaced = oldKeyInGrace(merchant);
  const rolledUntil = rolled ? oldKeyInGrace(rolled)?.until : undefined;
  return (
    <Dialog open={open} onOpenChange={close}>
      <DialogContent closeLabel={t('common.close')} data-testid="roll-secret-dialog">
        <DialogHeader>
          <DialogTitle>{rolled ? t('merchants.keys.rolledTitle') : t('merchants.keys.rollTitle')}</DialogTitle>
          <DialogDescription>
            {rolled
              ? rolledUntil
                ? t('merchants.keys.rolledDescriptionGrace', { date: formatDateTime(rolledUntil, lang) })
                : t('merchants.keys.rolledDescription')
              : t('merchants.keys.rollDescription')}
          </DialogDescription>
        </DialogHeader>
        {rolled ? (
          <div className="space-y-4">
            <SecretReveal
              title={t('merchants.keys.secretRevealTitle')}
              secret={rolled.secretApiKey}
              warning={t('merchants.keys.secretWarning')}
              copyLabel={t('merchants.keys.secret')}
              testId="rolled-secret-reveal"
            />
            <div className="flex justify-end">
              <Button onClick={() => close(false)} data-testid="rolled-secret-done">
                {t('merchants.keys.savedIt')}
              </Button>
            </div>
          </div>
        ) : (
          <div className="space-y-4">
            <div className="space-y-1.5">
              <Label htmlFor="roll-secret-expire">{t('merchants.keys.expireOldLabel')}</Label>
              <select
                id="roll-secret-expire"
                data-testid="roll-secret-expire"
                aria-describedby="roll-secret-expire-hint"
                className="h-10 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900"
                value={period}
                disabled={roll.isPending}
                onChange={(e) => setPeriod(KEY_GRACE_PERIODS.find((p) => p === e.target.value) ?? 'now')}
              >
                {KEY_GRACE_PERIODS.map((p) => (
                  <option key={p} value={p}>
                    {t(PERIOD_LABEL[p])}
                  </option>
                ))}
              </select>
              <p id="roll-secret-expire-hint" className="text-xs text-slate-500">
                {t('merchants.keys.expireOldHint')}
              </p>
            </div>
            <p className="flex items-start gap-2 rounded-md bg-red-50 p-3 text-sm text-red-800" role="alert" data-testid="roll-secret-warning">
              <ShieldAlert className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
              {period === 'now'
                ? t('merchants.keys.rollWarning')
                : t('merchants.keys.rollWarningGrace', { period: t(PERIOD_LABEL[period]) })}
            </p>
            {replaced && (
              <p className="flex items-start gap-2 rounded-md bg-amber-50 p-3 text-sm text-amber-900" data-testid="roll-secret-replaces-old">
                <Clock className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
                {t('merchants.keys.replacesOldKey', { hint: ltr(replaced.hint), date: formatDateTime(replaced.until, lang) })}
              </p>
            )}
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Button variant="outline" onClick={() => close(false)} disabled={roll.isPending}>
                {t('common.cancel')}
              </Button>
              <Button variant="destructive" onClick={() => roll.mutate()} disabled={roll.isPending} data-testid="roll-secret-confirm">
                {roll.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
                {t('merchants.keys.rollConfirm')}
              </Button>
            </div>
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}

function KeyRow({ label, hint, children }: { label: string; hint: string; children: ReactNode }) {
  return (
    <div className="space-y-1.5">
      <p className="text-sm font-medium text-slate-900">{label}</p>
      <p className="text-xs text-slate-500">{hint}</p>
      <div className="flex items-center gap-2">{children}</div>
    </div>
  );
}

/** The publishable key (copyable), the secret key's hint, and rolling the secret. */
export function ApiKeysTab({ merchant }: { merchant: Merchant }) {
  const { t, lang } = useLanguage();
  const [rolling, setRolling] = useState(false);
  const oldKey = oldKeyInGrace(merchant);
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRound className="h-5 w-5 text-brand-600" aria-hidden />
          {t('merchants.keys.title')}
        </CardTitle>
        <CardDescription>{t('merchants.keys.description')}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-6">
        <KeyRow label={t('merchants.keys.publishable')} hint={t('merchants.keys.publishableHint')}>
          <code
            className="min-w-0 flex-1 break-all rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-sm"
            dir="ltr"
            data-testid="merchant-publishable-key"
          >
            {merchant.apiKey}
          </code>
          <CopyButton text={merchant.apiKey} label={t('merchants.keys.publishable')} testId="merchant-publishable-key-copy" />
        </KeyRow>
        <KeyRow label={t('merchants.keys.secret')} hint={t('merchants.keys.secretHint')}>
          <code
            className="min-w-0 flex-1 break-all rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-sm text-slate-600"
            dir="ltr"
            data-testid="merchant-secret-hint"
          >
            {merchant.secretKeyHint}
          </code>
          <Button variant="outline" size="sm" onClick={() => setRolling(true)} data-testid="roll-secret-button">
            <RotateCw className="h-4 w-4" aria-hidden />
            {t('merchants.keys.roll')}
          </Button>
        </KeyRow>
        {oldKey && (
          <p className="flex items-start gap-2 rounded-md bg-amber-50 p-3 text-sm text-amber-900" data-testid="merchant-old-key-grace">
            <Clock className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
            {t('merchants.keys.oldKeyWorksUntil', { hint: ltr(oldKey.hint), date: formatDateTime(oldKey.until, lang) })}
          </p>
        )}
        <p className="text-xs text-slate-500" data-testid="merchant-secret-rolled-at">
          {merchant.secretKeyRolledAt
            ? t('merchants.keys.lastRolled', { date: formatDateTime(merchant.secretKeyRolledAt, lang) })
            : t('merchants.keys.neverRolled')}
        </p>
        <p className="flex items-start gap-2 rounded-md bg-slate-50 p-3 text-xs text-slate-600">
          <ShieldAlert className="mt-0.5 h-4 w-4 shrink-0 text-slate-400" aria-hidden />
          {t('merchants.keys.noSecretsInBrowser')}
        </p>
      </CardContent>
      <RollSecretDialog merchant={merchant} open={rolling} onOpenChange={setRolling} />
    </Card>
  );
}
