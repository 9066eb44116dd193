import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Bell, ShieldCheck } from 'lucide-react';
import { Card, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { ListState, listStatus, LoadError } from '../../../components/ui/list-state';
import { Switch } from '../../../components/ui/switch';
import { toast } from '../../../components/ui/use-toast';
import { useT, type MessageKey } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import {
  groupChange,
  groupIsOn,
  NOTICE_GROUPS,
  noticePreferencesQuery,
  updateNoticePreferencesRequest,
  type NoticeGroup,
  type NoticePreferenceChanges,
} from '../api';
import { NOTIFICATION_SETTINGS_ID } from '../links';

const groupTitle: Record<NoticeGroup, MessageKey> = {
  bcards: 'notifications.settings.group.bcards',
  refunds: 'notifications.settings.group.refunds',
  bank: 'notifications.settings.group.bank',
  plans: 'notifications.settings.group.plans',
  identity: 'notifications.settings.group.identity',
  security: 'notifications.settings.group.security',
};
const groupDescription: Record<NoticeGroup, MessageKey> = {
  bcards: 'notifications.settings.group.bcards.description',
  refunds: 'notifications.settings.group.refunds.description',
  bank: 'notifications.settings.group.bank.description',
  plans: 'notifications.settings.group.plans.description',
  identity: 'notifications.settings.group.identity.description',
  security: 'notifications.settings.group.security.description',
};

/**
 * Settings → Notifications: one e-mail switch per group of notices (money and identity groups on by default, each the
 * user's choice); security is always on, its switch disabled with a note. Every notice shows under the bell either way.
 */
export function NotificationSettingsCard() {
  const t = useT();
  const qc = useQueryClient();
  const prefs = useQuery(noticePreferencesQuery());
  const save = useMutation({
    mutationFn: (change: { group: NoticeGroup; on: boolean; email: NoticePreferenceChanges }) => updateNoticePreferencesRequest(change.email),
    onSuccess: (updated) => {
      qc.setQueryData(noticePreferencesQuery().queryKey, updated);
      toast({ title: t('notifications.settings.saved') });
    },
    onError: (error) => {
      toast({ title: t('notifications.settings.saveFailed'), description: messageOf(error), variant: 'destructive' });
    },
  });
  const data = prefs.data ?? [];

  return (
    <Card id={NOTIFICATION_SETTINGS_ID} tabIndex={-1} className="scroll-mt-24 outline-none" data-testid="notification-settings-card">
      <CardHeader>
        <div className="flex items-center gap-3">
          <span className="flex h-9 w-9 items-center justify-center rounded-lg bg-brand-50 text-brand-600" aria-hidden>
            <Bell className="h-5 w-5" />
          </span>
          <div>
            <CardTitle level={2}>{t('notifications.settings.title')}</CardTitle>
            <CardDescription>{t('notifications.settings.description')}</CardDescription>
          </div>
        </div>
      </CardHeader>
      <div className="px-6 pb-2">
        <ListState
          status={listStatus({ isLoading: prefs.isLoading, error: prefs.error, total: data.length, filtered: false })}
          error={<LoadError message={t('notifications.settings.loadFailed')} error={prefs.error} onRetry={() => void prefs.refetch()} />}
        >
          <ul className="divide-y divide-slate-100">
            {NOTICE_GROUPS.map((group) => {
              // Security notices and plan receipts are always mailed (the API refuses them off).
              const locked = group === 'security' || group === 'plans';
              const pending = save.isPending && save.variables?.group === group;
              const checked = locked ? true : pending ? save.variables!.on : groupIsOn(data, group);
              const id = `notice-email-${group}`;
              return (
                <li key={group} className="flex items-center justify-between gap-4 py-4" data-testid={`notice-group-${group}`}>
                  <div className="flex min-w-0 items-start gap-3">
                    {locked && <ShieldCheck className="mt-0.5 h-5 w-5 shrink-0 text-slate-400" aria-hidden />}
                    <div className="min-w-0">
                      <Label htmlFor={id} className="font-medium text-slate-900">
                        {t(groupTitle[group])}
                      </Label>
                      <p id={`${id}-description`} className="text-sm text-slate-500">
                        {t(groupDescription[group])}
                        {locked && (
                          <span className="mt-1 block text-xs text-slate-500" data-testid={`notice-${group}-note`}>
                            {t(group === 'plans' ? 'notifications.settings.plansNote' : 'notifications.settings.securityNote')}
                          </span>
                        )}
                      </p>
                    </div>
                  </div>
                  <Switch
                    id={id}
                    data-testid={`notice-email-${group}`}
                    checked={checked}
                    disabled={locked || save.isPending}
                    onCheckedChange={(on) => save.mutate({ group, on, email: groupChange(data, group, on) })}
                    aria-describedby={`${id}-description`}
                  />
                </li>
              );
            })}
          </ul>
        </ListState>
      </div>
    </Card>
  );
}
