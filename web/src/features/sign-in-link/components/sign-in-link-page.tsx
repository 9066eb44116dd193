import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Languages } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage, type MessageKey, type Translate } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { authErrorText } from '../../../lib/auth-errors';
import { useDocumentTitle } from '../../../lib/document-title';
import { USER_QUERY_KEY } from '../../auth/api';
import { useAuth } from '../../auth/auth-context';
import { signInWithLinkRequest } from '../api';

/** A link that can no longer be used here: the person must sign in again (or open it where it was asked). */
const LINK_TEXT: Record<string, MessageKey> = {
  sign_in_link_invalid: 'signInLink.error.invalid',
  sign_in_link_expired: 'signInLink.error.expired',
  sign_in_link_used: 'signInLink.error.used',
  sign_in_link_other_network: 'signInLink.error.otherNetwork',
};

function errorText(t: Translate, error: unknown): string {
  const key = error instanceof ApiError && error.code ? LINK_TEXT[error.code] : undefined;
  if (key) return t(key);
  if (error instanceof ApiError && error.code === 'invalid_two_factor_code') return t('signInLink.error.code');
  return authErrorText(t, error) ?? t('signInLink.error.failed');
}

/**
 * The token from the link, taken out of the address bar at once (so out of the history and any Referer) and kept in
 * memory for this tab, as the reset page does.
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

/**
 * /sign-in-link?token=…: the one-time link mailed when the right password came from a new device past the account's
 * cap of failed sign-ins. Nothing happens until the button is pressed (a mail scanner opening the link uses nothing
 * up); with two-factor on, the server asks for the code and the field appears. Signed in, the person lands on the
 * dashboard.
 */
export function SignInLinkPage() {
  const { t, lang, setLanguage } = useLanguage();
  useDocumentTitle(t('signInLink.page.meta.title'));
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [token] = useState(readToken);
  const [needsCode, setNeedsCode] = useState(false);
  const [totpCode, setTotpCode] = useState('');
  const mutation = useMutation({
    mutationFn: signInWithLinkRequest,
    onSuccess: async (user) => {
      // A session probe sent before the cookie existed (the page had just loaded) must not answer "signed out" after.
      await qc.cancelQueries({ queryKey: USER_QUERY_KEY });
      qc.setQueryData(USER_QUERY_KEY, user);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.code === 'two_factor_required') setNeedsCode(true);
    },
  });

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!token) return;
    mutation.mutate({ token, ...(needsCode && /^\d{6}$/.test(totpCode) ? { totpCode } : {}) });
  }

  // To the dashboard once the session state has the user: `/` before that renders the landing (which sends an
  // Arabic reader on to /ar).
  const { user } = useAuth();
  useEffect(() => {
    if (!mutation.isSuccess || !user) return;
    toast({ title: t('signInLink.page.done') });
    navigate('/');
  }, [mutation.isSuccess, user, navigate, t]);

  const failed = mutation.isError && !(mutation.error instanceof ApiError && mutation.error.code === 'two_factor_required');
  const dead = failed && mutation.error instanceof ApiError && !!mutation.error.code && mutation.error.code in LINK_TEXT;
  const signInAgain = (
    <Link href="/auth" className={buttonClasses('outline', 'md', 'w-full')}>
      {t('signInLink.page.signInAgain')}
    </Link>
  );

  let content;
  if (!token) {
    content = (
      <>
        <p role="alert" className="rounded-md bg-amber-50 p-3 text-sm text-amber-800">
          {token === '' ? t('signInLink.error.invalid') : t('signInLink.page.noToken')}
        </p>
        {signInAgain}
      </>
    );
  } else {
    content = (
      <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label={t('signInLink.page.title')}>
        <p className="text-sm text-slate-600">{t('signInLink.page.body')}</p>
        {failed && (
          <p role="alert" data-testid="sign-in-link-error" className="rounded-md bg-red-50 p-3 text-sm text-red-700">
            {errorText(t, mutation.error)}
          </p>
        )}
        {needsCode && !dead && (
          <div className="space-y-2">
            <Label htmlFor="link-totp">{t('auth.totp')}</Label>
            <p className="text-xs text-slate-500">{t('auth.totp.help')}</p>
            <Input
              id="link-totp"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              autoFocus
              placeholder={t('auth.totp.placeholder')}
              value={totpCode}
              onChange={(e) => setTotpCode(e.target.value.replace(/\D/g, ''))}
            />
          </div>
        )}
        {dead ? (
          signInAgain
        ) : (
          <Button type="submit" className="w-full" data-testid="sign-in-link-submit" disabled={mutation.isPending || (needsCode && !/^\d{6}$/.test(totpCode))}>
            {mutation.isPending ? t('signInLink.page.pending') : t('signInLink.page.submit')}
          </Button>
        )}
      </form>
    );
  }

  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-50 px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-8 flex items-center justify-between gap-4">
          <Link href="/" className="text-2xl font-bold text-brand-600">
            bpay
          </Link>
          <button
            type="button"
            onClick={() => setLanguage(lang === 'ar' ? 'en' : 'ar')}
            className="inline-flex min-h-10 items-center gap-2 rounded-md px-3 text-sm text-slate-700 hover:bg-slate-100"
          >
            <Languages className="h-4 w-4" aria-hidden />
            <span lang={lang === 'ar' ? 'en' : 'ar'}>{t('signInLink.page.language')}</span>
          </button>
        </div>
        <Card>
          <CardHeader>
            <CardTitle level={1}>{t('signInLink.page.title')}</CardTitle>
          </CardHeader>
          <CardContent className="space-y-4">{content}</CardContent>
        </Card>
      </div>
    </main>
  );
}
