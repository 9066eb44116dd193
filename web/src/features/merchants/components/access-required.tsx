import { Lock } from 'lucide-react';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useT, type MessageKey } from '../../../i18n';

/**
 * Signed-out visitors: the page needs an account; signing in comes back here. `body` says what for (by default the
 * merchant pages; /kyc-verification says identity verification).
 */
export function AccessRequired({ returnTo, body = 'merchants.access.body' }: { returnTo: string; body?: MessageKey }) {
  const t = useT();
  return (
    <div className="flex min-h-screen items-center justify-center bg-slate-50 px-4">
      <Card className="w-full max-w-md" data-testid="access-required">
        <CardHeader>
          <span className="mb-2 flex h-10 w-10 items-center justify-center rounded-full bg-brand-50 text-brand-600" aria-hidden>
            <Lock className="h-5 w-5" />
          </span>
          <CardTitle>{t('merchants.access.title')}</CardTitle>
          <CardDescription data-testid="access-required-body">{t(body)}</CardDescription>
        </CardHeader>
        <CardContent className="flex flex-wrap gap-2">
          <Link href={`/auth?next=${encodeURIComponent(returnTo)}`} className={buttonClasses('primary')} data-testid="access-sign-in">
            {t('merchants.access.signIn')}
          </Link>
          <Link href="/" className={buttonClasses('outline')}>
            {t('common.backHome')}
          </Link>
        </CardContent>
      </Card>
    </div>
  );
}
