import { useEffect, useRef } from 'react';
import { useLocation } from 'wouter';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { useAuth } from '../auth-context';

/** /auth/logout, reached by page navigation: signs out on the server, clears every cached answer, goes home. */
export function LogoutPage() {
  const t = useT();
  const { logoutMutation } = useAuth();
  const [, navigate] = useLocation();
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    logoutMutation.mutate(undefined, {
      onSuccess: () => {
        toast({ title: t('auth.toast.logout'), description: t('auth.toast.logoutBody') });
        navigate('/', { replace: true });
      },
      onError: (error) => {
        toast({ title: t('auth.toast.logoutFailed'), description: messageOf(error), variant: 'destructive' });
        navigate('/', { replace: true });
      },
    });
  }, [logoutMutation, navigate, t]);
  return (
    <main className="flex min-h-screen items-center justify-center text-slate-600" aria-busy="true">
      {t('auth.loggingOut')}
    </main>
  );
}
