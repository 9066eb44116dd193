import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { DialogForm, FormDialog } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { useIdempotencyKeys } from '../../../lib/idempotency';
import { centsToDecimal, parseCents } from '../../../lib/money';
import { BANK_STANDING_QUERY_KEY, FUNDING_SOURCES_QUERY_KEY, fundingSourcesQuery } from '../api';
import '../owed-texts';
import { RECEIVABLES_QUERY_KEY, receivablesQuery, repayRequest, type Receivables, type RepayBody } from '../owed-api';

/**
 * Repay what is owed: one of the user's active cards (never a bank account) and the amount, prefilled with what can
 * be repaid now and editable for a part. Checked as typed (above zero, at most that); the server's refusal (a decline
 * with why, more than can be repaid) is shown in the dialog and in a toast. One Idempotency-Key per attempt.
 */
export function RepayDialog({ receivables, onClose }: { receivables: Receivables; onClose(): void }) {
  const { t, lang } = useLanguage();
  const qc = useQueryClient();
  const keys = useIdempotencyKeys();
  const sources = useQuery(fundingSourcesQuery());
  const cards = (sources.data ?? []).filter((s) => s.type !== 'bank_account' && s.isActive);
  const [sourceId, setSourceId] = useState<string | null>(null);
  const chosen = sourceId ?? cards[0]?.id ?? null;
  const [amount, setAmount] = useState(receivables.repayable);
  const [amountError, setAmountError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const errorId = useId();
  const maxCents = parseCents(receivables.repayable) ?? 0;

  const repay = useMutation({
    mutationFn: ({ body, key }: { body: RepayBody; key: string }) => repayRequest(body, key),
    onSuccess: (answer) => {
      // The answer's figures at once; its reasons are in the account's language, so the screen's are read again.
      qc.setQueryData(receivablesQuery(lang).queryKey, answer.receivables);
      void qc.invalidateQueries({ queryKey: RECEIVABLES_QUERY_KEY });
      void qc.invalidateQueries({ queryKey: BANK_STANDING_QUERY_KEY });
      void qc.invalidateQueries({ queryKey: FUNDING_SOURCES_QUERY_KEY });
      toast({
        title: t('receivables.toast.repaid', { amount: answer.payment.amount }),
        description: answer.receivables.restricted ? t('receivables.toast.repaidPart', { owed: answer.receivables.owed }) : t('receivables.toast.repaidAll'),
      });
      onClose();
    },
    onError: (err) => {
      const message = messageOf(err) ?? t('receivables.toast.failed');
      if (err instanceof ApiError && err.param === 'amount') setAmountError(message);
      else setError(message);
      toast({ title: t('receivables.toast.failed'), description: message, variant: 'destructive' });
      void qc.invalidateQueries({ queryKey: RECEIVABLES_QUERY_KEY });
    },
  });

  function onSubmit() {
    if (repay.isPending || !chosen) return;
    const cents = parseCents(amount);
    setError(null);
    if (cents === null || cents <= 0) return setAmountError(t('receivables.error.amount'));
    if (cents > maxCents) return setAmountError(t('receivables.error.tooMuch', { repayable: receivables.repayable }));
    setAmountError(null);
    const body: RepayBody = { fundingSourceId: chosen, amount: centsToDecimal(cents) };
    const attempt = keys.begin(body);
    repay.mutate({ body, key: attempt.key }, { onSettled: (_d, e) => keys.settle(attempt, e ?? undefined) });
  }

  const shown = parseCents(amount);
  return (
    <FormDialog
      open
      onOpenChange={(open) => !open && !repay.isPending && onClose()}
      busy={repay.isPending}
      testId="repay-dialog"
      title={t('receivables.dialog.title')}
      description={t('receivables.dialog.description', { repayable: receivables.repayable })}
    >
      <DialogForm
        onSubmit={onSubmit}
        submit={{
          label: t('receivables.dialog.submit', { amount: shown !== null && shown > 0 ? centsToDecimal(shown) : '0.00' }),
          pendingLabel: t('receivables.dialog.pending'),
          pending: repay.isPending,
          disabled: !chosen,
          testId: 'repay-submit',
        }}
        cancel={{ label: t('common.cancel'), onClick: onClose, disabled: repay.isPending }}
      >
        {sources.isSuccess && cards.length === 0 ? (
          <p className="text-sm text-amber-800" role="alert">
            {t('receivables.dialog.noCards')}
          </p>
        ) : (
          <fieldset className="space-y-2" aria-describedby={error ? errorId : undefined}>
            <legend className="mb-2 text-sm font-medium text-slate-900">{t('receivables.dialog.card')}</legend>
            {cards.map((s) => (
              <label
                key={s.id}
                className="flex cursor-pointer items-center gap-3 rounded-lg border border-slate-200 p-3 text-sm has-[:checked]:border-brand-600 has-[:checked]:bg-brand-50"
              >
                <input
                  type="radio"
                  name="repay-source"
                  value={s.id}
                  checked={chosen === s.id}
                  disabled={repay.isPending}
                  onChange={() => setSourceId(s.id)}
                  className="h-4 w-4 accent-brand-600"
                  data-testid={`repay-source-${s.last4}`}
                />
                <span className="min-w-0 flex-1 truncate">{`${s.name} (•••• ${s.last4})`}</span>
              </label>
            ))}
          </fieldset>
        )}
        <FormField
          id="repay-amount"
          label={t('receivables.dialog.amount')}
          description={t('receivables.dialog.amountHint', { repayable: receivables.repayable })}
          error={amountError}
          errorTestId="repay-amount-error"
        >
          {(control) => (
            <Input
              {...control}
              data-testid="repay-amount"
              inputMode="decimal"
              dir="ltr"
              value={amount}
              onChange={(e) => {
                setAmount(e.target.value.replace(/[^\d.]/g, '').slice(0, 12));
                setAmountError(null);
              }}
            />
          )}
        </FormField>
        {error && (
          <p id={errorId} className="rounded-lg bg-red-50 p-3 text-sm text-red-800" role="alert" data-testid="repay-error">
            {error}
          </p>
        )}
      </DialogForm>
    </FormDialog>
  );
}
