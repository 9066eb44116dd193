import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Languages } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { useLanguage, type MessageKey, type Translate } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { useDocumentTitle } from '../../../lib/document-title';
import { confirmEmailChangeRequest, PENDING_EMAIL_CHANGE_KEY, revertEmailChangeRequest } from '../api';
import { isolate } from '../isolate';

const ERROR_TEXT: Record<string, MessageKey> = {
  email_change_token_invalid: 'emailChange.token.invalid',
  email_change_token_used: 'emailChange.token.used',
  email_change_token_expired: 'emailChange.token.expired',
  email_taken: 'emailChange.taken',
};

function errorText(t: Translate, error: unknown): string {
  const key = error instanceof ApiError && error.code ? ERROR_TEXT[error.code] : undefined;
  return key ? t(key) : (messageOf(error) ?? t('emailChange.failed'));
}

/**
 * The token from the link, taken out of the address bar at once (so out of the history and any Referer) and kept in
 * memory for this tab, as the reset page does.
 */
const captured: Record<string, string | null> = {};
function readToken(page: string): string | null {
  if (typeof window === 'undefined') return null;
  const fromUrl = new URLSearchParams(window.location.search).get('token');
  if (fromUrl !== null) {
    captured[page] = fromUrl;
    window.history.replaceState(window.history.state, '', window.location.pathname);
  }
  const token = captured[page] ?? null;
  if (token === null) return null;
  return /^[A-Za-z0-9_-]{43}$/.test(token) ? token : '';
}

const TEXT = {
  confirm: {
    meta: 'emailChange.confirm.meta.title',
    title: 'emailChange.confirm.title',
    body: 'emailChange.confirm.body',
    submit: 'emailChange.confirm.submit',
    pending: 'emailChange.confirm.pending',
    done: 'emailChange.confirm.done',
  },
  revert: {
    meta: 'emailChange.revert.meta.title',
    title: 'emailChange.revert.title',
    body: 'emailChange.revert.body',
    submit: 'emailChange.revert.submit',
    pending: 'emailChange.revert.pending',
    done: 'emailChange.revert.done',
  },
} as const satisfies Record<string, Record<string, MessageKey>>;

/**
 * /confirm-email?token=… (the link mailed to a new address) and /revert-email?token=… ("this was not me", mailed to
 * the old one). Nothing happens until the button is pressed: a mail scanner opening the link changes nothing. No
 * session is needed; the answer says what changed, or why the link cannot be used.
 */
export function EmailLinkPage({ mode }: { mode: 'confirm' | 'revert' }) {
  const { t, lang, setLanguage } = useLanguage();
  const text = TEXT[mode];
  useDocumentTitle(t(text.meta));
  const qc = useQueryClient();
  const [token] = useState(() => readToken(mode));
  const mutation = useMutation({
    mutationFn: (tk: string) => (mode === 'confirm' ? confirmEmailChangeRequest(tk) : revertEmailChangeRequest(tk)),
    // The signed-in user (if any) and their pending change are different now: read them again.
    onSuccess: () => qc.invalidateQueries({ predicate: (q) => q.queryKey[0] === '/api/auth/user' || q.queryKey[0] === PENDING_EMAIL_CHANGE_KEY[0] }),
  });

  let content;
  if (!token) {
    content = (
      <p role="alert" className="rounded-md bg-amber-50 p-3 text-sm text-amber-800">
        {token === '' ? t('emailChange.token.invalid') : t('emailChange.noToken')}
      </p>
    );
  } else if (mutation.isSuccess) {
    content = (
      <>
        <p role="status" data-testid="email-link-done" className="rounded-md bg-emerald-50 p-3 text-sm text-emerald-800">
          {t(text.done, { email: isolate(mutation.data.email) })}
        </p>
        <Link href="/auth" className={buttonClasses('primary', 'md', 'w-full')}>
          {t('emailChange.toSignIn')}
        </Link>
      </>
    );
  } else {
    content = (
      <>
        <p className="text-sm text-slate-600">{t(text.body)}</p>
        {mutation.isError && (
          <p role="alert" data-testid="email-link-error" className="rounded-md bg-red-50 p-3 text-sm text-red-700">
            {errorText(t, mutation.error)}
          </p>
        )}
        <Button
          type="button"
          className="w-full"
          data-testid="email-link-submit"
          disabled={mutation.isPending}
          onClick={() => mutation.mutate(token)}
        >
          {mutation.isPending ? t(text.pending) : t(text.submit)}
        </Button>
      </>
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
            <span lang={lang === 'ar' ? 'en' : 'ar'}>{t('emailChange.language')}</span>
          </button>
        </div>
        <Card>
          <CardHeader>
            <CardTitle level={1}>{t(text.title)}</CardTitle>
          </CardHeader>
          <CardContent className="space-y-4">
            {content}
            <p className="text-center text-sm">
              <Link href="/" className="text-brand-600 underline-offset-4 hover:underline">
                {t('emailChange.toBpay')}
              </Link>
            </p>
          </CardContent>
        </Card>
      </div>
    </main>
  );
}
