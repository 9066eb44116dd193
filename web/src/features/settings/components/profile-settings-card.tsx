import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Loader2, UserRound } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { authErrorText } from '../../../lib/auth-errors';
import { isEmail } from '../../../lib/validation';
import { updateProfileRequest, USER_QUERY_KEY, type User } from '../../auth/api';
import { useCountryOptions } from '../../../lib/countries';
import { PENDING_EMAIL_CHANGE_KEY } from '../../email-change/api';
import { isolate } from '../../email-change/isolate';
import { PendingEmailChange } from './pending-email-change';

interface ProfileForm {
  firstName: string;
  lastName: string;
  email: string;
  country: string;
}

const fromUser = (user: User): ProfileForm => ({
  firstName: user.firstName ?? '',
  lastName: user.lastName ?? '',
  email: user.email,
  country: (user.country ?? '').toUpperCase(),
});

const selectClasses =
  'flex h-10 w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 disabled:cursor-not-allowed disabled:opacity-50';

const REAUTH_CODES = new Set(['current_password_required', 'invalid_current_password', 'verification_rate_limited']);

/**
 * Settings > Profile Settings: names, e-mail and country, saved with one PATCH /api/auth/user. A new e-mail address
 * (not just another letter case) needs the current password, asked for only then.
 */
export function ProfileSettingsCard({ user }: { user: User }) {
  const { t } = useLanguage();
  const qc = useQueryClient();
  const [form, setForm] = useState<ProfileForm>(() => fromUser(user));
  const [emailError, setEmailError] = useState(false);
  const [currentPassword, setCurrentPassword] = useState('');
  const [currentPasswordError, setCurrentPasswordError] = useState<string | undefined>();
  const emailChanges = form.email.trim().toLowerCase() !== user.email.toLowerCase();

  const save = useMutation({
    mutationFn: updateProfileRequest,
    onSuccess: (updated, sent) => {
      qc.setQueryData(USER_QUERY_KEY, updated);
      setForm(fromUser(updated));
      setCurrentPassword('');
      setCurrentPasswordError(undefined);
      // A new address is not the account's yet: a link went to it, and the change waits for it (issue 25).
      const asked = sent.email !== undefined && sent.email.toLowerCase() !== updated.email.toLowerCase() ? sent.email : null;
      if (asked) {
        void qc.invalidateQueries({ queryKey: PENDING_EMAIL_CHANGE_KEY });
        toast({ title: t('emailChange.toast.sent'), description: t('emailChange.toast.sentBody', { email: isolate(asked) }) });
      } else toast({ title: t('settings.toast.updated') });
    },
    onError: (error) => {
      const text = authErrorText(t, error);
      if (error instanceof ApiError && error.code && REAUTH_CODES.has(error.code)) setCurrentPasswordError(text);
      toast({
        title: t('settings.toast.updateFailed'),
        description: text ?? t('settings.toast.updateFailedBody'),
        variant: 'destructive',
      });
    },
  });

  // The one Country list (the profile address offers the same), "not set" first.
  const options = useCountryOptions(form.country, { none: true });

  const set = (field: keyof ProfileForm) => (value: string) => setForm((f) => ({ ...f, [field]: value }));

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const email = form.email.trim();
    const bad = !isEmail(email);
    setEmailError(bad);
    const needsPassword = emailChanges && !currentPassword;
    setCurrentPasswordError(needsPassword ? t('settings.currentPasswordRequired') : undefined);
    if (bad || needsPassword) return;
    save.mutate({
      firstName: form.firstName.trim(),
      lastName: form.lastName.trim(),
      email,
      country: form.country,
      ...(emailChanges ? { currentPassword } : {}),
    });
  }

  return (
    <Card>
      <CardHeader>
        <div className="flex items-center gap-3">
          <span className="flex h-9 w-9 items-center justify-center rounded-lg bg-brand-50 text-brand-600" aria-hidden>
            <UserRound className="h-5 w-5" />
          </span>
          <div>
            <CardTitle level={2}>{t('settings.profile.title')}</CardTitle>
            <CardDescription>{t('settings.profile.description')}</CardDescription>
          </div>
        </div>
      </CardHeader>
      <CardContent>
        <form onSubmit={onSubmit} noValidate className="space-y-4" aria-label={t('settings.profile.title')}>
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="space-y-2">
              <Label htmlFor="settings-firstName">{t('settings.profile.firstName')}</Label>
              <Input
                id="settings-firstName"
                dir="auto"
                name="firstName"
                autoComplete="given-name"
                maxLength={100}
                value={form.firstName}
                onChange={(e) => set('firstName')(e.target.value)}
              />
            </div>
            <div className="space-y-2">
              <Label htmlFor="settings-lastName">{t('settings.profile.lastName')}</Label>
              <Input
                id="settings-lastName"
                dir="auto"
                name="lastName"
                autoComplete="family-name"
                maxLength={100}
                value={form.lastName}
                onChange={(e) => set('lastName')(e.target.value)}
              />
            </div>
          </div>
          <div className="space-y-2">
            <Label htmlFor="settings-email">{t('settings.profile.email')}</Label>
            <Input
              id="settings-email"
              name="email"
              type="email"
              autoComplete="email"
              dir="ltr"
              maxLength={254}
              value={form.email}
              onChange={(e) => {
                set('email')(e.target.value);
                setEmailError(false);
              }}
              aria-invalid={emailError}
              aria-describedby={emailError ? 'settings-email-error' : undefined}
            />
            {emailError && (
              <p id="settings-email-error" role="alert" className="text-xs text-red-600">
                {t('settings.profile.emailInvalid')}
              </p>
            )}
            <PendingEmailChange currentEmail={user.email} />
          </div>
          {emailChanges && (
            <div className="space-y-2">
              <Label htmlFor="settings-current-password">{t('settings.profile.currentPassword')}</Label>
              <p id="settings-current-password-help" className="text-xs text-slate-500">
                {t('settings.profile.currentPasswordHelp')}
              </p>
              <Input
                id="settings-current-password"
                name="currentPassword"
                type="password"
                autoComplete="current-password"
                maxLength={256}
                value={currentPassword}
                onChange={(e) => {
                  setCurrentPassword(e.target.value);
                  setCurrentPasswordError(undefined);
                }}
                aria-invalid={!!currentPasswordError}
                aria-describedby={
                  currentPasswordError
                    ? 'settings-current-password-help settings-current-password-error'
                    : 'settings-current-password-help'
                }
              />
              {currentPasswordError && (
                <p id="settings-current-password-error" role="alert" className="text-xs text-red-600">
                  {currentPasswordError}
                </p>
              )}
            </div>
          )}
          <div className="space-y-2">
            <Label htmlFor="settings-country">{t('settings.profile.country')}</Label>
            <select
              id="settings-country"
              name="country"
              className={selectClasses}
              value={form.country}
              onChange={(e) => set('country')(e.target.value)}
            >
              {options.map((o) => (
                <option key={o.code || 'none'} value={o.code}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
          <div className="flex justify-end pt-2">
            <Button type="submit" disabled={save.isPending} data-testid="settings-save">
              {save.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
              {save.isPending ? t('settings.profile.saving') : t('settings.profile.save')}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
