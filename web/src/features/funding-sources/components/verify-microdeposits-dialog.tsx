import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { DialogForm, FormDialog } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { fundingSourcesQuery, verifyMicrodepositsRequest, type FundingSource } from '../api';
import { microdepositAmount } from '../bank-format';

/**
 * Verify a bank account: the two micro-deposit amounts as they appear on the statement. A wrong answer shows the
 * server's message (with the tries left) under the fields; the last wrong one fails the verification.
 */
export function VerifyMicrodepositsDialog({
  source,
  open,
  onOpenChange,
}: {
  source: FundingSource;
  open: boolean;
  onOpenChange(open: boolean): void;
}) {
  const t = useT();
  const qc = useQueryClient();
  const [amounts, setAmounts] = useState<[string, string]>(['', '']);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    setAmounts(['', '']);
    setError(null);
  }, [open]);

  const verify = useMutation({
    mutationFn: (a: [string, string]) => verifyMicrodepositsRequest(source.id, a),
    onSuccess: (updated) => {
      qc.setQueryData(fundingSourcesQuery().queryKey, (list) => list?.map((s) => (s.id === updated.id ? updated : s)));
      void qc.invalidateQueries({ queryKey: fundingSourcesQuery().queryKey });
      toast({ title: t('fundingSources.bank.toast.verified'), description: t('fundingSources.bank.toast.verifiedBody', { last4: source.last4 }) });
      onOpenChange(false);
    },
    onError: (e) => {
      const message = e instanceof ApiError ? (e.serverMessage ?? e.message) : t('fundingSources.toast.addFailedFallback');
      setError(message);
      void qc.invalidateQueries({ queryKey: fundingSourcesQuery().queryKey });
      if (e instanceof ApiError && e.code === 'bank_verification_failed') {
        toast({ title: t('fundingSources.bank.toast.verifyFailed'), description: message, variant: 'destructive' });
      }
    },
  });

  function onSubmit() {
    if (verify.isPending) return;
    const a = microdepositAmount(amounts[0]);
    const b = microdepositAmount(amounts[1]);
    if (!a || !b) {
      setError(t('fundingSources.bank.verify.errorFormat'));
      document.getElementById(a ? 'verify-amount-2' : 'verify-amount-1')?.focus();
      return;
    }
    setError(null);
    verify.mutate([a, b]);
  }

  const left = source.bankAccount?.verificationAttemptsLeft ?? 0;
  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      testId="verify-microdeposits-dialog"
      title={t('fundingSources.bank.verify.title')}
      description={t('fundingSources.bank.verify.description', { last4: source.last4 })}
    >
      <DialogForm
        onSubmit={onSubmit}
        submit={{ label: t('fundingSources.bank.verify.submit'), pending: verify.isPending, testId: 'verify-submit' }}
        cancel={{ label: t('common.cancel'), onClick: () => onOpenChange(false) }}
      >
        <div className="grid grid-cols-2 gap-4">
          {[0, 1].map((i) => (
            // The two amounts share one hint and one error (the server judges them together).
            <FormField key={i} id={`verify-amount-${i + 1}`} label={t(i === 0 ? 'fundingSources.bank.verify.first' : 'fundingSources.bank.verify.second')}>
              {({ id }) => (
                <Input
                  id={id}
                  data-testid={`microdeposit-${i + 1}`}
                  inputMode="decimal"
                  dir="ltr"
                  placeholder="0.32"
                  value={amounts[i]}
                  aria-invalid={error ? true : undefined}
                  aria-describedby={error ? 'verify-error' : 'verify-hint'}
                  onChange={(e) => {
                    const next: [string, string] = [...amounts];
                    next[i] = e.target.value.replace(/[^\d.$]/g, '').slice(0, 5);
                    setAmounts(next);
                  }}
                />
              )}
            </FormField>
          ))}
        </div>
        <p id="verify-hint" className="text-xs text-slate-500">
          {t('fundingSources.bank.verify.hint', { n: left })}
        </p>
        {error && (
          <p id="verify-error" role="alert" className="text-sm text-red-600" data-testid="verify-error">
            {error}
          </p>
        )}
      </DialogForm>
    </FormDialog>
  );
}
