import { Lock } from 'lucide-react';
import { Link } from 'wouter';
import { buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useT } from '../../../i18n';

/** Signed-out visitors: the merchant pages need an account; signing in comes back here. */
export function AccessRequired({ returnTo }: { returnTo: string }) {
  const t = useT();
  return (
    <div className="flex min-h-screen items-center justify-center bg-slate-50 px-4">
      <Card className="w-full max-w-md" data-testid="access-required">
        <CardHeader>
          <span className="mb-2 flex h-10 w-10 items-center justify-center rounded-full bg-brand-50 text-brand-600" aria-hidden>
            <Lock className="h-5 w-5" />
          </span>
          <CardTitle>{t('merchants.access.title')}</CardTitle>
          <CardDescription>{t('merchants.access.body')}</CardDescription>
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
