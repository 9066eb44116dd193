import { CircleCheck, CreditCard, Lock, TriangleAlert } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useLanguage } from '../../../i18n';
import { formatMoney } from '../../../lib/money';
import type { PayAnswer, PublicIntent } from '../api';

/** Wraps a left-to-right value ($12.00) in Unicode isolates on right-to-left pages so it keeps its order. */
export const isolate = (dir: 'ltr' | 'rtl') => (s: string) => (dir === 'rtl' ? `\u2068${s}\u2069` : s);

/** The popup's frame: bpay's mark and "Secure checkout" above a narrow column. */
export function Frame({ children }: { children: ReactNode }) {
  const { t } = useLanguage();
  return (
    <div className="min-h-screen bg-slate-50 px-4 py-6">
      <div className="mx-auto w-full max-w-md space-y-4">
        <div className="flex items-center justify-between">
          <span className="flex items-center gap-2">
            <span className="flex h-7 w-7 items-center justify-center rounded-lg bg-brand-600 text-white" aria-hidden>
              <CreditCard className="h-3.5 w-3.5" />
            </span>
            <span className="text-lg font-bold tracking-tight text-slate-900" dir="ltr">
              {t('common.brand')}
            </span>
          </span>
          <span className="flex items-center gap-1 text-xs text-slate-500">
            <Lock className="h-3.5 w-3.5" aria-hidden />
            {t('checkout.secure')}
          </span>
        </div>
        {children}
      </div>
    </div>
  );
}

export function Problem({ title, body, testId }: { title: string; body: string; testId: string }) {
  const { t } = useLanguage();
  return (
    <Card data-testid={testId}>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <TriangleAlert className="h-5 w-5 text-amber-500" aria-hidden />
          {title}
        </CardTitle>
        <CardDescription>{body}</CardDescription>
      </CardHeader>
      <CardContent>
        <Button variant="outline" onClick={() => window.close()}>
          {t('checkout.closeWindow')}
        </Button>
      </CardContent>
    </Card>
  );
}

export function IntentSummary({ intent }: { intent: PublicIntent }) {
  const { t } = useLanguage();
  return (
    <Card data-testid="checkout-merchant">
      <CardHeader className="pb-4">
        <CardDescription>{t('checkout.payTo')}</CardDescription>
        <CardTitle data-testid="checkout-merchant-name">{intent.merchant.businessName}</CardTitle>
        {intent.description && <p className="text-sm text-slate-600">{intent.description}</p>}
        {!intent.livemode && (
          <span className="w-fit rounded-full bg-yellow-100 px-2.5 py-0.5 text-xs font-semibold text-yellow-800" data-testid="checkout-test-mode">
            {t('checkout.testMode')}
          </span>
        )}
      </CardHeader>
    </Card>
  );
}


export function SignInPrompt() {
  const { t } = useLanguage();
  const next = `${window.location.pathname}${window.location.search}`;
  return (
    <Card data-testid="checkout-sign-in">
      <CardHeader>
        <CardTitle>{t('checkout.signIn.title')}</CardTitle>
        <CardDescription>{t('checkout.signIn.body')}</CardDescription>
      </CardHeader>
      <CardContent>
        <Link href={`/auth?next=${encodeURIComponent(next)}`} className={buttonClasses('primary', 'md', 'w-full')} data-testid="checkout-sign-in-link">
          {t('checkout.signIn.action')}
        </Link>
      </CardContent>
    </Card>
  );
}


export function Complete({ answer }: { answer: PayAnswer }) {
  const { t, dir } = useLanguage();
  return (
    <Card data-testid="checkout-complete">
      <CardContent className="flex flex-col items-center gap-3 p-8 text-center">
        <CircleCheck className="h-12 w-12 text-green-600" aria-hidden />
        <p className="text-xl font-semibold text-slate-900" role="status">
          {t('checkout.complete.title')}
        </p>
        <p className="text-sm text-slate-600">{t('checkout.complete.body', { amount: isolate(dir)(formatMoney(answer.bcard.totalCharged)) })}</p>
        {answer.testMode && (
          <p className="rounded-md bg-yellow-100 px-3 py-1.5 text-sm font-medium text-yellow-800" data-testid="checkout-complete-test-mode">
            {t('checkout.complete.testMode')}
          </p>
        )}
        <p className="font-mono text-xs text-slate-400" dir="ltr">
          {answer.paymentIntent.id}
        </p>
        <p className="text-xs text-slate-500">{t('checkout.complete.closing')}</p>
        <Button variant="outline" onClick={() => window.close()}>
          {t('checkout.closeWindow')}
        </Button>
      </CardContent>
    </Card>
  );
}
