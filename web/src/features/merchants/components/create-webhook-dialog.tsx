import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Loader2 } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { createWebhookEndpointRequest, webhookEndpointsQuery } from '../api';
import { enabledEventsFor, webhookUrlProblem } from '../webhooks';
import { WEBHOOK_EVENT_CHOICES, type Merchant, type WebhookEndpointWithSecret } from '../types';
import { SecretReveal } from './secret-reveal';

/**
 * Add endpoint: the URL, the events (all, or some of the spec's choices) and a description. The signing secret
 * in the answer is shown here once.
 */
export function CreateWebhookDialog({
  merchant,
  open,
  onOpenChange,
}: {
  merchant: Merchant;
  open: boolean;
  onOpenChange(open: boolean): void;
}) {
  const t = useT();
  const qc = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<WebhookEndpointWithSecret | null>(null);
  const live = merchant.environment === 'production';

  useEffect(() => {
    if (!open) return;
    setUrl('');
    setDescription('');
    setAll(true);
    setChosen([]);
    setError(null);
    setCreated(null);
  }, [open]);

  const create = useMutation({
    mutationFn: () =>
      createWebhookEndpointRequest(merchant.id, {
        url: url.trim(),
        enabled_events: enabledEventsFor(all, chosen),
        ...(description.trim() ? { description: description.trim() } : {}),
      }),
    onSuccess: (endpoint) => {
      void qc.invalidateQueries({ queryKey: webhookEndpointsQuery(merchant.id).queryKey });
      setCreated(endpoint);
      toast({ title: t('merchants.webhooks.createdToast'), description: t('merchants.webhooks.createdToastBody') });
    },
    onError: (e) => {
      setError(messageOf(e) ?? t('merchants.webhooks.createFailed'));
      toast({ title: t('merchants.webhooks.createFailed'), description: messageOf(e), variant: 'destructive' });
    },
  });

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const problem = webhookUrlProblem(url, live);
    if (problem) return setError(t(problem));
    if (enabledEventsFor(all, chosen).length === 0) return setError(t('merchants.webhooks.error.events'));
    setError(null);
    if (!create.isPending) create.mutate();
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent closeLabel={t('common.close')} data-testid="create-webhook-dialog">
        <DialogHeader>
          <DialogTitle>{created ? t('merchants.webhooks.createdTitle') : t('merchants.webhooks.createTitle')}</DialogTitle>
          <DialogDescription>
            {created ? t('merchants.webhooks.createdDescription') : t('merchants.webhooks.createDescription')}
          </DialogDescription>
        </DialogHeader>
        {created ? (
          <div className="space-y-4">
            <SecretReveal
              title={t('merchants.webhooks.secretTitle')}
              secret={created.secret}
              warning={t('merchants.webhooks.secretWarning')}
              copyLabel={t('merchants.webhooks.secretLabel')}
              testId="webhook-secret-reveal"
            />
            <div className="flex justify-end">
              <Button onClick={() => onOpenChange(false)} data-testid="webhook-secret-done">
                {t('merchants.keys.savedIt')}
              </Button>
            </div>
          </div>
        ) : (
          <form onSubmit={onSubmit} noValidate className="space-y-4">
            <div className="space-y-1.5">
              <Label htmlFor="webhook-url">{t('merchants.webhooks.url')}</Label>
              <Input
                id="webhook-url"
                data-testid="webhook-url"
                type="url"
                dir="ltr"
                placeholder="https://shop.example/bpay/webhook"
                value={url}
                maxLength={2000}
                onChange={(e) => setUrl(e.target.value)}
                autoFocus
              />
              <p className="text-xs text-slate-500">
                {live ? t('merchants.webhooks.urlHintLive') : t('merchants.webhooks.urlHintTest')}
              </p>
            </div>
            <fieldset className="space-y-2">
              <legend className="mb-1 text-sm font-medium text-slate-700">{t('merchants.webhooks.events')}</legend>
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className="h-4 w-4 accent-brand-600"
                  checked={all}
                  onChange={(e) => setAll(e.target.checked)}
                  data-testid="webhook-event-all"
                />
                {t('merchants.webhooks.allEvents')}
              </label>
              {WEBHOOK_EVENT_CHOICES.map((ev) => (
                <label key={ev} className={`flex items-center gap-2 ps-6 text-sm ${all ? 'text-slate-400' : ''}`}>
                  <input
                    type="checkbox"
                    className="h-4 w-4 accent-brand-600"
                    disabled={all}
                    checked={all || chosen.includes(ev)}
                    onChange={(e) => setChosen((c) => (e.target.checked ? [...c, ev] : c.filter((x) => x !== ev)))}
                    data-testid={`webhook-event-${ev}`}
                  />
                  <code className="font-mono text-xs" dir="ltr">
                    {ev}
                  </code>
                </label>
              ))}
            </fieldset>
            <div className="space-y-1.5">
              <Label htmlFor="webhook-description">{t('merchants.webhooks.descriptionLabel')}</Label>
              <Input
                id="webhook-description"
                data-testid="webhook-description"
                value={description}
                maxLength={500}
                placeholder={t('merchants.webhooks.descriptionPlaceholder')}
                onChange={(e) => setDescription(e.target.value)}
              />
            </div>
            {error && (
              <p className="text-sm text-red-600" role="alert" data-testid="webhook-error">
                {error}
              </p>
            )}
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Button variant="outline" onClick={() => onOpenChange(false)}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" disabled={create.isPending} data-testid="webhook-create-submit">
                {create.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
                {t('merchants.webhooks.createSubmit')}
              </Button>
            </div>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
