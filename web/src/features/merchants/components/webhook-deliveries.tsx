import { useQuery } from '@tanstack/react-query';
import { Eye, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { LoadError } from '../../../components/ui/list-state';
import { useLanguage } from '../../../i18n';
import { webhookDeliveriesQuery, type WebhookEndpoint } from '../api';
import { formatDateTime } from '../display';
import { DeliveryStatusBadge } from './intent-status-badge';
import { WebhookDeliveryDialog } from './webhook-delivery-dialog';

/** Recent deliveries: which event, to where, how it went (status, attempts, the last answer) and what comes next. */
export function WebhookDeliveries({ merchantId, endpoints }: { merchantId: string; endpoints: readonly WebhookEndpoint[] }) {
  const { t, lang } = useLanguage();
  const [endpointId, setEndpointId] = useState('');
  const [opened, setOpened] = useState<string | null>(null);
  const deliveries = useQuery(webhookDeliveriesQuery(merchantId, endpointId || undefined));
  const rows = deliveries.data ?? [];

  return (
    <Card data-testid="webhook-deliveries">
      <div className="flex flex-wrap items-end justify-between gap-4 p-6">
        <div className="space-y-1.5">
          <CardTitle>{t('merchants.webhooks.deliveries.title')}</CardTitle>
          <CardDescription>{t('merchants.webhooks.deliveries.description')}</CardDescription>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Label htmlFor="delivery-endpoint" className="text-slate-500">
            {t('merchants.webhooks.deliveries.endpoint')}
          </Label>
          <select
            id="delivery-endpoint"
            className="h-9 max-w-[16rem] rounded-md border border-slate-300 bg-white px-3 text-sm"
            value={endpointId}
            onChange={(e) => setEndpointId(e.target.value)}
            data-testid="delivery-endpoint-filter"
          >
            <option value="">{t('merchants.webhooks.deliveries.allEndpoints')}</option>
            {endpoints.map((e) => (
              <option key={e.id} value={e.id}>
                {e.url}
              </option>
            ))}
          </select>
          <Button
            variant="outline"
            size="sm"
            className="h-9"
            onClick={() => void deliveries.refetch()}
            disabled={deliveries.isFetching}
            data-testid="deliveries-refresh"
          >
            <RefreshCw className={`h-4 w-4 ${deliveries.isFetching ? 'animate-spin' : ''}`} aria-hidden />
            {t('merchants.refresh')}
          </Button>
        </div>
      </div>
      <CardContent>
        {deliveries.isLoading ? (
          <div className="h-20 animate-pulse rounded-lg bg-slate-100" aria-busy="true" aria-label={t('common.loading')} />
        ) : deliveries.isError ? (
          <LoadError message={t('merchants.webhooks.deliveries.loadFailed')} error={deliveries.error} onRetry={() => void deliveries.refetch()} />
        ) : rows.length === 0 ? (
          <p className="rounded-lg border border-dashed border-slate-300 px-6 py-8 text-center text-sm text-slate-500" data-testid="deliveries-empty">
            {t('merchants.webhooks.deliveries.empty')}
          </p>
        ) : (
          <div className="relative overflow-x-auto rounded-lg border border-slate-200">
            <table className="w-full min-w-[54rem] text-sm">
              <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                <tr>
                  <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.webhooks.deliveries.event')}</th>
                  <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.webhooks.deliveries.status')}</th>
                  <th scope="col" className="px-4 py-2.5 text-end font-medium">{t('merchants.webhooks.deliveries.attempts')}</th>
                  <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.webhooks.deliveries.lastResponse')}</th>
                  <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.webhooks.deliveries.lastAttempt')}</th>
                  <th scope="col" className="px-4 py-2.5 text-start font-medium">{t('merchants.webhooks.deliveries.nextAttempt')}</th>
                  <th scope="col" className="px-4 py-2.5 text-end font-medium">
                    <span className="sr-only">{t('merchants.delivery.open')}</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100 bg-white">
                {rows.map((d) => (
                  <tr key={d.id} data-testid="webhook-delivery" data-status={d.status}>
                    <td className="px-4 py-3">
                      <p className="font-mono text-xs text-slate-900" dir="ltr" data-testid="webhook-delivery-event">
                        {d.event_type}
                      </p>
                      {!endpointId && (
                        <p className="max-w-[14rem] truncate font-mono text-xs text-slate-400" dir="ltr" title={d.url}>
                          {d.url}
                        </p>
                      )}
                    </td>
                    <td className="px-4 py-3">
                      <DeliveryStatusBadge status={d.status} />
                    </td>
                    <td className="px-4 py-3 text-end tabular-nums" data-testid="webhook-delivery-attempts">
                      {d.attempts}
                    </td>
                    <td className="px-4 py-3">
                      {d.last_attempt ? (
                        <div className="space-y-0.5">
                          <p className="tabular-nums" dir="ltr" data-testid="webhook-delivery-code">
                            {d.last_attempt.status_code ?? '—'}
                            <span className="ml-2 text-xs text-slate-400">{d.last_attempt.duration_ms} ms</span>
                          </p>
                          {(d.last_attempt.response_snippet || d.last_attempt.error) && (
                            <p
                              className="max-w-[16rem] truncate font-mono text-xs text-slate-500"
                              dir="ltr"
                              title={d.last_attempt.response_snippet || d.last_attempt.error || ''}
                            >
                              {d.last_attempt.response_snippet || d.last_attempt.error}
                            </p>
                          )}
                        </div>
                      ) : (
                        <span className="text-slate-400">{t('merchants.webhooks.deliveries.none')}</span>
                      )}
                    </td>
                    <td className="whitespace-nowrap px-4 py-3 text-slate-600">
                      {d.last_attempt ? formatDateTime(d.last_attempt.at, lang) : '—'}
                    </td>
                    <td className="whitespace-nowrap px-4 py-3 text-slate-600">
                      {d.status === 'pending' && d.next_attempt_at ? formatDateTime(d.next_attempt_at, lang) : '—'}
                    </td>
                    <td className="px-4 py-3 text-end">
                      <Button
                        variant="ghost"
                        size="sm"
                        onClick={() => setOpened(d.id)}
                        aria-label={t('merchants.delivery.openLabel', { event: d.event_type })}
                        data-testid="webhook-delivery-open"
                      >
                        <Eye className="h-4 w-4" aria-hidden />
                        {t('merchants.delivery.open')}
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </CardContent>
      <WebhookDeliveryDialog merchantId={merchantId} deliveryId={opened} endpoints={endpoints} onClose={() => setOpened(null)} />
    </Card>
  );
}
