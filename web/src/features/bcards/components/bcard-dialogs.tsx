import type { UseMutationResult } from '@tanstack/react-query';
import { Check, Copy, Loader2, ShieldAlert } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage, useT } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { groupCardNumber, isolateFor } from '../bcard-display';
import { useCancelBcard } from '../hooks/use-bcard-actions';
import { formatMoney } from '../split';
import type { Bcard, CheckoutDetails } from '../api';

function CopyButton({ text, label, testId }: { text: string; label: string; testId: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      toast({ title: t('bcards.details.copyFailed'), variant: 'destructive' });
    }
  }
  return (
    <Button variant="outline" size="sm" onClick={copy} aria-label={label} data-testid={testId}>
      {copied ? <Check className="h-4 w-4 text-green-600" aria-hidden /> : <Copy className="h-4 w-4" aria-hidden />}
      <span aria-live="polite">{copied ? t('bcards.details.copied') : t('bcards.details.copy')}</span>
    </Button>
  );
}

function DetailLine({ label, value, copyText, testId }: { label: string; value: string; copyText: string; testId: string }) {
  const t = useT();
  return (
    <div className="flex items-center justify-between gap-3 rounded-md border border-slate-200 bg-slate-50 p-3">
      <div className="min-w-0">
        <p className="text-xs text-slate-500">{label}</p>
        <p className="select-all break-all font-mono text-base text-slate-900" dir="ltr" data-testid={testId}>
          {value}
        </p>
      </div>
      <CopyButton text={copyText} label={t('bcards.details.copyLabel', { what: label })} testId={`${testId}-copy`} />
    </div>
  );
}

/** The full number, expiry and CVV for checkout, from a reveal started by the tile's "Show details" button. */
export function BcardDetailsDialog({
  bcard,
  reveal,
  onClose,
}: {
  bcard: Bcard | null;
  reveal: UseMutationResult<CheckoutDetails, Error, string>;
  onClose(): void;
}) {
  const t = useT();
  const d = reveal.data;
  const expiry = d ? `${String(d.expiryMonth).padStart(2, '0')}/${String(d.expiryYear).slice(-2)}` : '';
  return (
    <Dialog
      open={bcard !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      <DialogContent closeLabel={t('common.close')} data-testid="bcard-details-dialog">
        <DialogHeader>
          <DialogTitle>{t('bcards.details.title', { name: bcard?.name ?? '' })}</DialogTitle>
          <DialogDescription>{t('bcards.details.description')}</DialogDescription>
        </DialogHeader>
        {reveal.isPending && (
          <p className="flex items-center gap-2 py-8 text-sm text-slate-600" aria-busy="true">
            <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
            {t('common.loading')}
          </p>
        )}
        {reveal.isError && (
          <p className="py-4 text-sm text-red-600" role="alert">
            {t('bcards.details.failed')} {messageOf(reveal.error)}
          </p>
        )}
        {d && bcard && (
          <div className="space-y-3">
            {d.isDemoCard && (
              <Badge tone="yellow" data-testid="bcard-details-demo">
                {t('bcards.details.demoCard')}
              </Badge>
            )}
            <DetailLine
              label={t('bcards.details.number')}
              value={groupCardNumber(d.cardNumber)}
              copyText={d.cardNumber.replace(/\D/g, '')}
              testId="bcard-details-number"
            />
            <div className="grid grid-cols-2 gap-3">
              <DetailLine label={t('bcards.details.expiry')} value={expiry} copyText={expiry} testId="bcard-details-expiry" />
              <DetailLine label={t('bcards.details.cvv')} value={d.cvv} copyText={d.cvv} testId="bcard-details-cvv" />
            </div>
            <p className="text-sm text-slate-600">
              {t('bcards.details.cardholder')}: <span className="font-medium text-slate-900">{bcard.cardholderName}</span>
            </p>
            <p className="flex items-start gap-2 rounded-md bg-amber-50 p-3 text-xs text-amber-900" data-testid="bcard-details-recorded">
              <ShieldAlert className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
              {t('bcards.details.recorded')}
            </p>
          </div>
        )}
        <div className="mt-4 flex justify-end">
          <Button variant="outline" onClick={onClose}>
            {t('common.close')}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}

/** Confirms a cancellation: the card stops working and its money goes back to the sources. */
export function CancelBcardDialog({
  bcard,
  onClose,
  onMoneyMoved,
}: {
  bcard: Bcard | null;
  onClose(): void;
  onMoneyMoved(): void;
}) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const cancel = useCancelBcard();
  return (
    <Dialog
      open={bcard !== null}
      onOpenChange={(open) => {
        if (!open) {
          cancel.reset();
          onClose();
        }
      }}
    >
      <DialogContent closeLabel={t('common.close')} data-testid="bcard-cancel-dialog">
        <DialogHeader>
          <DialogTitle>{t('bcards.cancel.title')}</DialogTitle>
          <DialogDescription>
            {t('bcards.cancel.body', { name: bcard?.name ?? '', amount: iso(formatMoney(bcard?.totalCharged ?? '0')) })}
          </DialogDescription>
        </DialogHeader>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={onClose}>
            {t('bcards.cancel.keep')}
          </Button>
          <Button
            variant="destructive"
            disabled={!bcard || cancel.isPending}
            data-testid="bcard-cancel-confirm"
            onClick={() => {
              if (!bcard) return;
              cancel.mutate(bcard.id, {
                onSuccess: () => {
                  onMoneyMoved();
                  toast({ title: t('bcards.toast.canceled'), description: t('bcards.toast.canceledBody') });
                  onClose();
                },
                onError: (error) => {
                  onMoneyMoved();
                  toast({ title: t('bcards.toast.cancelFailed'), description: messageOf(error), variant: 'destructive' });
                },
              });
            }}
          >
            {cancel.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {t('bcards.cancel.confirm')}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
