import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Loader2, RefreshCw, Send } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { LoadError } from '../../../components/ui/list-state';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { useIdempotencyKeys } from '../../../lib/idempotency';
import { MERCHANTS_QUERY_KEY, resendEventRequest, webhookDeliveryQuery, type WebhookAttemptRecord, type WebhookEndpoint } from '../api';
import { formatDateTime } from '../display';
import { CopyButton } from './copy-button';
import { DeliveryStatusBadge } from './intent-status-badge';

function Section({ title, children, testId }: { title: string; children: ReactNode; testId: string }) {
  return (
    <section className="space-y-2" data-testid={testId} aria-label={title}>
      <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
      {children}
    </section>
  );
}

/** The receiver's status, or that it did not answer. */
function StatusCode({ attempt }: { attempt: WebhookAttemptRecord }) {
  const { t } = useLanguage();
  if (attempt.status_code === null) return <span className="text-red-700">{t('merchants.delivery.noAnswer')}</span>;
  const ok = attempt.status_code >= 200 && attempt.status_code < 300;
  return (
    <span className={ok ? 'text-green-700' : 'text-red-700'} dir="ltr">
      {attempt.status_code}
    </span>
  );
}

/**
 * One delivery opened: the request as sent (the event JSON, byte for byte), the receiver's last answer, every attempt
 * with what happened and when the next retry is due, and "send again" to the same endpoint.
 */
