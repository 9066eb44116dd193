import { useMutation, useQueryClient, type UseMutationResult } from '@tanstack/react-query';
import { Check, Copy, Loader2 } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { DialogForm, FormDialog } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { Input } from '../../../components/ui/input';
import { ApiError, messageOf } from '../../../lib/api';
import { authErrorText } from '../../../lib/auth-errors';
import { USER_QUERY_KEY, type User } from '../../auth/api';
import { confirmTwoFactorRequest, disableTwoFactorRequest, TOTP_CODE_RE, type TwoFactorSetup } from '../api';
import { CodeInput } from './code-input';
import { QrCode } from './qr-code';

function useCodeErrorText() {
  const t = useT();
  return (error: unknown): string =>
    error instanceof ApiError && error.code === 'invalid_two_factor_code'
      ? t('settings.2fa.invalidCode')
      : (authErrorText(t, error) ?? t('settings.2fa.failed'));
}

/** Copies the secret and says so for two seconds (announced to screen readers). */
function CopyButton({ text }: { text: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      toast({ title: t('settings.2fa.copyFailed'), variant: 'destructive' });
    }
  }
  return (
    <Button variant="outline" size="sm" onClick={copy} aria-label={t('settings.2fa.copySecret')}>
      {copied ? <Check className="h-4 w-4 text-green-600" aria-hidden /> : <Copy className="h-4 w-4" aria-hidden />}
      <span aria-live="polite">{copied ? t('settings.2fa.copied') : t('settings.2fa.copy')}</span>
    </Button>
  );
}

/**
 * Enrolment: the parent starts POST /2fa/setup when the user presses Enable (so opening is the only trigger);
 * this dialog shows the QR code and secret, then confirms with a code from the app.
 */
export function EnableTwoFactorDialog({
  open,
  onOpenChange,
  setup,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  setup: UseMutationResult<TwoFactorSetup, Error, void>;
}) {
  const t = useT();
  const qc = useQueryClient();
  const errorText = useCodeErrorText();
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | undefined>();

  const confirm = useMutation({
    mutationFn: confirmTwoFactorRequest,
    onSuccess: (user: User) => {
      qc.setQueryData(USER_QUERY_KEY, user);
      toast({ title: t('settings.2fa.enabledToast'), description: t('settings.2fa.enabledToastBody') });
      close(false);
    },
    onError: (error) => setCodeError(errorText(error)),
  });

  function close(next: boolean) {
    if (!next) {
      setCode('');
      setCodeError(undefined);
      confirm.reset();
    }
    onOpenChange(next);
  }

  function onSubmit() {
    if (!TOTP_CODE_RE.test(code)) {
      setCodeError(t('settings.2fa.codeRequired'));
      return;
    }
    setCodeError(undefined);
    confirm.mutate(code);
  }

  const data = setup.data;
  return (
    <FormDialog
      open={open}
      onOpenChange={close}
      testId="2fa-enable-dialog"
      closeLabel={t('settings.close')}
      title={t('settings.2fa.enableTitle')}
      description={t('settings.2fa.enableDescription')}
    >
      {setup.isPending && (
        <p className="flex items-center gap-2 py-8 text-sm text-slate-600" aria-busy="true">
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
          {t('settings.2fa.preparing')}
        </p>
      )}
      {setup.isError && (
        <div className="space-y-3 py-4" role="alert">
          <p className="text-sm text-red-600">{messageOf(setup.error) ?? t('settings.2fa.setupFailed')}</p>
          <Button variant="outline" onClick={() => setup.mutate()}>
            {t('settings.retry')}
          </Button>
        </div>
      )}
      {data && (
        <DialogForm
          onSubmit={onSubmit}
          className="space-y-5"
          submit={{
            label: t('settings.2fa.verifyAndEnable'),
            pendingLabel: t('settings.2fa.verifying'),
            pending: confirm.isPending,
            disabled: code.length !== 6,
            testId: '2fa-confirm',
          }}
          cancel={{ label: t('settings.cancel'), onClick: () => close(false) }}
        >
          <ol className="space-y-5 text-sm text-slate-700">
            <li className="space-y-3">
              <p>
                <span className="font-semibold text-slate-900">1. </span>
                {t('settings.2fa.step1')}
              </p>
              <div className="flex justify-center">
                <QrCode value={data.otpauthUrl} alt={t('settings.2fa.qrAlt')} />
              </div>
            </li>
            <li className="space-y-2">
              <p>
                <span className="font-semibold text-slate-900">2. </span>
                {t('settings.2fa.step2')}
              </p>
              <div className="flex items-center gap-2 rounded-md border border-slate-200 bg-slate-50 p-2">
                <code
                  className="min-w-0 flex-1 select-all break-all px-1 font-mono text-sm text-slate-900"
                  dir="ltr"
                  data-testid="2fa-secret"
                  aria-label={t('settings.2fa.secretLabel')}
                >
                  {data.secret}
                </code>
                <CopyButton text={data.secret} />
              </div>
            </li>
            <li className="space-y-2">
              <p>
                <span className="font-semibold text-slate-900">3. </span>
                {t('settings.2fa.step3')}
              </p>
              <CodeInput
                id="two-factor-enable-code"
                label={t('settings.2fa.codeLabel')}
                placeholder={t('settings.2fa.codePlaceholder')}
                value={code}
                onChange={(v) => {
                  setCode(v);
                  setCodeError(undefined);
                }}
                error={codeError}
                testId="2fa-code"
              />
            </li>
          </ol>
        </DialogForm>
      )}
    </FormDialog>
  );
}

