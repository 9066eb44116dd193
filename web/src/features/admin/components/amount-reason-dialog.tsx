import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DialogForm, FormDialog } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { centsToDecimal, parseCents } from '../../../lib/money';

/**
 * An amount (at most `max`) and a reason of 3 to 500 characters, sent by `send`: the Waive dialog, and the Settle
 * dialog of what bpay owes (payables-section.tsx). Test ids: admin-<kind>-dialog, -amount, -reason, -submit.
 */
export function AmountReasonDialog(p: {
  kind: 'waive' | 'settle';
  max: string;
  title: string;
  description: string;
  reasonHint: string;
  tooMuch: string;
  submitLabel: string;
  failed: string;
  listKey: readonly unknown[];
  send(body: { amount: string; reason: string }): Promise<{ title: string; description: string }>;
  onClose(): void;
}) {
  const { t } = useLanguage();
  const qc = useQueryClient();
  const [amount, setAmount] = useState(p.max);
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ amount?: string; reason?: string }>({});
  const max = parseCents(p.max) ?? 0;
  const mutation = useMutation({
    mutationFn: p.send,
    onSuccess: (done) => {
      void qc.invalidateQueries({ queryKey: p.listKey });
      toast(done);
      p.onClose();
    },
    onError: (error) => {
      const message = messageOf(error) ?? p.failed;
      const param = error instanceof ApiError ? error.param : undefined;
      if (param === 'amount' || param === 'reason') setErrors({ [param]: message });
      toast({ title: p.failed, description: message, variant: 'destructive' });
    },
  });
  function onSubmit() {
    if (mutation.isPending) return;
    const cents = parseCents(amount);
    const found: { amount?: string; reason?: string } = {};
    if (cents === null || cents <= 0) found.amount = t('admin.receivables.error.amount');
    else if (cents > max) found.amount = p.tooMuch;
    const trimmed = reason.trim();
    if (trimmed.length < 3 || trimmed.length > 500) found.reason = t('admin.receivables.error.reason');
    setErrors(found);
    if (found.amount || found.reason) return;
    mutation.mutate({ amount: centsToDecimal(cents!), reason: trimmed });
  }
  const id = `admin-${p.kind}`;
  return (
    <FormDialog
      open
      onOpenChange={(open) => !open && !mutation.isPending && p.onClose()}
      busy={mutation.isPending}
      testId={`${id}-dialog`}
      title={p.title}
      description={p.description}
    >
      <DialogForm
        onSubmit={onSubmit}
        submit={{ label: p.submitLabel, pending: mutation.isPending, testId: `${id}-submit` }}
        cancel={{ label: t('admin.receivables.cancel'), onClick: p.onClose, disabled: mutation.isPending }}
      >
        <FormField id={`${p.kind}-amount`} label={t('admin.receivables.dialog.amount')} error={errors.amount}>
          {(control) => (
            <Input {...control} dir="ltr" inputMode="decimal" data-testid={`${id}-amount`} value={amount} onChange={(e) => setAmount(e.target.value)} />
          )}
        </FormField>
        <FormField id={`${p.kind}-reason`} label={t('admin.receivables.dialog.reason')} description={p.reasonHint} error={errors.reason}>
          {(control) => (
            <textarea
              {...control}
              data-testid={`${id}-reason`}
              maxLength={500}
              rows={3}
              className="flex w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm aria-invalid:border-red-500"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
          )}
        </FormField>
      </DialogForm>
    </FormDialog>
  );
}
