import { useMutation, useQueryClient } from '@tanstack/react-query';
import { CheckCircle2, Loader2, ShieldCheck } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { DialogForm, FormDialog } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { toast } from '../../../components/ui/use-toast';
import { useT, type MessageKey } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { useAuth } from '../../auth/auth-context';
import {
  createFundingSourceRequest,
  fundingSourcesQuery,
  isRequiresAction,
  verifyFundingSourceRequest,
  type FundingSource,
  type SourcePlan,
} from '../api';
import {
  detectBrand,
  digitsOnly,
  formatCardNumber,
  formatCvv,
  formatExpiry,
  toCreateBody,
  validateCardForm,
  type CardField,
  type CardFieldError,
  type CardForm,
  type CardFormErrors,
} from '../card-format';
import { isAtLimit } from '../plan-limit';
import { CardFormFields } from './card-form-fields';
import { PlanLimitBanner } from './plan-limit-banner';

/** Spec §4: form, then 3ds, then processing, then complete. */
type Step = 'form' | '3ds' | 'processing' | 'complete';

/** Spec §9: simulated waits (Demo Mode only) and the close delay after success. */
const SIMULATED_3DS_MS = 3000;
const SIMULATED_PROCESSING_MS = 2000;
const CLOSE_DELAY_MS = 2000;

const fieldErrorText: Record<CardFieldError, MessageKey> = {
  cardNumberInvalid: 'fundingSources.form.error.cardNumber',
  expiryInvalid: 'fundingSources.form.error.expiry',
  expiryPast: 'fundingSources.form.error.expiryPast',
  cvvInvalid: 'fundingSources.form.error.cvv',
  nameRequired: 'fundingSources.form.error.name',
  splitRequired: 'fundingSources.form.error.splitRequired',
  splitRange: 'fundingSources.form.error.splitRange',
};

/** Which field a server answer is about: a validation error's `param`, or a decline that names one. */
function serverField(error: ApiError): CardField | undefined {
  const param = error.param;
  const byParam: Record<string, CardField> = {
    cardNumber: 'cardNumber',
    expiryMonth: 'expiry',
    expiryYear: 'expiry',
    cvv: 'cvv',
    name: 'name',
    defaultSplitPercentage: 'splitPercentage',
  };
  if (typeof param === 'string' && byParam[param]) return byParam[param];
  const byCode: Record<string, CardField> = {
    incorrect_cvc: 'cvv',
    expired_card: 'expiry',
    incorrect_number: 'cardNumber',
    name_mismatch: 'name',
  };
  return error.code ? byCode[error.code] : undefined;
}

function emptyForm(name: string): CardForm {
  return { cardNumber: '', expiry: '', cvv: '', name, splitPercentage: '' };
}

/**
 * Add Funding Source (spec §2, §4): the card form with the plan banner; a 3-D Secure code step when the bank asks
 * for one (202 requires_action); a processing state while the request runs; then complete, and the dialog closes
 * 2 s later. With `simulate` (Demo mode) nothing is sent: the spec's simulated 3 s and 2 s waits play instead.
 */
