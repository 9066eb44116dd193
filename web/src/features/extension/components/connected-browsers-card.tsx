import { useQuery } from '@tanstack/react-query';
import { Loader2, MonitorSmartphone, Puzzle } from 'lucide-react';
import { useRef, useState, type RefObject } from 'react';
import { Link } from 'wouter';
import { Button } from '../../../components/ui/button';
import { Card, CardDescription, CardHeader } from '../../../components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { ListState, listStatus, LoadError } from '../../../components/ui/list-state';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { useReturnFocus } from '../../../lib/use-return-focus';
import '../texts';
import { extensionTokensQuery, type ExtensionToken } from '../api';
import { extensionPagePath } from '../downloads';
import { formatTokenDate } from '../format';
import { useRevokeExtensionToken } from '../hooks/use-revoke-extension-token';

/**
 * Asks before disconnecting: the extension in that browser stops working at once. The focus goes back to the row's
 * Disconnect button, or to the card's title when the row is gone.
 */
function DisconnectDialog({ token, onClose, fallbackFocus }: { token: ExtensionToken | null; onClose(): void; fallbackFocus: RefObject<HTMLHeadingElement | null> }) {
  const { t } = useLanguage();
  const revoke = useRevokeExtensionToken();
  const returnFocus = useReturnFocus();
  // Keep the last token while the dialog animates closed.
  const [shown, setShown] = useState<ExtensionToken | null>(token);
  if (token && token !== shown) setShown(token);
  const label = shown?.label ?? '';
  return (
    <Dialog
      open={token !== null}
      onOpenChange={(open) => {
        if (open || revoke.isPending) return;
        revoke.reset();
        onClose();
      }}
    >
      <DialogContent
        closeLabel={t('common.close')}
        data-testid="extension-disconnect-dialog"
        onOpenAutoFocus={returnFocus.onOpenAutoFocus}
        onCloseAutoFocus={(e) => {
          returnFocus.onCloseAutoFocus(e);
          if (e.defaultPrevented) return;
          e.preventDefault();
          fallbackFocus.current?.focus();
        }}
      >
        <DialogHeader>
          <DialogTitle>{t('extension.browsers.confirm.title')}</DialogTitle>
          <DialogDescription>{t('extension.browsers.confirm.body', { label })}</DialogDescription>
        </DialogHeader>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={onClose} disabled={revoke.isPending}>
            {t('common.cancel')}
          </Button>
          <Button
            variant="destructive"
            disabled={revoke.isPending || !shown}
            data-testid="extension-disconnect-confirm"
            onClick={() => {
              if (!shown) return;
              revoke.mutate(shown.id, {
                onSuccess: () => {
                  toast({ title: t('extension.browsers.toast.disconnected'), description: t('extension.browsers.toast.disconnectedBody', { label }) });
                  onClose();
                },
                onError: (error) => toast({ title: t('extension.browsers.toast.failed'), description: messageOf(error), variant: 'destructive' }),
              });
            }}
          >
            {revoke.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {t('extension.browsers.confirm.submit')}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}

function TokenRow({ token, onDisconnect }: { token: ExtensionToken; onDisconnect(): void }) {
  const { t, lang } = useLanguage();
  const labelId = `extension-token-${token.id}`;
  const date = (iso: string) => formatTokenDate(iso, lang);
  return (
    <li className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center sm:justify-between" data-testid="extension-token" data-token-id={token.id}>
      <div className="min-w-0">
        <p id={labelId} className="font-medium text-slate-900 [overflow-wrap:anywhere]" data-testid="extension-token-label">
          {token.label}
        </p>
        <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5 text-sm text-slate-500">
          <li>{t('extension.browsers.connectedOn', { date: date(token.createdAt) })}</li>
          <li data-testid="extension-token-last-used">
            {token.lastUsedAt ? t('extension.browsers.lastUsed', { date: date(token.lastUsedAt) }) : t('extension.browsers.neverUsed')}
          </li>
          <li>{t('extension.browsers.expires', { date: date(token.expiresAt) })}</li>
        </ul>
      </div>
      <Button variant="outline" className="shrink-0" onClick={onDisconnect} aria-describedby={labelId} data-testid="extension-token-disconnect">
        {t('extension.browsers.disconnect')}
      </Button>
    </li>
  );
}

/** Settings → Connected browsers: the browsers whose extension holds a key to this account, each one revocable. */
export function ConnectedBrowsersCard() {
  const { t, lang } = useLanguage();
  const tokens = useQuery(extensionTokensQuery());
  const [disconnecting, setDisconnecting] = useState<ExtensionToken | null>(null);
  const titleRef = useRef<HTMLHeadingElement>(null);
  const list = tokens.data ?? [];
  const status = listStatus({ isLoading: tokens.isLoading, error: tokens.error, total: list.length });

  return (
    <Card data-testid="connected-browsers-card">
      <CardHeader>
        <div className="flex items-center gap-3">
          <span className="flex h-9 w-9 items-center justify-center rounded-lg bg-brand-50 text-brand-600" aria-hidden>
            <MonitorSmartphone className="h-5 w-5" />
          </span>
          <div>
            {/* CardTitle's look; a plain h2 so the focus can come back to it. */}
            <h2 ref={titleRef} tabIndex={-1} className="text-lg font-semibold leading-tight outline-none">
              {t('extension.browsers.title')}
            </h2>
            <CardDescription>{t('extension.browsers.description')}</CardDescription>
          </div>
        </div>
      </CardHeader>
      <div className="px-6 pb-4">
        <ListState
          status={status}
          error={<LoadError message={t('extension.browsers.loadError')} error={tokens.error} onRetry={() => void tokens.refetch()} />}
          empty={
            <div className="mb-2 flex flex-col items-center gap-2 rounded-xl border border-dashed border-slate-300 px-6 py-8 text-center" data-testid="connected-browsers-empty">
              <Puzzle className="h-6 w-6 text-brand-600" aria-hidden />
              <p className="text-sm text-slate-600">{t('extension.browsers.empty')}</p>
              <Link href={extensionPagePath(lang)} className="text-sm font-medium text-brand-700 underline underline-offset-4">
                {t('extension.browsers.getExtension')}
              </Link>
            </div>
          }
        >
          <ul className="divide-y divide-slate-100" data-testid="connected-browsers-list">
            {list.map((token) => (
              <TokenRow key={token.id} token={token} onDisconnect={() => setDisconnecting(token)} />
            ))}
          </ul>
        </ListState>
      </div>
      <DisconnectDialog token={disconnecting} onClose={() => setDisconnecting(null)} fallbackFocus={titleRef} />
    </Card>
  );
}
