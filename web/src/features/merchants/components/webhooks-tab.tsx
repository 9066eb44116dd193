import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { KeyRound, Loader2, Pause, Pencil, Play, Plus, RefreshCw, Send, Trash2, Webhook } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { LoadError } from '../../../components/ui/list-state';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import {
  deleteWebhookEndpointRequest,
  sendTestEventRequest,
  setWebhookEndpointDisabledRequest,
  webhookDeliveriesQuery,
  webhookEndpointsQuery,
  type Merchant,
  type WebhookEndpoint,
} from '../api';
import { formatDate } from '../display';
import { disabledByFailures } from '../webhooks';
import { CreateWebhookDialog } from './create-webhook-dialog';
import { EditWebhookDialog } from './edit-webhook-dialog';
import { RollWebhookSecretDialog } from './roll-webhook-secret-dialog';
import { WebhookDeliveries } from './webhook-deliveries';

function DeleteEndpointDialog({
  merchantId,
  endpoint,
  onClose,
}: {
  merchantId: string;
  endpoint: WebhookEndpoint | null;
  onClose(): void;
}) {
  const { t } = useLanguage();
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => deleteWebhookEndpointRequest(merchantId, id),
    onSuccess: (_r, id) => {
      qc.setQueryData(webhookEndpointsQuery(merchantId).queryKey, (list) => list?.filter((e) => e.id !== id));
      void qc.invalidateQueries({ queryKey: webhookEndpointsQuery(merchantId).queryKey });
      toast({ title: t('merchants.webhooks.deletedToast') });
      onClose();
    },
    onError: (e) => toast({ title: t('merchants.webhooks.deleteFailed'), description: messageOf(e), variant: 'destructive' }),
  });
  return (
    <Dialog
      open={endpoint !== null}
      onOpenChange={(open) => {
        if (!open && !remove.isPending) onClose();
      }}
    >
      <DialogContent closeLabel={t('common.close')} data-testid="delete-webhook-dialog">
        <DialogHeader>
          <DialogTitle>{t('merchants.webhooks.deleteTitle')}</DialogTitle>
          <DialogDescription>{t('merchants.webhooks.deleteBody')}</DialogDescription>
        </DialogHeader>
        <p className="mb-4 break-all rounded-md bg-slate-50 px-3 py-2 font-mono text-sm" dir="ltr">
          {endpoint?.url}
        </p>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={onClose} disabled={remove.isPending}>
            {t('common.cancel')}
          </Button>
          <Button
            variant="destructive"
            onClick={() => endpoint && remove.mutate(endpoint.id)}
            disabled={remove.isPending}
            data-testid="delete-webhook-confirm"
          >
            {remove.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {t('merchants.webhooks.deleteConfirm')}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}

function EndpointCard({
  merchantId,
  endpoint,
  onEdit,
  onRoll,
  onDelete,
}: {
  merchantId: string;
  endpoint: WebhookEndpoint;
  onEdit(): void;
  onRoll(): void;
  onDelete(): void;
}) {
  const { t, lang } = useLanguage();
  const qc = useQueryClient();
  const test = useMutation({
    mutationFn: () => sendTestEventRequest(merchantId, endpoint.id),
    onSuccess: () => {
      toast({ title: t('merchants.webhooks.testSent'), description: t('merchants.webhooks.testSentBody') });
      const refresh = () => void qc.invalidateQueries({ queryKey: webhookDeliveriesQuery(merchantId).queryKey.slice(0, 3) });
      refresh();
      // The worker sends due deliveries about every second: look again once it has had the chance.
      setTimeout(refresh, 2000);
    },
    onError: (e) => toast({ title: t('merchants.webhooks.testFailed'), description: messageOf(e), variant: 'destructive' }),
  });
  const toggle = useMutation({
    mutationFn: (disable: boolean) => setWebhookEndpointDisabledRequest(merchantId, endpoint.id, disable),
    onSuccess: (updated) => {
      qc.setQueryData(webhookEndpointsQuery(merchantId).queryKey, (list) => list?.map((e) => (e.id === updated.id ? updated : e)));
      toast({ title: updated.status === 'disabled' ? t('merchants.webhooks.disabledToast') : t('merchants.webhooks.enabledToast') });
    },
    onError: (e) => toast({ title: t('merchants.webhooks.toggleFailed'), description: messageOf(e), variant: 'destructive' }),
  });
  const disabled = endpoint.status === 'disabled';
  const failing = disabledByFailures(endpoint);
  const events = endpoint.enabled_events.includes('*') ? null : endpoint.enabled_events;
  return (
    <li className="space-y-3 rounded-lg border border-slate-200 p-4" data-testid="webhook-endpoint" data-id={endpoint.id}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          <p className="break-all font-mono text-sm font-medium text-slate-900" dir="ltr" data-testid="webhook-endpoint-url">
            {endpoint.url}
          </p>
          {endpoint.description && <p className="text-sm text-slate-600">{endpoint.description}</p>}
          <p className="text-xs text-slate-500">{t('merchants.webhooks.createdOn', { date: formatDate(endpoint.created, lang) })}</p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {disabled ? (
            <Badge tone="red" data-testid="webhook-endpoint-status" data-status="disabled">
              {failing ? t('merchants.webhooks.disabledByFailures') : t('merchants.webhooks.disabled')}
            </Badge>
          ) : (
            <Badge tone="green" data-testid="webhook-endpoint-status" data-status={endpoint.status}>
              {t('merchants.webhooks.enabled')}
            </Badge>
          )}
        </div>
      </div>
      {failing && (
        <p className="rounded-md bg-red-50 p-3 text-xs text-red-800" role="status" data-testid="webhook-disabled-reason">
          {t('merchants.webhooks.disabledExplain')} <span dir="ltr">({endpoint.disabled_reason})</span>
        </p>
      )}
      <div className="flex flex-wrap items-center gap-1.5" aria-label={t('merchants.webhooks.events')}>
        {events === null ? (
          <Badge tone="brand">{t('merchants.webhooks.allEvents')}</Badge>
        ) : (
          events.map((ev) => (
            <Badge key={ev} tone="neutral" className="font-mono" dir="ltr">
              {ev}
            </Badge>
          ))
        )}
      </div>
      <div className="flex flex-wrap gap-2">
        <Button variant="outline" size="sm" onClick={() => test.mutate()} disabled={test.isPending || disabled} data-testid="webhook-send-test">
          {test.isPending ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Send className="h-4 w-4 rtl:-scale-x-100" aria-hidden />}
          {t('merchants.webhooks.sendTest')}
        </Button>
        <Button
          variant="outline"
          size="sm"
          onClick={() => toggle.mutate(!disabled)}
          disabled={toggle.isPending}
          data-testid={disabled ? 'webhook-enable' : 'webhook-disable'}
        >
          {disabled ? <Play className="h-4 w-4 rtl:-scale-x-100" aria-hidden /> : <Pause className="h-4 w-4" aria-hidden />}
          {disabled ? t('merchants.webhooks.enable') : t('merchants.webhooks.disable')}
        </Button>
        <Button variant="outline" size="sm" onClick={onEdit} data-testid="webhook-edit">
          <Pencil className="h-4 w-4" aria-hidden />
          {t('merchants.webhookEdit.open')}
        </Button>
        <Button variant="outline" size="sm" onClick={onRoll} data-testid="webhook-roll-secret">
          <KeyRound className="h-4 w-4" aria-hidden />
          {t('merchants.webhookRoll.open')}
        </Button>
        <Button variant="ghost" size="sm" className="text-red-600 hover:bg-red-50" onClick={onDelete} data-testid="webhook-delete">
          <Trash2 className="h-4 w-4" aria-hidden />
          {t('merchants.webhooks.delete')}
        </Button>
      </div>
    </li>
  );
}

/** Webhook endpoints (create, edit, enable/disable, roll the signing secret, delete, send a test event) and their deliveries. */
export function WebhooksTab({ merchant }: { merchant: Merchant }) {
  const { t } = useLanguage();
  const endpoints = useQuery(webhookEndpointsQuery(merchant.id));
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<WebhookEndpoint | null>(null);
  const [editing, setEditing] = useState<WebhookEndpoint | null>(null);
  const [rolling, setRolling] = useState<WebhookEndpoint | null>(null);
  const list = endpoints.data ?? [];

  return (
    <div className="space-y-6">
      <Card>
        <div className="flex flex-wrap items-start justify-between gap-4 p-6">
          <div className="space-y-1.5">
            <CardTitle className="flex items-center gap-2">
              <Webhook className="h-5 w-5 text-brand-600" aria-hidden />
              {t('merchants.webhooks.title')}
            </CardTitle>
            <CardDescription>{t('merchants.webhooks.description')}</CardDescription>
          </div>
          <div className="flex gap-2">
            <Button variant="outline" size="sm" onClick={() => void endpoints.refetch()} disabled={endpoints.isFetching}>
              <RefreshCw className={`h-4 w-4 ${endpoints.isFetching ? 'animate-spin' : ''}`} aria-hidden />
              {t('merchants.refresh')}
            </Button>
            <Button size="sm" onClick={() => setCreating(true)} data-testid="webhook-add">
              <Plus className="h-4 w-4" aria-hidden />
              {t('merchants.webhooks.add')}
            </Button>
          </div>
        </div>
        <CardContent>
          {endpoints.isLoading ? (
            <div className="h-24 animate-pulse rounded-lg bg-slate-100" aria-busy="true" aria-label={t('common.loading')} />
          ) : endpoints.isError ? (
            <LoadError message={t('merchants.webhooks.loadFailed')} error={endpoints.error} onRetry={() => void endpoints.refetch()} />
          ) : list.length === 0 ? (
            <div
              className="flex flex-col items-center justify-center rounded-xl border border-dashed border-slate-300 px-6 py-10 text-center"
              data-testid="webhooks-empty"
            >
              <p className="text-base font-semibold text-slate-900">{t('merchants.webhooks.empty')}</p>
              <p className="mt-1 max-w-sm text-sm text-slate-500">{t('merchants.webhooks.emptyBody')}</p>
            </div>
          ) : (
            <ul className="space-y-3">
              {list.map((ep) => (
                <EndpointCard
                  key={ep.id}
                  merchantId={merchant.id}
                  endpoint={ep}
                  onEdit={() => setEditing(ep)}
                  onRoll={() => setRolling(ep)}
                  onDelete={() => setDeleting(ep)}
                />
              ))}
            </ul>
          )}
        </CardContent>
      </Card>
      {list.length > 0 && <WebhookDeliveries merchantId={merchant.id} endpoints={list} />}
      <CreateWebhookDialog merchant={merchant} open={creating} onOpenChange={setCreating} />
      <EditWebhookDialog merchant={merchant} endpoint={editing} onClose={() => setEditing(null)} />
      <RollWebhookSecretDialog merchantId={merchant.id} endpoint={rolling} onClose={() => setRolling(null)} />
      <DeleteEndpointDialog merchantId={merchant.id} endpoint={deleting} onClose={() => setDeleting(null)} />
    </div>
  );
}
