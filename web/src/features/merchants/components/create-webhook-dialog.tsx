import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { FormDialog } from '../../../components/ui/dialog-form';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import {
  createWebhookEndpointRequest,
  webhookEndpointsQuery,
  type CreatedWebhookEndpoint,
  type CreateWebhookEndpointBody,
  type Merchant,
} from '../api';
import { enabledEventsFor, type EndpointFormValues } from '../webhooks';
import { SecretReveal } from './secret-reveal';
import { WebhookEndpointForm } from './webhook-endpoint-form';

const EMPTY: EndpointFormValues = { url: '', all: true, chosen: [], description: '', enabled: true };

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
  const [created, setCreated] = useState<CreatedWebhookEndpoint | null>(null);
  // A fresh form each time the dialog opens.
  const [formKey, setFormKey] = useState(0);
  const live = merchant.environment === 'production';

  useEffect(() => {
    if (!open) return;
    setCreated(null);
    setFormKey((k) => k + 1);
  }, [open]);

  const create = useMutation({
    mutationFn: (values: EndpointFormValues) =>
      createWebhookEndpointRequest(merchant.id, {
        url: values.url.trim(),
        // The form offers only event names the server gave or the typed choices (WEBHOOK_EVENT_CHOICES).
        enabled_events: enabledEventsFor(values.all, values.chosen) as CreateWebhookEndpointBody['enabled_events'],
        ...(values.description.trim() ? { description: values.description.trim() } : {}),
      }),
    onSuccess: (endpoint) => {
      void qc.invalidateQueries({ queryKey: webhookEndpointsQuery(merchant.id).queryKey });
      setCreated(endpoint);
      toast({ title: t('merchants.webhooks.createdToast'), description: t('merchants.webhooks.createdToastBody') });
    },
    onError: (e) => toast({ title: t('merchants.webhooks.createFailed'), description: messageOf(e), variant: 'destructive' }),
  });

  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      busy={create.isPending}
      testId="create-webhook-dialog"
      title={created ? t('merchants.webhooks.createdTitle') : t('merchants.webhooks.createTitle')}
      description={created ? t('merchants.webhooks.createdDescription') : t('merchants.webhooks.createDescription')}
    >
      {created ? (
        <div className="space-y-4">
          <SecretReveal
            title={t('merchants.webhooks.secretTitle')}
            secret={created.secret ?? ''}
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
        <WebhookEndpointForm
          key={formKey}
          initial={EMPTY}
          live={live}
          editing={false}
          submitLabel={t('merchants.webhooks.createSubmit')}
          submitTestId="webhook-create-submit"
          pending={create.isPending}
          onSubmit={(values) => create.mutateAsync(values)}
          onCancel={() => onOpenChange(false)}
          testIdPrefix="webhook"
        />
      )}
    </FormDialog>
  );
}