export function WebhookDeliveryDialog({
  merchantId,
  deliveryId,
  endpoints,
  onClose,
}: {
  merchantId: string;
  deliveryId: string | null;
  endpoints: readonly WebhookEndpoint[];
  onClose(): void;
}) {
  const { t, lang } = useLanguage();
  const qc = useQueryClient();
  const keys = useIdempotencyKeys();
  const detail = useQuery({ ...webhookDeliveryQuery(merchantId, deliveryId ?? ''), enabled: deliveryId !== null });
  const d = detail.data;
  const endpoint = d ? endpoints.find((e) => e.id === d.webhook_endpoint) : undefined;
  const endpointDisabled = endpoint?.status === 'disabled';

  const resend = useMutation({
    mutationFn: async ({ eventId, endpointId }: { eventId: string; endpointId: string }) => {
      const attempt = keys.begin({ eventId, endpointId });
      try {
        const answer = await resendEventRequest(merchantId, eventId, endpointId, attempt.key);
        keys.settle(attempt);
        return answer;
      } catch (error) {
        keys.settle(attempt, error);
        throw error;
      }
    },
    onSuccess: () => {
      toast({ title: t('merchants.delivery.resentToast'), description: t('merchants.delivery.resentToastBody') });
      const refresh = () => void qc.invalidateQueries({ queryKey: [...MERCHANTS_QUERY_KEY, merchantId, 'webhook_deliveries'] });
      refresh();
      // The worker sends due deliveries about every second: look again once it has had the chance.
      setTimeout(refresh, 2000);
    },
    onError: (e) => toast({ title: t('merchants.delivery.resendFailed'), description: messageOf(e), variant: 'destructive' }),
  });

  const last = d?.attempt_history[d.attempt_history.length - 1];

  return (
    <Dialog
      open={deliveryId !== null}
      onOpenChange={(open) => {
        if (!open) {
          keys.reset();
          onClose();
        }
      }}
    >
      <DialogContent closeLabel={t('common.close')} className="max-w-2xl" data-testid="webhook-delivery-dialog">
        <DialogHeader>
          <DialogTitle className="flex flex-wrap items-center gap-2">
            <span className="font-mono text-base" dir="ltr" data-testid="delivery-detail-event-type">
              {d?.event_type ?? t('merchants.delivery.title')}
            </span>
            {d && <DeliveryStatusBadge status={d.status} />}
          </DialogTitle>
          <DialogDescription>{t('merchants.delivery.description')}</DialogDescription>
        </DialogHeader>

        {detail.isLoading ? (
          <div className="h-40 animate-pulse rounded-lg bg-slate-100" aria-busy="true" aria-label={t('common.loading')} />
        ) : detail.isError ? (
          <LoadError message={t('merchants.delivery.loadFailed')} error={detail.error} onRetry={() => void detail.refetch()} />
        ) : d ? (
          <div className="space-y-5">
            <dl className="grid gap-3 text-sm sm:grid-cols-2">
              <div>
                <dt className="text-xs font-medium text-slate-500">{t('merchants.delivery.event')}</dt>
                <dd className="break-all font-mono text-xs" dir="ltr" data-testid="delivery-detail-event">
                  {d.event}
                </dd>
              </div>
              <div>
                <dt className="text-xs font-medium text-slate-500">{t('merchants.delivery.endpoint')}</dt>
                <dd className="break-all font-mono text-xs" dir="ltr">
                  {d.url}
                </dd>
              </div>
              <div>
                <dt className="text-xs font-medium text-slate-500">{t('merchants.delivery.created')}</dt>
                <dd>{formatDateTime(d.created, lang)}</dd>
              </div>
              <div>
                <dt className="text-xs font-medium text-slate-500">{t('merchants.delivery.nextRetry')}</dt>
                <dd data-testid="delivery-detail-next-retry">
                  {d.status === 'pending' && d.next_attempt_at !== null
                    ? formatDateTime(d.next_attempt_at, lang)
                    : d.status === 'failed'
                      ? t('merchants.delivery.noMoreRetries')
                      : '—'}
                </dd>
              </div>
            </dl>

            <Section title={t('merchants.delivery.request')} testId="delivery-detail-request">
              <p className="break-all font-mono text-xs text-slate-600" dir="ltr">
                POST {d.request.url}
                <br />
                Content-Type: {d.request.content_type}
                <br />
                User-Agent: {d.request.user_agent}
                <br />
                Bpay-Signature: t=…,v1=…
              </p>
              <p className="text-xs text-slate-500">{t('merchants.delivery.signatureNote')}</p>
              <div className="relative">
                <pre
                  className="max-h-64 overflow-auto whitespace-pre-wrap break-all rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs text-slate-800"
                  dir="ltr"
                  tabIndex={0}
                  aria-label={t('merchants.delivery.requestBody')}
                  data-testid="delivery-detail-request-body"
                >
                  {d.request.body}
                </pre>
                <div className="mt-2 flex justify-end">
                  <CopyButton text={d.request.body} label={t('merchants.delivery.requestBody')} testId="delivery-detail-copy-body" />
                </div>
              </div>
            </Section>

            <Section title={t('merchants.delivery.response')} testId="delivery-detail-response">
              {last ? (
                <div className="space-y-2">
                  <p className="text-sm">
                    {t('merchants.delivery.status')}: <StatusCode attempt={last} />{' '}
                    <span className="text-xs text-slate-500" dir="ltr">
                      ({last.duration_ms} ms)
                    </span>
                  </p>
                  {last.error && (
                    <p className="break-words text-sm text-red-700" dir="ltr" data-testid="delivery-detail-response-error">
                      {last.error}
                    </p>
                  )}
                  {last.response_snippet !== null && (
                    <pre
                      className="max-h-40 overflow-auto whitespace-pre-wrap break-all rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs"
                      dir="ltr"
                      tabIndex={0}
                      aria-label={t('merchants.delivery.responseBody')}
                      data-testid="delivery-detail-response-body"
                    >
                      {last.response_snippet || t('merchants.delivery.emptyBody')}
                    </pre>
                  )}
                  <p className="text-xs text-slate-500">{t('merchants.delivery.excerptNote')}</p>
                </div>
              ) : (
                <p className="text-sm text-slate-500">{t('merchants.webhooks.deliveries.none')}</p>
              )}
            </Section>

            <Section title={t('merchants.delivery.attempts', { n: d.attempt_history.length })} testId="delivery-detail-attempts">
              {d.attempt_history.length === 0 ? (
                <p className="text-sm text-slate-500">{t('merchants.webhooks.deliveries.none')}</p>
              ) : (
                <ol className="divide-y divide-slate-100 rounded-md border border-slate-200">
                  {d.attempt_history.map((a, i) => (
                    <li key={`${a.at}-${i}`} className="space-y-1 px-3 py-2 text-sm" data-testid="delivery-attempt">
                      <div className="flex flex-wrap items-center justify-between gap-2">
                        <span className="font-medium">
                          {t('merchants.delivery.attemptN', { n: i + 1 })} · {formatDateTime(a.at, lang)}
                        </span>
                        <span className="tabular-nums" data-testid="delivery-attempt-status">
                          <StatusCode attempt={a} />{' '}
                          <span className="text-xs text-slate-500" dir="ltr">
                            {a.duration_ms} ms
                          </span>
                        </span>
                      </div>
                      {(a.error || a.response_snippet) && (
                        <p className="truncate font-mono text-xs text-slate-500" dir="ltr" title={a.error ?? a.response_snippet ?? ''}>
                          {a.error ?? a.response_snippet}
                        </p>
                      )}
                    </li>
                  ))}
                </ol>
              )}
            </Section>

            {endpointDisabled && (
              <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900" role="note" data-testid="delivery-resend-disabled">
                {t('merchants.delivery.endpointDisabled')}
              </p>
            )}
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Button variant="outline" onClick={() => void detail.refetch()} disabled={detail.isFetching} data-testid="delivery-detail-refresh">
                <RefreshCw className={`h-4 w-4 ${detail.isFetching ? 'animate-spin' : ''}`} aria-hidden />
                {t('merchants.refresh')}
              </Button>
              <Button
                onClick={() => !resend.isPending && resend.mutate({ eventId: d.event, endpointId: d.webhook_endpoint })}
                disabled={resend.isPending || endpointDisabled || !endpoint}
                data-testid="delivery-resend"
              >
                {resend.isPending ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Send className="h-4 w-4 rtl:-scale-x-100" aria-hidden />}
                {t('merchants.delivery.resend')}
              </Button>
            </div>
          </div>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}
