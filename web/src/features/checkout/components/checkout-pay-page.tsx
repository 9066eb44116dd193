import { useQuery } from '@tanstack/react-query';
import { Loader2 } from 'lucide-react';
import { useEffect, useState, type ReactNode } from 'react';
import { useSearch } from 'wouter';
import { useLanguage } from '../../../i18n';
import { useAuth } from '../../auth/auth-context';
import { publicIntentQuery, type PayAnswer } from '../api';
import { intentIdFromClientSecret, openerOrigin } from '../checkout-params';
import { Complete, Frame, IntentSummary, Problem, SignInPrompt } from './checkout-parts';
import { PayForm } from './pay-form';

/** How long "Payment complete" stays before the popup closes itself. */
export const CLOSE_AFTER_MS = 1500;

/**
 * /checkout/pay?client_secret=…&origin=… — bpay's own page, opened by the widget in a popup. First-party here, so
 * the consumer's session cookie works and paying is an ordinary same-origin request.
 */
export function CheckoutPayPage() {
  const { t } = useLanguage();
  const params = new URLSearchParams(useSearch());
  const clientSecret = params.get('client_secret') ?? '';
  const intentId = intentIdFromClientSecret(clientSecret);
  const returnOrigin = openerOrigin(params.get('origin'));
  const { user, isLoading: userLoading } = useAuth();
  const intent = useQuery({ ...publicIntentQuery(intentId ?? '', clientSecret), enabled: intentId !== null });
  const [paid, setPaid] = useState<PayAnswer | null>(null);

  useEffect(() => {
    if (!paid) return;
    const timer = setTimeout(() => window.close(), CLOSE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [paid]);

  let content: ReactNode;
  if (!intentId) content = <Problem title={t('checkout.invalid.title')} body={t('checkout.invalid.body')} testId="checkout-invalid" />;
  else if (intent.isLoading || userLoading)
    content = (
      <p className="flex items-center gap-2 py-8 text-sm text-slate-600" aria-busy="true">
        <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
        {t('common.loading')}
      </p>
    );
  else if (intent.isError || !intent.data)
    content = <Problem title={t('checkout.notFound.title')} body={t('checkout.notFound.body')} testId="checkout-not-found" />;
  else {
    const pi = intent.data;
    const payable = pi.status === 'requires_payment_method' || pi.status === 'requires_confirmation';
    content = (
      <>
        <IntentSummary intent={pi} />
        {paid ? (
          <Complete answer={paid} />
        ) : pi.status === 'succeeded' ? (
          <Problem title={t('checkout.alreadyPaid.title')} body={t('checkout.alreadyPaid.body')} testId="checkout-already-paid" />
        ) : !payable ? (
          <Problem title={t('checkout.notPayable.title')} body={t('checkout.notPayable.body', { status: pi.status })} testId="checkout-not-payable" />
        ) : !user ? (
          <SignInPrompt />
        ) : (
          <PayForm intent={pi} clientSecret={clientSecret} returnOrigin={returnOrigin} onPaid={setPaid} />
        )}
      </>
    );
  }
  return <Frame>{content}</Frame>;
}
