import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { DialogForm, FormDialog } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { authErrorText, weakPasswordText } from '../../../lib/auth-errors';
import { USER_QUERY_KEY, type User } from '../../auth/api';
import { changePasswordRequest } from '../api';

type Field = 'current' | 'next' | 'confirm';

function PasswordField({
  id,
  label,
  value,
  onChange,
  error,
  autoComplete,
  placeholder,
}: {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  error?: string;
  autoComplete: 'current-password' | 'new-password';
  placeholder?: string;
}) {
  return (
    <FormField id={id} label={label} error={error} className="space-y-2">
      {(control) => (
        <Input
          {...control}
          type="password"
          autoComplete={autoComplete}
          maxLength={256}
          placeholder={placeholder}
          data-testid={id}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </FormField>
  );
}

/**
 * Changing the password: the current one, then a new one twice. The server checks the new one's strength and says
 * why it is weak (shown in the reader's language); the other devices are signed out.
 */
export function ChangePasswordDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const t = useT();
  const qc = useQueryClient();
  const [values, setValues] = useState<Record<Field, string>>({ current: '', next: '', confirm: '' });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});

  const change = useMutation({
    mutationFn: changePasswordRequest,
    onSuccess: (user: User) => {
      qc.setQueryData(USER_QUERY_KEY, user);
      toast({ title: t('settings.password.changedToast'), description: t('settings.password.changedToastBody') });
      close(false);
    },
    onError: (error) => {
      const weak = weakPasswordText(t, error);
      if (weak) return setErrors({ next: weak });
      // Wrong or missing current password, or too many tries: said under the current password.
      setErrors({ current: authErrorText(t, error) ?? t('settings.2fa.failed') });
    },
  });

  function close(next: boolean) {
    if (!next) {
      setValues({ current: '', next: '', confirm: '' });
      setErrors({});
      change.reset();
    }
    onOpenChange(next);
  }

  const set = (field: Field) => (value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined }));
  };

  function onSubmit() {
    const next: Partial<Record<Field, string>> = {};
    if (!values.current) next.current = t('settings.currentPasswordRequired');
    if (values.next.length < 6) next.next = t('auth.error.passwordShort');
    else if (values.confirm !== values.next) next.confirm = t('settings.password.mismatch');
    setErrors(next);
    if (Object.keys(next).length) return;
    change.mutate({ password: values.next, currentPassword: values.current });
  }

  return (
    <FormDialog
      open={open}
      onOpenChange={close}
      testId="password-dialog"
      closeLabel={t('settings.close')}
      title={t('settings.password.dialogTitle')}
      description={t('settings.password.dialogDescription')}
    >
      <DialogForm
        onSubmit={onSubmit}
        submit={{
          label: t('settings.password.save'),
          pendingLabel: t('settings.password.saving'),
          pending: change.isPending,
          testId: 'password-save',
        }}
        cancel={{ label: t('settings.cancel'), onClick: () => close(false) }}
      >
        <PasswordField
          id="password-current"
          label={t('settings.password.current')}
          value={values.current}
          onChange={set('current')}
          error={errors.current}
          autoComplete="current-password"
        />
        <PasswordField
          id="password-new"
          label={t('settings.password.new')}
          value={values.next}
          onChange={set('next')}
          error={errors.next}
          autoComplete="new-password"
          placeholder={t('auth.password.createPlaceholder')}
        />
        <PasswordField
          id="password-confirm"
          label={t('settings.password.confirm')}
          value={values.confirm}
          onChange={set('confirm')}
          error={errors.confirm}
          autoComplete="new-password"
        />
      </DialogForm>
    </FormDialog>
  );
}
