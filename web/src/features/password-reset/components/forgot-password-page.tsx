import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { useT, type MessageKey } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { useDocumentTitle } from '../../../lib/document-title';
import { isEmail } from '../../../lib/validation';
import { requestResetLink } from '../api';
import { ResetLayout } from './reset-layout';

/** /forgot-password: asks for a reset link. The answer is the same whether or not an account has the address. */
export function ForgotPasswordPage() {
  const t = useT();
  useDocumentTitle(t('reset.forgot.meta.title'));
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<MessageKey | null>(null);
  const mutation = useMutation({ mutationFn: requestResetLink });

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const error: MessageKey | null = !email.trim() ? 'auth.error.emailRequired' : !isEmail(email) ? 'auth.error.emailInvalid' : null;
    setFieldError(error);
    if (error) return;
    mutation.mutate({ email: email.trim() });
  }

  const failure = (() => {
    const e = mutation.error;
    if (!e) return null;
    if (e instanceof ApiError && e.code === 'password_reset_rate_limited') {
      // The server's Retry-After is in the message; the minutes are read back from it for the translated text.
      const m = /(\d+) minute/.exec(e.serverMessage ?? '');
      return m ? t('reset.forgot.limited', { minutes: m[1]! }) : (e.serverMessage ?? e.message);
    }
    return messageOf(e);
  })();

  return (
    <ResetLayout title={t('reset.forgot.title')} description={t('reset.forgot.subtitle')}>
      {mutation.isSuccess ? (
        <p role="status" className="rounded-md bg-emerald-50 p-3 text-sm text-emerald-800">
          {t('reset.forgot.sent')}
        </p>
      ) : (
        <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label={t('reset.forgot.title')}>
          <div className="space-y-2">
            <Label htmlFor="forgot-email">{t('auth.email')}</Label>
            <Input
              id="forgot-email"
              type="email"
              autoComplete="email"
              inputMode="email"
              placeholder={t('auth.email.placeholder')}
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              aria-invalid={!!fieldError}
              aria-describedby={fieldError ? 'forgot-email-error' : undefined}
            />
            {fieldError && (
              <p id="forgot-email-error" role="alert" className="text-xs text-red-600">
                {t(fieldError)}
              </p>
            )}
          </div>
          {failure && (
            <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-700">
              <span className="font-medium">{t('reset.forgot.failed')}: </span>
              {failure}
            </p>
          )}
          <Button type="submit" className="w-full" disabled={mutation.isPending}>
            {mutation.isPending ? t('reset.forgot.pending') : t('reset.forgot.submit')}
          </Button>
        </form>
      )}
    </ResetLayout>
  );
}
