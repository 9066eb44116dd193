import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { MailCheck } from 'lucide-react';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import {
  cancelEmailChangeRequest,
  PENDING_EMAIL_CHANGE_KEY,
  pendingEmailChangeQuery,
  resendEmailChangeRequest,
} from '../../email-change/api';
import { isolate } from '../../email-change/isolate';

/**
 * Under the e-mail field: the new address waiting for its link ("Pending: new@… — we sent a link"), until when the
 * link works, and Resend / Cancel. Nothing while no change is pending.
 */
export function PendingEmailChange({ currentEmail }: { currentEmail: string }) {
  const { t, lang } = useLanguage();
  const qc = useQueryClient();
  const pending = useQuery(pendingEmailChangeQuery());
  const onError = (error: Error) =>
    toast({ title: t('emailChange.toast.failed'), description: messageOf(error), variant: 'destructive' });
  const resend = useMutation({
    mutationFn: resendEmailChangeRequest,
    onSuccess: (next) => {
      qc.setQueryData(PENDING_EMAIL_CHANGE_KEY, next);
      toast({ title: t('emailChange.toast.resent'), description: next ? t('emailChange.toast.sentBody', { email: isolate(next.email) }) : undefined });
    },
    onError,
  });
  const cancel = useMutation({
    mutationFn: cancelEmailChangeRequest,
    onSuccess: () => {
      qc.setQueryData(PENDING_EMAIL_CHANGE_KEY, null);
      toast({ title: t('emailChange.toast.canceled') });
    },
    onError,
  });
  const p = pending.data;
  if (!p) return null;
  const until = new Intl.DateTimeFormat(lang === 'ar' ? 'ar' : 'en', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(p.expiresAt));
  return (
    <div role="status" data-testid="pending-email-change" className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
      <p className="flex items-center gap-2 font-medium">
        <MailCheck className="h-4 w-4 shrink-0" aria-hidden />
        {t('emailChange.pending.title')}
      </p>
      <p className="mt-1 break-words">{t('emailChange.pending.body', { email: isolate(p.email), current: isolate(currentEmail) })}</p>
      <p className="mt-1 text-xs text-amber-800">{t('emailChange.pending.expires', { time: until })}</p>
      <div className="mt-2 flex flex-wrap gap-2">
        <Button type="button" variant="outline" size="sm" disabled={resend.isPending} onClick={() => resend.mutate()} data-testid="pending-email-resend">
          {t('emailChange.resend')}
        </Button>
        <Button type="button" variant="ghost" size="sm" disabled={cancel.isPending} onClick={() => cancel.mutate()} data-testid="pending-email-cancel">
          {t('emailChange.cancel')}
        </Button>
      </div>
    </div>
  );
}
