import { CircleAlert, CircleCheck, Loader2, Puzzle } from 'lucide-react';
import { useEffect, useMemo, useRef } from 'react';
import { Link } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useLanguage, type MessageKey, type Translate } from '../../../i18n';
import { useDocumentTitle } from '../../../lib/document-title';
import { useAuth } from '../../auth/auth-context';
// The sign-in guard every signed-in page shows (the router's own SignedIn uses it), with this page's reason.
import { AccessRequired } from '../../merchants/components/access-required';
import type { User } from '../../auth/api';
import { browserLabel, currentBrowserParts } from '../browser-label';
import { canConnect, isConnecting, type ConnectError, type ConnectState } from '../connect-state';
import { CONNECT_PATH, extensionPagePath } from '../downloads';
import { useConnectFlow } from '../hooks/use-connect-flow';
// The brand mark, as on the other public pages.
import { Logo } from '../../../components/public-page/logo';

const ERROR_TEXT: Record<ConnectError['reason'], MessageKey> = {
  api: 'extension.connect.error.api',
  extension: 'extension.connect.error.extension',
  timeout: 'extension.connect.error.timeout',
};

/** The status line a screen reader hears as it changes (the page's one live region). */
function statusText(state: ConnectState, t: Translate): string {
  switch (state.step.kind) {
    case 'connected':
      return `${t('extension.connect.connected.title')} ${t('extension.connect.connected.body')}`;
    case 'error':
      return `${t('extension.connect.error.title')}. ${state.step.error.message ?? t(ERROR_TEXT[state.step.error.reason])}`;
    case 'requesting':
    case 'handing-over':
      return t('extension.connect.status.requesting');
    case 'idle':
      if (state.presence === 'detecting') return t('extension.connect.status.detecting');
      if (state.presence === 'missing') return t('extension.connect.missing.title');
      return t('extension.connect.status.ready');
  }
}

/** /extension/connect: signed-in users approve "Connect this browser"; signed-out visitors are asked to sign in first. */
export function ExtensionConnectPage() {
  const { user, isLoading } = useAuth();
  const { t } = useLanguage();
  useDocumentTitle(t('extension.connect.metaTitle'));
  if (isLoading) return <div className="min-h-screen bg-slate-50" aria-busy="true" />;
  if (!user) return <AccessRequired returnTo={CONNECT_PATH} body="extension.connect.signInBody" />;
  return <ConnectPanel user={user} />;
}

