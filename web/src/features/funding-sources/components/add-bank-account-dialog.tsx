import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Landmark } from 'lucide-react';
import { useEffect, useState } from 'react';
import { DialogForm, FormDialog } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { toast } from '../../../components/ui/use-toast';
import { useT, type MessageKey } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { useIdempotencyKeys } from '../../../lib/idempotency';
import { useAuth } from '../../auth/auth-context';
import { createBankAccountRequest, fundingSourcesQuery, type CreateBankAccountBody, type FundingSource } from '../api';
import { onlyDigits, validateBankForm, type BankField, type BankFieldError, type BankForm } from '../bank-format';

const errorKey: Record<BankFieldError, MessageKey> = {
  routingLength: 'fundingSources.bank.error.routingLength',
  routingChecksum: 'fundingSources.bank.error.routingChecksum',
  accountLength: 'fundingSources.bank.error.accountLength',
  nameRequired: 'fundingSources.bank.error.name',
  splitRange: 'fundingSources.form.error.splitRange',
};

const FIELDS: BankField[] = ['routingNumber', 'accountNumber', 'name', 'splitPercentage'];

/**
 * Add Bank Account: routing number (ABA checksum checked as typed), account number (4-17 digits), checking or
 * savings, holder name (the account's name until the ID is verified), default split. The server sends two
 * micro-deposits; the new tile then offers Verify.
 */
export function AddBankAccountDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const t = useT();
  const qc = useQueryClient();
  const keys = useIdempotencyKeys();
  const { user } = useAuth();
  const accountName = [user?.firstName, user?.lastName].map((p) => p?.trim() ?? '').filter(Boolean).join(' ');
  const empty = (): BankForm => ({ routingNumber: '', accountNumber: '', accountType: 'checking', name: accountName, splitPercentage: '' });
  const [form, setForm] = useState<BankForm>(empty);
  const [errors, setErrors] = useState<Partial<Record<BankField, string>>>({});

  useEffect(() => {
    if (!open) return;
    setForm(empty());
    setErrors({});
    keys.reset();
  }, [open]);

  const create = useMutation({
    mutationFn: ({ body, key }: { body: CreateBankAccountBody; key: string }) => createBankAccountRequest(body, key),
    onSuccess: (source: FundingSource) => {
      qc.setQueryData(fundingSourcesQuery().queryKey, (list) => (list ? [...list, source] : list));
      void qc.invalidateQueries({ queryKey: fundingSourcesQuery().queryKey });
      toast({ title: t('fundingSources.bank.toast.added'), description: t('fundingSources.bank.toast.addedBody', { last4: source.last4 }) });
      onOpenChange(false);
    },
    onError: (error) => {
      const message = error instanceof ApiError ? error.serverMessage : undefined;
      toast({ title: t('fundingSources.bank.toast.addFailed'), description: message ?? t('fundingSources.toast.addFailedFallback'), variant: 'destructive' });
      const param = error instanceof ApiError ? error.param : undefined;
      const field = param === 'defaultSplitPercentage' ? 'splitPercentage' : param;
      if (message && typeof field === 'string' && (FIELDS as string[]).includes(field)) setErrors({ [field]: message });
    },
  });

  function update(field: keyof BankForm, value: string) {
    setForm((f) => ({
      ...f,
      [field]:
        field === 'routingNumber'
          ? onlyDigits(value, 9)
          : field === 'accountNumber'
            ? onlyDigits(value, 17)
            : field === 'splitPercentage'
              ? value.replace(/[^\d.]/g, '').slice(0, 6)
              : value,
    }));
    setErrors((e) => ({ ...e, [field]: undefined }));
  }

  function onSubmit() {
    if (create.isPending) return;
    const found = validateBankForm(form);
    const texts: Partial<Record<BankField, string>> = {};
    for (const f of FIELDS) if (found[f]) texts[f] = t(errorKey[found[f]!]);
    setErrors(texts);
    const first = FIELDS.find((f) => texts[f]);
    if (first) {
      document.getElementById(`add-bank-${first}`)?.focus();
      return;
    }
    const body: CreateBankAccountBody = {
      routingNumber: form.routingNumber,
      accountNumber: form.accountNumber,
      accountType: form.accountType,
      name: form.name.trim(),
      defaultSplitPercentage: Number(form.splitPercentage),
    };
    const attempt = keys.begin(body);
    create.mutate({ body, key: attempt.key }, { onSettled: (_d, error) => keys.settle(attempt, error ?? undefined) });
  }

  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      testId="add-bank-account-dialog"
      title={t('fundingSources.bank.add.title')}
      description={t('fundingSources.bank.add.description')}
    >
      <DialogForm
        onSubmit={onSubmit}
        submit={{ label: t('fundingSources.bank.form.submit'), pending: create.isPending, testId: 'add-bank-submit' }}
        cancel={{ label: t('common.cancel'), onClick: () => onOpenChange(false) }}
      >
        <div className="grid gap-4 sm:grid-cols-2">
          <FormField id="add-bank-routingNumber" label={t('fundingSources.bank.form.routing')} error={errors.routingNumber}>
            {(control) => (
              <Input
                {...control}
                data-testid="bank-routing"
                inputMode="numeric"
                dir="ltr"
                placeholder="110000000"
                value={form.routingNumber}
                onChange={(e) => update('routingNumber', e.target.value)}
              />
            )}
          </FormField>
          <FormField id="add-bank-accountNumber" label={t('fundingSources.bank.form.account')} error={errors.accountNumber}>
            {(control) => (
              <Input
                {...control}
                data-testid="bank-account"
                inputMode="numeric"
                autoComplete="off"
                dir="ltr"
                placeholder="000123456789"
                value={form.accountNumber}
                onChange={(e) => update('accountNumber', e.target.value)}
              />
            )}
          </FormField>
        </div>
        <fieldset className="space-y-1.5">
          <legend className="text-sm font-medium text-slate-900">{t('fundingSources.bank.form.type')}</legend>
          <div className="flex gap-4">
            {(['checking', 'savings'] as const).map((type) => (
              <label key={type} className="flex items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="add-bank-type"
                  value={type}
                  data-testid={`bank-type-${type}`}
                  checked={form.accountType === type}
                  onChange={() => update('accountType', type)}
                  className="h-4 w-4 accent-brand-600"
                />
                {t(type === 'checking' ? 'fundingSources.bank.type.checking' : 'fundingSources.bank.type.savings')}
              </label>
            ))}
          </div>
        </fieldset>
        <FormField id="add-bank-name" label={t('fundingSources.bank.form.holder')} description={t('fundingSources.form.nameHint')} error={errors.name}>
          {(control) => <Input {...control} data-testid="bank-holder" autoComplete="name" value={form.name} onChange={(e) => update('name', e.target.value)} />}
        </FormField>
        <FormField id="add-bank-splitPercentage" label={t('fundingSources.form.split')} error={errors.splitPercentage}>
          {(control) => (
            <Input
              {...control}
              data-testid="bank-split"
              inputMode="decimal"
              dir="ltr"
              placeholder="50"
              value={form.splitPercentage}
              onChange={(e) => update('splitPercentage', e.target.value)}
            />
          )}
        </FormField>
        <p className="flex items-start gap-2 rounded-lg bg-slate-50 p-3 text-xs text-slate-600">
          <Landmark className="mt-0.5 h-4 w-4 shrink-0 text-slate-500" aria-hidden />
          {t('fundingSources.bank.form.note')}
        </p>
      </DialogForm>
    </FormDialog>
  );
}
