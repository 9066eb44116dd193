import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Bell, KeyRound, LockKeyhole, ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { updateProfileRequest, USER_QUERY_KEY, type User } from '../../auth/api';
import { setupTwoFactorRequest } from '../api';
import { ChangePasswordDialog } from './change-password-dialog';
import { DisableTwoFactorDialog, EnableTwoFactorDialog } from './two-factor-dialogs';

function PasswordRow() {
  const t = useT();
  const [open, setOpen] = useState(false);
  return (
    <div className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center sm:justify-between">
      <div className="flex items-start gap-3">
        <LockKeyhole className="mt-0.5 h-5 w-5 shrink-0 text-slate-400" aria-hidden />
        <div>
          <p className="font-medium text-slate-900" id="password-title">
            {t('settings.password.title')}
          </p>
          <p className="text-sm text-slate-500">{t('settings.password.description')}</p>
        </div>
      </div>
      <Button
        variant="outline"
        className="shrink-0"
        onClick={() => setOpen(true)}
        data-testid="password-change"
        aria-describedby="password-title"
      >
        {t('settings.password.change')}
      </Button>
      <ChangePasswordDialog open={open} onOpenChange={setOpen} />
    </div>
  );
}

function TwoFactorRow({ user }: { user: User }) {
  const t = useT();
  const [enableOpen, setEnableOpen] = useState(false);
  const [disableOpen, setDisableOpen] = useState(false);
  const setup = useMutation({ mutationFn: setupTwoFactorRequest });

  function startEnrolment() {
    setup.reset();
    setup.mutate();
    setEnableOpen(true);
  }

  const enabled = user.twoFactorEnabled;
  return (
    <div className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center sm:justify-between">
      <div className="flex items-start gap-3">
        <KeyRound className="mt-0.5 h-5 w-5 shrink-0 text-slate-400" aria-hidden />
        <div>
          <div className="flex flex-wrap items-center gap-2">
            <p className="font-medium text-slate-900" id="two-factor-title">
              {t('settings.2fa.title')}
            </p>
            <Badge tone={enabled ? 'green' : 'neutral'} data-testid="2fa-status">
              {enabled ? t('settings.2fa.statusOn') : t('settings.2fa.statusOff')}
            </Badge>
          </div>
          <p className="text-sm text-slate-500">
            {enabled ? t('settings.2fa.onDescription') : t('settings.2fa.offDescription')}
          </p>
        </div>
      </div>
      {enabled ? (
        <Button
          key="disable"
          variant="outline"
          className="shrink-0"
          onClick={() => setDisableOpen(true)}
          data-testid="2fa-disable"
          aria-describedby="two-factor-title"
        >
          {t('settings.2fa.disable')}
        </Button>
      ) : (
        <Button
          className="shrink-0"
          onClick={startEnrolment}
          data-testid="2fa-enable"
          aria-describedby="two-factor-title"
        >
          {t('settings.2fa.enable')}
        </Button>
      )}
      <EnableTwoFactorDialog open={enableOpen} onOpenChange={setEnableOpen} setup={setup} />
      <DisableTwoFactorDialog open={disableOpen} onOpenChange={setDisableOpen} />
    </div>
  );
}

function LoginNotificationsRow({ user }: { user: User }) {
  const t = useT();
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: (on: boolean) => updateProfileRequest({ loginNotifications: on }),
    onSuccess: (updated) => {
      qc.setQueryData(USER_QUERY_KEY, updated);
      toast({
        title: updated.loginNotifications ? t('settings.notifications.onToast') : t('settings.notifications.offToast'),
      });
    },
    onError: (error) => {
      toast({
        title: t('settings.toast.updateFailed'),
        description: messageOf(error) ?? t('settings.toast.updateFailedBody'),
        variant: 'destructive',
      });
    },
  });
  // While saving, show the requested position; on failure it falls back to the saved one.
  const checked = save.isPending && save.variables !== undefined ? save.variables : user.loginNotifications;

  return (
    <div className="flex items-center justify-between gap-4 py-4">
      <div className="flex items-start gap-3">
        <Bell className="mt-0.5 h-5 w-5 shrink-0 text-slate-400" aria-hidden />
        <div>
          <Label htmlFor="login-notifications" className="font-medium text-slate-900">
            {t('settings.notifications.title')}
          </Label>
          <p id="login-notifications-description" className="text-sm text-slate-500">
            {t('settings.notifications.description')}
          </p>
        </div>
      </div>
      <Switch
        id="login-notifications"
        data-testid="login-notifications"
        checked={checked}
        disabled={save.isPending}
        onCheckedChange={(on) => save.mutate(on)}
        aria-describedby="login-notifications-description"
      />
    </div>
  );
}

/** Settings > Security Settings: password, two-factor enrolment and login notifications. */
export function SecuritySettingsCard({ user }: { user: User }) {
  const t = useT();
  return (
    <Card>
      <CardHeader>
        <div className="flex items-center gap-3">
          <span className="flex h-9 w-9 items-center justify-center rounded-lg bg-brand-50 text-brand-600" aria-hidden>
            <ShieldCheck className="h-5 w-5" />
          </span>
          <div>
            <CardTitle level={2}>{t('settings.security.title')}</CardTitle>
            <CardDescription>{t('settings.security.description')}</CardDescription>
          </div>
        </div>
      </CardHeader>
      <div className="divide-y divide-slate-100 px-6 pb-2">
        <PasswordRow />
        <TwoFactorRow user={user} />
        <LoginNotificationsRow user={user} />
      </div>
    </Card>
  );
}