function ConnectPanel({ user }: { user: User }) {
  const { t, lang, dir } = useLanguage();
  const label = useMemo(
    () => browserLabel(currentBrowserParts(), (browser, os) => t('extension.connect.labelTemplate', { browser, os }), t('extension.connect.labelFallback')),
    [t],
  );
  const { state, connect } = useConnectFlow(label);
  const step = state.step;
  const resultRef = useRef<HTMLDivElement>(null);

  // The button goes away (connected) or the outcome needs reading (error): move the focus to the outcome.
  useEffect(() => {
    if (step.kind === 'connected' || step.kind === 'error') resultRef.current?.focus();
  }, [step.kind]);

  const stateName = step.kind === 'idle' ? state.presence : step.kind;

  return (
    <div dir={dir} className="min-h-screen bg-slate-50" data-testid="extension-connect-page">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex h-16 max-w-3xl items-center px-4 sm:px-6">
          <Link href="/" aria-label={t('extension.nav.homeAria')} className="rounded-md">
            <Logo name={t('common.brand')} />
          </Link>
        </div>
      </header>
      <main className="mx-auto max-w-lg px-4 py-10 sm:py-16">
        <Card>
          <CardHeader>
            <span className="mb-2 flex h-10 w-10 items-center justify-center rounded-full bg-brand-50 text-brand-600" aria-hidden>
              <Puzzle className="h-5 w-5" />
            </span>
            <CardTitle level={1} className="text-2xl">
              {t('extension.connect.title')}
            </CardTitle>
            <CardDescription className="text-base leading-relaxed">{t('extension.connect.body')}</CardDescription>
          </CardHeader>
          <CardContent className="space-y-5">
            <dl className="divide-y divide-slate-100 rounded-lg border border-slate-200 text-sm">
              <div className="flex flex-wrap justify-between gap-x-4 gap-y-1 px-4 py-3">
                <dt className="text-slate-500">{t('extension.connect.browser')}</dt>
                <dd className="font-medium text-slate-900" data-testid="extension-connect-label">
                  {label}
                </dd>
              </div>
              <div className="flex flex-wrap justify-between gap-x-4 gap-y-1 px-4 py-3">
                <dt className="text-slate-500">{t('extension.connect.account')}</dt>
                <dd className="min-w-0 font-medium text-slate-900 [overflow-wrap:anywhere]" dir="ltr">
                  {user.email}
                </dd>
              </div>
            </dl>

            {/* The one live region: what is happening now, said as it changes. */}
            <p role="status" aria-live="polite" aria-atomic="true" className="sr-only" data-testid="extension-connect-status" data-state={stateName}>
              {statusText(state, t)}
            </p>

            {step.kind === 'idle' && state.presence === 'detecting' && (
              <p className="flex items-center gap-2 text-sm text-slate-500" aria-hidden>
                <Loader2 className="h-4 w-4 animate-spin" />
                {t('extension.connect.status.detecting')}
              </p>
            )}

            {step.kind !== 'connected' && state.presence === 'missing' && (
              <div className="rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-950" data-testid="extension-missing">
                <p className="font-semibold">{t('extension.connect.missing.title')}</p>
                <p className="mt-1">{t('extension.connect.missing.body')}</p>
                <Link href={extensionPagePath(lang)} className="mt-2 inline-block font-medium text-brand-700 underline underline-offset-4" data-testid="extension-install-link">
                  {t('extension.connect.missing.link')}
                </Link>
              </div>
            )}

            {step.kind === 'error' && (
              <div ref={resultRef} tabIndex={-1} className="flex gap-3 rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800 outline-none" data-testid="extension-connect-error">
                <CircleAlert className="mt-0.5 h-5 w-5 shrink-0" aria-hidden />
                <div className="min-w-0">
                  <p className="font-semibold">{t('extension.connect.error.title')}</p>
                  <p className="mt-1 [overflow-wrap:anywhere]">{step.error.message ?? t(ERROR_TEXT[step.error.reason])}</p>
                </div>
              </div>
            )}

            {step.kind === 'connected' ? (
              <div ref={resultRef} tabIndex={-1} className="flex gap-3 rounded-lg border border-green-200 bg-green-50 p-4 text-green-900 outline-none" data-testid="extension-connected">
                <CircleCheck className="mt-0.5 h-5 w-5 shrink-0 text-green-600" aria-hidden />
                <div className="min-w-0 space-y-1">
                  <p className="font-semibold">{t('extension.connect.connected.title')}</p>
                  <p>{t('extension.connect.connected.body')}</p>
                  <p className="text-sm text-green-800">{t('extension.connect.connected.manage')}</p>
                  <Link href="/" className={buttonClasses('outline', 'sm', 'mt-2')}>
                    {t('extension.connect.connected.home')}
                  </Link>
                </div>
              </div>
            ) : (
              <Button size="lg" className="w-full" disabled={!canConnect(state)} onClick={() => void connect()} data-testid="extension-connect-button">
                {isConnecting(state) && <Loader2 className="h-5 w-5 animate-spin" aria-hidden />}
                {isConnecting(state)
                  ? t('extension.connect.connecting')
                  : step.kind === 'error'
                    ? t('extension.connect.retry')
                    : t('extension.connect.button')}
              </Button>
            )}
          </CardContent>
        </Card>
      </main>
    </div>
  );
}
