import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { DialogForm, FormDialog } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { toast } from '../../../components/ui/use-toast';
import { useT, type MessageKey } from '../../../i18n';
import { ApiError, messageOf } from '../../../lib/api';
import { followField, type FieldErrors } from '../../../lib/form-errors';
import { isEmail } from '../../../lib/validation';
import {
  createMerchantRequest,
  merchantsQuery,
  type CreateMerchantBody,
  type Environment,
  type MerchantWithSecret,
  type PlatformType,
} from '../api';
import { SecretReveal } from './secret-reveal';

export const PLATFORMS: readonly PlatformType[] = ['custom', 'shopify', 'wordpress', 'woocommerce'];
export const platformLabel: Record<PlatformType, MessageKey> = {
  custom: 'merchants.platform.custom',
  shopify: 'merchants.platform.shopify',
  wordpress: 'merchants.platform.wordpress',
  woocommerce: 'merchants.platform.woocommerce',
};

const selectClass = 'h-10 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900';
type Errors = FieldErrors<'businessName' | 'businessEmail' | 'website'>;

function websiteOk(value: string): boolean {
  if (!value.trim()) return true;
  try {
    const u = new URL(value.trim());
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * Create Merchant Account: business details, platform and environment. The answer's secret key is shown here
 * once, in this dialog's state only; closing the dialog forgets it.
 */
export function CreateMerchantDialog({
  open,
  onOpenChange,
  defaultEmail,
  onCreated,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  defaultEmail: string;
  onCreated(merchantId: string): void;
}) {
  const t = useT();
  const qc = useQueryClient();
  const [form, setForm] = useState({ businessName: '', businessEmail: defaultEmail, website: '' });
  const [platformType, setPlatformType] = useState<PlatformType>('custom');
  const [environment, setEnvironment] = useState<Environment>('sandbox');
  const [errors, setErrors] = useState<Errors>({});
  const [created, setCreated] = useState<MerchantWithSecret | null>(null);

  useEffect(() => {
    if (!open) return;
    setForm({ businessName: '', businessEmail: defaultEmail, website: '' });
    setPlatformType('custom');
    setEnvironment('sandbox');
    setErrors({});
    setCreated(null);
  }, [open, defaultEmail]);

  const create = useMutation({
    mutationFn: createMerchantRequest,
    onSuccess: (merchant) => {
      // The list never carries the secret: only this answer does, and only this dialog keeps it.
      const { secretApiKey: _secret, ...listed } = merchant;
      qc.setQueryData(merchantsQuery().queryKey, (list) => (list ? [listed, ...list] : [listed]));
      void qc.invalidateQueries({ queryKey: merchantsQuery().queryKey });
      setCreated(merchant);
      onCreated(merchant.id);
      toast({ title: t('merchants.create.toast'), description: t('merchants.create.toastBody', { name: merchant.businessName }) });
    },
    onError: (error) => {
      const param = error instanceof ApiError ? error.param : undefined;
      if (param === 'website' || param === 'businessEmail' || param === 'businessName') {
        setErrors({ [param]: messageOf(error) });
      }
      toast({ title: t('merchants.create.failed'), description: messageOf(error), variant: 'destructive' });
    },
  });

  function onSubmit() {
    const next = problemsOf(form);
    setErrors(next);
    if (Object.keys(next).length || create.isPending) return;
    const body: CreateMerchantBody = {
      businessName: form.businessName.trim(),
      businessEmail: form.businessEmail.trim(),
      platformType,
      environment,
      ...(form.website.trim() ? { website: form.website.trim() } : {}),
    };
    create.mutate(body);
  }

  /** Each field's problem, in words. */
  function problemsOf(values: typeof form): Errors {
    const next: Errors = {};
    if (!values.businessName.trim()) next.businessName = t('merchants.create.error.name');
    if (!isEmail(values.businessEmail.trim())) next.businessEmail = t('merchants.create.error.email');
    if (!websiteOk(values.website)) next.website = t('merchants.create.error.website');
    return next;
  }

  const field = (k: keyof typeof form) => ({
    value: form[k],
    onChange: (e: { target: { value: string } }) => {
      const next = { ...form, [k]: e.target.value };
      setForm(next);
      // An error shown under this field goes as soon as the value is valid (or names the problem it has now).
      setErrors((shown) => followField(shown, k, problemsOf(next)[k]));
    },
  });

  return (
    <FormDialog
      open={open}
      onOpenChange={onOpenChange}
      testId="create-merchant-dialog"
      title={created ? t('merchants.create.doneTitle') : t('merchants.create.title')}
      description={created ? t('merchants.create.doneDescription') : t('merchants.create.description')}
    >
      {created ? (
        <div className="space-y-4">
          <SecretReveal
            title={t('merchants.keys.secretRevealTitle')}
            secret={created.secretApiKey}
            warning={t('merchants.keys.secretWarning')}
            copyLabel={t('merchants.keys.secret')}
            testId="merchant-secret-reveal"
          />
          <div className="space-y-1">
            <p className="text-xs font-medium text-slate-500">{t('merchants.keys.publishable')}</p>
            <code className="block break-all rounded-md bg-slate-50 px-3 py-2 font-mono text-sm" dir="ltr">
              {created.apiKey}
            </code>
          </div>
          <div className="flex justify-end">
            <Button onClick={() => onOpenChange(false)} data-testid="merchant-secret-done">
              {t('merchants.keys.savedIt')}
            </Button>
          </div>
        </div>
      ) : (
        <DialogForm
          onSubmit={onSubmit}
          submit={{
            label: t('merchants.create.submit'),
            pendingLabel: t('merchants.create.creating'),
            pending: create.isPending,
            testId: 'merchant-create-submit',
          }}
          cancel={{ label: t('common.cancel'), onClick: () => onOpenChange(false) }}
        >
          <FormField id="merchant-businessName" label={t('merchants.create.businessName')} error={errors.businessName}>
            {(control) => <Input {...control} data-testid="merchant-business-name" maxLength={120} autoFocus {...field('businessName')} />}
          </FormField>
          <FormField id="merchant-businessEmail" label={t('merchants.create.businessEmail')} error={errors.businessEmail}>
            {(control) => (
              <Input {...control} data-testid="merchant-business-email" type="email" dir="ltr" maxLength={254} {...field('businessEmail')} />
            )}
          </FormField>
          <FormField id="merchant-website" label={t('merchants.create.website')} error={errors.website}>
            {(control) => (
              <Input
                {...control}
                data-testid="merchant-website"
                type="url"
                dir="ltr"
                placeholder="https://shop.example"
                maxLength={300}
                {...field('website')}
              />
            )}
          </FormField>
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField id="merchant-platform" label={t('merchants.create.platform')}>
              {({ id }) => (
                <select
                  id={id}
                  data-testid="merchant-platform"
                  className={selectClass}
                  value={platformType}
                  onChange={(e) => setPlatformType(e.target.value as PlatformType)}
                >
                  {PLATFORMS.map((p) => (
                    <option key={p} value={p}>
                      {t(platformLabel[p])}
                    </option>
                  ))}
                </select>
              )}
            </FormField>
            <FormField id="merchant-environment" label={t('merchants.create.environment')}>
              {({ id }) => (
                <select
                  id={id}
                  data-testid="merchant-environment"
                  className={selectClass}
                  value={environment}
                  onChange={(e) => setEnvironment(e.target.value === 'production' ? 'production' : 'sandbox')}
                >
                  <option value="sandbox">{t('merchants.environment.sandbox')}</option>
                  <option value="production">{t('merchants.environment.production')}</option>
                </select>
              )}
            </FormField>
          </div>
          <p className="text-xs text-slate-500">{t('merchants.create.environmentHint')}</p>
        </DialogForm>
      )}
    </FormDialog>
  );
}
