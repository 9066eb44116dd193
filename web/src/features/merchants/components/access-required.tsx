import { Lock } from 'lucide-react';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useT, type MessageKey } from '../../../i18n';
import { authPath } from '../../../lib/plan-links';

/**
 * Signed-out visitors: the page needs an account; signing in comes back here. `body` says what for (by default the
 * merchant pages; /kyc-verification says identity verification), `title` may say it too (/plans: "Sign in to choose a
 * plan"), and `register` (the link's text) adds a Register link that also comes back here.
 */
export function AccessRequired({
  returnTo,
  body = 'merchants.access.body',
  title = 'merchants.access.title',
  register = null,
}: {
  returnTo: string;
  body?: MessageKey;
  title?: MessageKey;
  register?: MessageKey | null;
}) {
  const t = useT();
  return (
    <div className="flex min-h-screen items-center justify-center bg-slate-50 px-4">
      <Card className="w-full max-w-md" data-testid="access-required">
        <CardHeader>
          <span className="mb-2 flex h-10 w-10 items-center justify-center rounded-full bg-brand-50 text-brand-600" aria-hidden>
            <Lock className="h-5 w-5" />
          </span>
          <CardTitle>{t(title)}</CardTitle>
          <CardDescription data-testid="access-required-body">{t(body)}</CardDescription>
        </CardHeader>
        <CardContent className="flex flex-wrap gap-2">
          <Link href={authPath('signin', returnTo)} className={buttonClasses('primary')} data-testid="access-sign-in">
            {t('merchants.access.signIn')}
          </Link>
          {register && (
            <Link href={authPath('register', returnTo)} className={buttonClasses('outline')} data-testid="access-register">
              {t(register)}
            </Link>
          )}
          <Link href="/" className={buttonClasses('outline')}>
            {t('common.backHome')}
          </Link>
        </CardContent>
      </Card>
    </div>
  );
}
