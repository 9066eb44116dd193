import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useT, type MessageKey, type Translate } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { weakPasswordText } from '../../../lib/auth-errors';
import { useDocumentTitle } from '../../../lib/document-title';
import { checkResetToken, confirmReset } from '../api';
import { ResetLayout } from './reset-layout';

const TOKEN_TEXT: Record<string, MessageKey> = {
  reset_token_invalid: 'reset.token.invalid',
  reset_token_expired: 'reset.token.expired',
  reset_token_used: 'reset.token.used',
};

function tokenErrorText(t: Translate, error: unknown): string | undefined {
  const key = error instanceof ApiError && error.code ? TOKEN_TEXT[error.code] : undefined;
  return key ? t(key) : undefined;
}

/**
 * The token from the link. It is taken out of the address bar at once (and so out of the history and any Referer) and
 * kept in memory for this tab: a render that React discards (strict mode, a suspended chunk) must not lose it.
 */
let capturedToken: string | null = null;
function readToken(): string | null {
  if (typeof window === 'undefined') return null;
  const fromUrl = new URLSearchParams(window.location.search).get('token');
  if (fromUrl !== null) {
    capturedToken = fromUrl;
    window.history.replaceState(window.history.state, '', window.location.pathname);
  }
  if (capturedToken === null) return null;
  return /^[A-Za-z0-9_-]{43}$/.test(capturedToken) ? capturedToken : '';
}

/** /reset-password?token=…: checks the link, then sets a new password with it and sends the person to sign in. */
export function ResetPasswordPage() {
  const t = useT();
  useDocumentTitle(t('reset.page.meta.title'));
  const [, navigate] = useLocation();
  const [token] = useState(readToken);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [fieldError, setFieldError] = useState<{ field: 'password' | 'confirm'; text: string } | null>(null);

  const check = useQuery({
    queryKey: ['password-reset-check', token],
    queryFn: () => checkResetToken({ token: token! }),
    enabled: !!token,
    retry: false,
    staleTime: Infinity,
  });
  const mutation = useMutation({
    mutationFn: confirmReset,
    onSuccess: () => {
      toast({ title: t('reset.done.toast'), description: t('reset.done.toastBody') });
      navigate('/auth');
    },
    onError: (error) => {
      const weak = weakPasswordText(t, error);
      if (weak) setFieldError({ field: 'password', text: weak });
    },
  });

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!password) return setFieldError({ field: 'password', text: t('auth.error.passwordRequired') });
    if (password.length < 6) return setFieldError({ field: 'password', text: t('auth.error.passwordShort') });
    if (password !== confirm) return setFieldError({ field: 'confirm', text: t('reset.page.mismatch') });
    setFieldError(null);
    mutation.mutate({ token: token!, password });
  }

  const requestNew = (
    <Link href="/forgot-password" className={buttonClasses('outline', 'md', 'w-full')}>
      {t('reset.page.requestNew')}
    </Link>
  );

  if (!token) {
    return (
      <ResetLayout title={t('reset.page.title')}>
        <p role="alert" className="rounded-md bg-amber-50 p-3 text-sm text-amber-800">
          {token === '' ? t('reset.token.invalid') : t('reset.page.noToken')}
        </p>
        {requestNew}
      </ResetLayout>
    );
  }
  if (check.isPending) {
    return (
      <ResetLayout title={t('reset.page.title')}>
        <p role="status" aria-busy="true" className="text-sm text-slate-600">
          {t('reset.page.checking')}
        </p>
      </ResetLayout>
    );
  }
  const linkError = tokenErrorText(t, mutation.error) ?? (check.isError ? (tokenErrorText(t, check.error) ?? messageOf(check.error)) : undefined);
  if (linkError) {
    return (
      <ResetLayout title={t('reset.page.title')}>
        <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-700">
          {linkError}
        </p>
        {requestNew}
      </ResetLayout>
    );
  }
  const otherFailure = mutation.isError && !weakPasswordText(t, mutation.error) ? messageOf(mutation.error) : undefined;

  return (
    <ResetLayout title={t('reset.page.title')} description={check.data ? t('reset.page.for', { email: check.data.email }) : undefined}>
      <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label={t('reset.page.title')}>
        <div className="space-y-2">
          <Label htmlFor="reset-password">{t('reset.page.newPassword')}</Label>
          <Input
            id="reset-password"
            type="password"
            autoComplete="new-password"
            placeholder={t('auth.password.createPlaceholder')}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-invalid={fieldError?.field === 'password'}
            aria-describedby={fieldError?.field === 'password' ? 'reset-password-error' : undefined}
          />
          {fieldError?.field === 'password' && (
            <p id="reset-password-error" role="alert" className="text-xs text-red-600">
              {fieldError.text}
            </p>
          )}
        </div>
        <div className="space-y-2">
          <Label htmlFor="reset-confirm">{t('reset.page.confirmPassword')}</Label>
          <Input
            id="reset-confirm"
            type="password"
            autoComplete="new-password"
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
            aria-invalid={fieldError?.field === 'confirm'}
            aria-describedby={fieldError?.field === 'confirm' ? 'reset-confirm-error' : undefined}
          />
          {fieldError?.field === 'confirm' && (
            <p id="reset-confirm-error" role="alert" className="text-xs text-red-600">
              {fieldError.text}
            </p>
          )}
        </div>
        {otherFailure && (
          <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-700">
            <span className="font-medium">{t('reset.failed')}: </span>
            {otherFailure}
          </p>
        )}
        <Button type="submit" className="w-full" disabled={mutation.isPending}>
          {mutation.isPending ? t('reset.page.pending') : t('reset.page.submit')}
        </Button>
      </form>
    </ResetLayout>
  );
}
