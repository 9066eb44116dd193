import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useT } from '../../../i18n';

/** The frame of the two reset pages: the /auth card's look, one column at every width. */
export function ResetLayout({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  const t = useT();
  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-50 px-4 py-12">
      <div className="w-full max-w-md">
        <Link href="/" className="mb-8 inline-block text-2xl font-bold text-brand-600">
          bpay
        </Link>
        <Card>
          <CardHeader>
            <CardTitle level={1}>{title}</CardTitle>
            {description && <CardDescription>{description}</CardDescription>}
          </CardHeader>
          <CardContent className="space-y-4">
            {children}
            <p className="text-center text-sm">
              <Link href="/auth" className="text-brand-600 underline-offset-4 hover:underline">
                {t('reset.backToSignIn')}
              </Link>
            </p>
          </CardContent>
        </Card>
      </div>
    </main>
  );
}