/** Turning two-factor off needs the current password and a current code from the app (POST /2fa/disable). */
export function DisableTwoFactorDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const t = useT();
  const qc = useQueryClient();
  const errorText = useCodeErrorText();
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | undefined>();
  const [password, setPassword] = useState('');
  const [passwordError, setPasswordError] = useState<string | undefined>();

  const disable = useMutation({
    mutationFn: disableTwoFactorRequest,
    onSuccess: (user: User) => {
      qc.setQueryData(USER_QUERY_KEY, user);
      toast({ title: t('settings.2fa.disabledToast'), description: t('settings.2fa.disabledToastBody') });
      close(false);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.code === 'invalid_current_password') {
        setPasswordError(t('settings.currentPasswordWrong'));
      } else {
        setCodeError(errorText(error));
      }
    },
  });

  function close(next: boolean) {
    if (!next) {
      setCode('');
      setCodeError(undefined);
      setPassword('');
      setPasswordError(undefined);
      disable.reset();
    }
    onOpenChange(next);
  }

  function onSubmit() {
    const badCode = !TOTP_CODE_RE.test(code);
    setCodeError(badCode ? t('settings.2fa.codeRequired') : undefined);
    setPasswordError(password ? undefined : t('settings.currentPasswordRequired'));
    if (badCode || !password) return;
    disable.mutate({ code, password });
  }

  return (
    <FormDialog
      open={open}
      onOpenChange={close}
      testId="2fa-disable-dialog"
      closeLabel={t('settings.close')}
      title={t('settings.2fa.disableTitle')}
      description={t('settings.2fa.disableDescription')}
    >
      <DialogForm
        onSubmit={onSubmit}
        className="space-y-5"
        submit={{
          label: t('settings.2fa.disable'),
          pendingLabel: t('settings.2fa.disabling'),
          pending: disable.isPending,
          disabled: code.length !== 6 || !password,
          variant: 'destructive',
          testId: '2fa-disable-confirm',
        }}
        cancel={{ label: t('settings.cancel'), onClick: () => close(false) }}
      >
        <FormField id="two-factor-disable-password" label={t('settings.2fa.passwordLabel')} error={passwordError} className="space-y-2">
          {(control) => (
            <Input
              {...control}
              name="password"
              type="password"
              autoComplete="current-password"
              maxLength={256}
              data-testid="2fa-disable-password"
              value={password}
              onChange={(e) => {
                setPassword(e.target.value);
                setPasswordError(undefined);
              }}
            />
          )}
        </FormField>
        <CodeInput
          id="two-factor-disable-code"
          label={t('settings.2fa.codeLabel')}
          placeholder={t('settings.2fa.codePlaceholder')}
          value={code}
          onChange={(v) => {
            setCode(v);
            setCodeError(undefined);
          }}
          error={codeError}
          testId="2fa-disable-code"
        />
      </DialogForm>
    </FormDialog>
  );
}
