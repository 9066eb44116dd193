import { useState } from 'react';
import { DialogForm } from '../../../components/ui/dialog-form';
import { FieldError, FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { useT } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { followField, type FieldErrors } from '../../../lib/form-errors';
import { endpointFormProblems, eventChoicesFor, WEBHOOK_EVENT_CHOICES, type EndpointField, type EndpointFormValues } from '../webhooks';

type FormField = EndpointField | 'description';
/** The server's param names, mapped to the form's fields. */
const FIELD_OF_PARAM: Record<string, FormField> = { url: 'url', enabled_events: 'events', description: 'description' };

/**
 * The endpoint's URL, events and description (and, when editing, whether it is enabled). Errors show under their
 * field after a submit and follow the field as it is corrected; the server's refusals (its URL policy, say) land
 * under the field they name.
 */
export function WebhookEndpointForm({
  initial,
  live,
  editing,
  submitLabel,
  pending,
  canSubmit = () => true,
  onSubmit,
  onCancel,
  testIdPrefix,
  submitTestId,
}: {
  initial: EndpointFormValues;
  live: boolean;
  /** Shows the enabled switch, and offers the events the endpoint already has. */
  editing: boolean;
  submitLabel: string;
  pending: boolean;
  /** Whether submitting makes sense now (an edit that changes nothing does not). */
  canSubmit?(values: EndpointFormValues): boolean;
  /** Sends the values; a refusal it throws is shown under its field. */
  onSubmit(values: EndpointFormValues): Promise<unknown>;
  onCancel(): void;
  testIdPrefix: 'webhook' | 'webhook-edit';
  submitTestId: string;
}) {
  const t = useT();
  const [values, setValues] = useState<EndpointFormValues>(initial);
  const [errors, setErrors] = useState<FieldErrors<FormField>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const choices = eventChoicesFor(editing ? initial.chosen : [], WEBHOOK_EVENT_CHOICES);
  const id = (name: string) => `${testIdPrefix}-${name}`;

  /** Changes the values; the changed field, if it shows an error, is judged again at once. */
  function change(next: Partial<EndpointFormValues>, field?: FormField) {
    const updated = { ...values, ...next };
    setValues(updated);
    setFormError(null);
    if (!field) return;
    // The description has no rule of its own here (its length is capped by the input); only the server judges it.
    const problem = field === 'description' ? null : endpointFormProblems(updated, live)[field];
    setErrors((shown) => followField(shown, field, problem ? t(problem) : null));
  }

  async function submit() {
    if (pending) return;
    const problems = endpointFormProblems(values, live);
    const shown: FieldErrors<FormField> = {};
    for (const [field, key] of Object.entries(problems) as Array<[EndpointField, NonNullable<(typeof problems)[EndpointField]>]>) {
      shown[field] = t(key);
    }
    setErrors(shown);
    setFormError(null);
    if (Object.keys(shown).length > 0) {
      document.getElementById(id(shown.url ? 'url' : 'event-all'))?.focus();
      return;
    }
    try {
      await onSubmit(values);
    } catch (error) {
      const param = error instanceof ApiError ? error.param : undefined;
      const field = param ? FIELD_OF_PARAM[param] : undefined;
      const message = messageOf(error) ?? t('merchants.webhooks.createFailed');
      if (field) setErrors({ [field]: message });
      else setFormError(message);
    }
  }


  return (
    <DialogForm
      onSubmit={submit}
      submit={{ label: submitLabel, pending, disabled: !canSubmit(values), testId: submitTestId }}
      cancel={{ label: t('common.cancel'), onClick: onCancel, disabled: pending }}
    >
      <FormField
        id={id('url')}
        label={t('merchants.webhooks.url')}
        description={live ? t('merchants.webhooks.urlHintLive') : t('merchants.webhooks.urlHintTest')}
        error={errors.url}
        errorTestId={id('url-error')}
      >
        {(control) => (
          <Input
            {...control}
            data-testid={id('url')}
            type="url"
            dir="ltr"
            placeholder="https://shop.example/bpay/webhook"
            value={values.url}
            maxLength={2048}
            onChange={(e) => change({ url: e.target.value }, 'url')}
            autoFocus
          />
        )}
      </FormField>
      <fieldset className="space-y-2" aria-invalid={!!errors.events} aria-describedby={errors.events ? id('events-error') : undefined}>
        <legend className="mb-1 text-sm font-medium text-slate-700">{t('merchants.webhooks.events')}</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            id={id('event-all')}
            type="checkbox"
            className="h-4 w-4 accent-brand-600"
            checked={values.all}
            onChange={(e) => change({ all: e.target.checked }, 'events')}
            data-testid={id('event-all')}
          />
          {t('merchants.webhooks.allEvents')}
        </label>
        {choices.map((ev) => (
          <label key={ev} className={`flex items-center gap-2 ps-6 text-sm ${values.all ? 'text-slate-400' : ''}`}>
            <input
              type="checkbox"
              className="h-4 w-4 accent-brand-600"
              disabled={values.all}
              checked={values.all || values.chosen.includes(ev)}
              onChange={(e) =>
                change({ chosen: e.target.checked ? [...values.chosen, ev] : values.chosen.filter((x) => x !== ev) }, 'events')
              }
              data-testid={id(`event-${ev}`)}
            />
            <code className="font-mono text-xs" dir="ltr">
              {ev}
            </code>
          </label>
        ))}
        <FieldError id={id('events-error')} testId={id('events-error')}>
          {errors.events}
        </FieldError>
      </fieldset>
      <FormField id={id('description')} label={t('merchants.webhooks.descriptionLabel')} error={errors.description} errorTestId={id('description-error')}>
        {(control) => (
          <Input
            {...control}
            data-testid={id('description')}
            value={values.description}
            maxLength={500}
            placeholder={t('merchants.webhooks.descriptionPlaceholder')}
            onChange={(e) => change({ description: e.target.value }, 'description')}
          />
        )}
      </FormField>
      {editing && (
        <div className="flex items-center justify-between gap-4 rounded-lg border border-slate-200 p-3">
          <div className="space-y-0.5">
            <Label htmlFor={id('enabled')}>{t('merchants.webhookEdit.enabled')}</Label>
            <p id={id('enabled-hint')} className="text-xs text-slate-500">
              {values.enabled ? t('merchants.webhookEdit.enabledHint') : t('merchants.webhookEdit.disabledHint')}
            </p>
          </div>
          <Switch
            id={id('enabled')}
            checked={values.enabled}
            onCheckedChange={(enabled) => change({ enabled })}
            aria-describedby={id('enabled-hint')}
            data-testid={id('enabled')}
          />
        </div>
      )}
      {formError && (
        <p className="text-sm text-red-600" role="alert" data-testid={id('error')}>
          {formError}
        </p>
      )}
    </DialogForm>
  );
}
