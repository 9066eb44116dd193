import { useMutation, useQueryClient } from '@tanstack/react-query';
import { FormDialog } from '../../../components/ui/dialog-form';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { updateWebhookEndpointRequest, webhookEndpointsQuery, type Merchant, type WebhookEndpoint } from '../api';
import { endpointChanges, formValuesOf, type EndpointFormValues } from '../webhooks';
import { WebhookEndpointForm } from './webhook-endpoint-form';

/**
 * Edit an endpoint: its URL, events, description, and whether it is enabled. Only what changed is sent; the server
 * checks a new URL against the same rules as at creation (https and a public address in live mode).
 */
export function EditWebhookDialog({
  merchant,
  endpoint,
  onClose,
}: {
  merchant: Merchant;
  endpoint: WebhookEndpoint | null;
  onClose(): void;
}) {
  const t = useT();
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: ({ id, values, current }: { id: string; values: EndpointFormValues; current: WebhookEndpoint }) =>
      updateWebhookEndpointRequest(merchant.id, id, endpointChanges(current, values)),
    onSuccess: (updated) => {
      qc.setQueryData(webhookEndpointsQuery(merchant.id).queryKey, (list) => list?.map((e) => (e.id === updated.id ? updated : e)));
      void qc.invalidateQueries({ queryKey: webhookEndpointsQuery(merchant.id).queryKey });
      toast({ title: t('merchants.webhookEdit.savedToast'), description: updated.url });
      onClose();
    },
    onError: (e) => toast({ title: t('merchants.webhookEdit.saveFailed'), description: messageOf(e), variant: 'destructive' }),
  });

  return (
    <FormDialog
      open={endpoint !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      busy={save.isPending}
      testId="edit-webhook-dialog"
      title={t('merchants.webhookEdit.title')}
      description={t('merchants.webhookEdit.description')}
    >
      {endpoint && (
        <WebhookEndpointForm
          key={endpoint.id}
          initial={formValuesOf(endpoint)}
          live={merchant.environment === 'production'}
          editing
          submitLabel={t('merchants.webhookEdit.save')}
          submitTestId="webhook-edit-save"
          pending={save.isPending}
          canSubmit={(values) => Object.keys(endpointChanges(endpoint, values)).length > 0}
          onSubmit={(values) => save.mutateAsync({ id: endpoint.id, values, current: endpoint })}
          onCancel={onClose}
          testIdPrefix="webhook-edit"
        />
      )}
    </FormDialog>
  );
}