export function AddFundingSourceDialog({
  open,
  onOpenChange,
  plan,
  sourceCount,
  simulate = false,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  plan: SourcePlan | undefined;
  sourceCount: number;
  simulate?: boolean;
}) {
  const t = useT();
  const qc = useQueryClient();
  const { user } = useAuth();
  const accountName = [user?.firstName, user?.lastName]
    .map((p) => p?.trim() ?? '')
    .filter(Boolean)
    .join(' ');

  const [step, setStep] = useState<Step>('form');
  const [form, setForm] = useState<CardForm>(() => emptyForm(accountName));
  const [errors, setErrors] = useState<CardFormErrors>({});
  const [serverErrors, setServerErrors] = useState<Partial<Record<CardField, string>>>({});
  const [verification, setVerification] = useState<{ id: string } | null>(null);
  const [code, setCode] = useState('');
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);

  const clearTimers = () => {
    for (const id of timers.current) clearTimeout(id);
    timers.current = [];
  };
  const later = (ms: number, fn: () => void) => {
    timers.current.push(setTimeout(fn, ms));
  };
  useEffect(() => clearTimers, []);

  // Every opening starts from a clean form, the cardholder name prefilled with the account's name.
  useEffect(() => {
    if (!open) return;
    clearTimers();
    setStep('form');
    setForm(emptyForm(accountName));
    setErrors({});
    setServerErrors({});
    setVerification(null);
    setCode('');
    // Only an opening resets: the account name is read then, so a profile edit meanwhile cannot wipe the form.
  }, [open]);

  const brand = detectBrand(form.cardNumber);
  const atLimit = !simulate && isAtLimit(plan, sourceCount);

  function succeed(title: string, description: string) {
    toast({ title, description });
    setStep('complete');
    // Spec §4: the modal resets, and 2 s later returns to the form and closes.
    setForm(emptyForm(accountName));
    setVerification(null);
    setCode('');
    later(CLOSE_DELAY_MS, () => {
      setStep('form');
      onOpenChange(false);
    });
  }

  function added(source: FundingSource) {
    qc.setQueryData(fundingSourcesQuery().queryKey, (list) => (list ? [...list, source] : list));
    void qc.invalidateQueries({ queryKey: fundingSourcesQuery().queryKey });
    succeed(t('fundingSources.toast.added'), t('fundingSources.toast.addedBody'));
  }

  function failed(error: unknown) {
    const message = error instanceof ApiError ? error.serverMessage : undefined;
    toast({
      title: t('fundingSources.toast.addFailed'),
      description: message ?? t('fundingSources.toast.addFailedFallback'),
      variant: 'destructive',
    });
    if (error instanceof ApiError && message) {
      const field = serverField(error);
      if (field) setServerErrors({ [field]: message });
    }
    setVerification(null);
    setCode('');
    setStep('form');
  }

  const create = useMutation({
    mutationFn: createFundingSourceRequest,
    onSuccess: (answer) => {
      if (isRequiresAction(answer)) {
        // The server's message is English only; the step explains the same in the reader's language.
        setVerification({ id: answer.verificationId });
        setCode('');
        setStep('3ds');
      } else {
        added(answer);
      }
    },
    onError: failed,
  });

  const verify = useMutation({
    mutationFn: ({ id, code: c }: { id: string; code: string }) => verifyFundingSourceRequest(id, c),
    onSuccess: added,
    onError: failed,
  });

  function update(field: CardField, value: string) {
    setForm((f) => {
      switch (field) {
        case 'cardNumber': {
          const cardNumber = formatCardNumber(value);
          // A shorter CVV is needed when the brand stops being American Express.
          return { ...f, cardNumber, cvv: formatCvv(f.cvv, detectBrand(cardNumber)) };
        }
        case 'expiry':
          return { ...f, expiry: formatExpiry(value) };
        case 'cvv':
          return { ...f, cvv: formatCvv(value, detectBrand(f.cardNumber)) };
        case 'splitPercentage':
          return { ...f, splitPercentage: value.replace(/[^\d.]/g, '').slice(0, 6) };
        default:
          return { ...f, [field]: value };
      }
    });
    setErrors((e) => ({ ...e, [field]: undefined }));
    setServerErrors((e) => ({ ...e, [field]: undefined }));
  }

  function onSubmit() {
    if (atLimit || create.isPending) return;
    const found = validateCardForm(form, new Date());
    setErrors(found);
    setServerErrors({});
    const first = (['cardNumber', 'expiry', 'cvv', 'name', 'splitPercentage'] as const).find((f) => found[f]);
    if (first) {
      document.getElementById(`add-card-${first}`)?.focus();
      return;
    }
    if (simulate) {
      setStep('3ds');
      later(SIMULATED_3DS_MS, () => setStep('processing'));
      later(SIMULATED_3DS_MS + SIMULATED_PROCESSING_MS, () =>
        succeed(t('fundingSources.toast.demoTitle'), t('fundingSources.toast.demoBody')),
      );
      return;
    }
    setStep('processing');
    create.mutate(toCreateBody(form));
  }

  function onVerify() {
    if (!verification || code.length !== 6 || verify.isPending) return;
    setStep('processing');
    verify.mutate({ id: verification.id, code });
  }

  function close(next: boolean) {
    if (!next) clearTimers();
    onOpenChange(next);
  }

  const errorText = (field: CardField): string | undefined => {
    const server = serverErrors[field];
    if (server) return server;
    const code = errors[field];
    return code ? t(fieldErrorText[code]) : undefined;
  };

  return (
    <FormDialog
      open={open}
      onOpenChange={close}
      testId="add-funding-source-dialog"
      dataAttributes={{ 'data-step': step }}
      title={t('fundingSources.add.title')}
      description={simulate ? t('fundingSources.add.demoDescription') : t('fundingSources.add.description')}
    >
      {step === 'form' && (
        <DialogForm
          onSubmit={onSubmit}
          submit={{ label: atLimit ? t('fundingSources.limitReached') : t('fundingSources.form.submit'), disabled: atLimit, testId: 'add-card-submit' }}
          cancel={{ label: t('common.cancel'), onClick: () => close(false) }}
        >
          <PlanLimitBanner plan={plan} count={sourceCount} isDemo={simulate} />
          <CardFormFields
            form={form}
            brand={brand}
            errorText={errorText}
            onChange={update}
            showNameHint={!!plan?.nameVerificationRequired && !plan.isKycVerified}
          />
        </DialogForm>
      )}

      {step === '3ds' && simulate && (
        <div className="flex flex-col items-center gap-3 py-8 text-center" role="status" aria-live="polite">
          <ShieldCheck className="h-10 w-10 text-brand-600" aria-hidden />
          <p className="font-medium text-slate-900">{t('fundingSources.3ds.title')}</p>
          <p className="flex items-center gap-2 text-sm text-slate-500">
            <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
            {t('fundingSources.3ds.simulating')}
          </p>
        </div>
      )}

      {step === '3ds' && !simulate && verification && (
        <DialogForm
          onSubmit={onVerify}
          submit={{ label: t('fundingSources.3ds.submit'), disabled: code.length !== 6, testId: '3ds-submit' }}
          cancel={{
            label: t('common.cancel'),
            onClick: () => {
              setVerification(null);
              setStep('form');
            },
          }}
        >
          <div className="flex items-start gap-3 rounded-lg border border-brand-100 bg-brand-50 p-4">
            <ShieldCheck className="mt-0.5 h-5 w-5 shrink-0 text-brand-600" aria-hidden />
            <div className="space-y-1">
              <p className="font-medium text-slate-900">{t('fundingSources.3ds.title')}</p>
              <p className="text-sm text-slate-600">{t('fundingSources.3ds.body')}</p>
            </div>
          </div>
          <FormField id="add-card-3ds-code" label={t('fundingSources.3ds.codeLabel')}>
            {({ id }) => (
              <Input
                id={id}
                data-testid="3ds-code"
                inputMode="numeric"
                autoComplete="one-time-code"
                // No maxLength: a pasted "123 456" must not be cut before the spaces are dropped.
                dir="ltr"
                placeholder="000000"
                className="text-center font-mono text-lg tracking-[0.4em]"
                value={code}
                onChange={(e) => setCode(digitsOnly(e.target.value, 6))}
                autoFocus
              />
            )}
          </FormField>
        </DialogForm>
      )}

      {step === 'processing' && (
        <div
          className="flex flex-col items-center gap-3 py-10 text-center"
          role="status"
          aria-live="polite"
          aria-busy="true"
          data-testid="add-card-processing"
        >
          <Loader2 className="h-10 w-10 animate-spin text-brand-600" aria-hidden />
          <p className="font-medium text-slate-900">{t('fundingSources.processing.title')}</p>
          <p className="text-sm text-slate-500">{t('fundingSources.processing.body')}</p>
        </div>
      )}

      {step === 'complete' && (
        <div
          className="flex flex-col items-center gap-3 py-10 text-center"
          role="status"
          aria-live="polite"
          data-testid="add-card-complete"
        >
          <CheckCircle2 className="h-12 w-12 text-green-600" aria-hidden />
          <p className="font-medium text-slate-900">
            {simulate ? t('fundingSources.complete.demoTitle') : t('fundingSources.complete.title')}
          </p>
          <p className="text-sm text-slate-500">
            {simulate ? t('fundingSources.toast.demoBody') : t('fundingSources.toast.addedBody')}
          </p>
        </div>
      )}
    </FormDialog>
  );
}
