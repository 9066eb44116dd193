import { describe, expect, test } from 'bun:test';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { defineMessages, LanguageProvider } from '../../i18n';
import * as merchantOperations from '../../i18n/messages/merchant-operations';
import { paymentChargeQuery, type Charge, type PaymentIntent, type Refund } from './api';
import { PaymentSplit, RefundSplit } from './components/payment-split';

/*
 * The payment detail's split (issue 28 §2), rendered with its charge already read: each share's source, funding and
 * status in words (a bank debit settling, one the bank returned), what was refunded to it; a refund's split.
 */
defineMessages(merchantOperations);

const intent = { id: 'pi_1', currency: 'usd', status: 'succeeded' } as PaymentIntent;
const charge = {
  id: 'ch_1',
  object: 'charge',
  amount: 3000,
  amount_refunded: 250,
  currency: 'usd',
  payment_intent: 'pi_1',
  allocations: [
    { amount: 1500, amount_refunded: 250, funding: 'credit', brand: 'visa', last4: '4242', status: 'succeeded' },
    { amount: 1000, amount_refunded: 0, funding: 'bank_account', brand: null, last4: '6789', status: 'pending' },
    { amount: 500, amount_refunded: 0, funding: 'bank_account', brand: null, last4: '1116', status: 'failed' },
  ],
} as unknown as Charge;

function render(node: React.ReactNode, path = '/') {
  const qc = new QueryClient();
  qc.setQueryData(paymentChargeQuery('m_1', 'pi_1').queryKey, charge);
  return renderToStaticMarkup(
    <QueryClientProvider client={qc}>
      <LanguageProvider path={path}>{node}</LanguageProvider>
    </QueryClientProvider>,
  );
}

/** The text of every element with this test id, in order. */
const texts = (html: string, testId: string) =>
  [...html.matchAll(new RegExp(`data-testid="${testId}"[^>]*>(.*?)</span>`, 'g'))].map((m) => m[1]!.replace(/<[^>]+>/g, ''));

describe('PaymentSplit', () => {
  test('each share: source, funding and status in words; refunded only where something was', () => {
    const html = render(<PaymentSplit merchantId="m_1" intent={intent} />);
    expect(texts(html, 'split-share-source')).toEqual(['Visa •••• 4242', 'Bank •••• 6789', 'Bank •••• 1116']);
    expect(texts(html, 'split-share-funding')).toEqual(['Credit card', 'Bank account', 'Bank account']);
    expect(texts(html, 'split-share-amount')).toEqual(['$15.00', '$10.00', '$5.00']);
    expect(texts(html, 'split-share-status')).toEqual(['Paid', 'Pending (bank debit settling)', 'Returned by the bank']);
    expect(texts(html, 'split-share-refunded')).toEqual(['$2.50 refunded']);
  });

  test('in Arabic: the words are Arabic, sources and amounts stay left to right', () => {
    const html = render(<PaymentSplit merchantId="m_1" intent={intent} />, '/ar');
    expect(texts(html, 'split-share-status')).toEqual(['مدفوع', 'قيد الانتظار (الخصم البنكي قيد التسوية)', 'أعاده البنك']);
    expect(texts(html, 'split-share-source')).toEqual(['Visa •••• 4242', 'بنك •••• 6789', 'بنك •••• 1116']);
    expect(html).toContain('dir="ltr" data-testid="split-share-amount"');
  });
});

describe('RefundSplit', () => {
  const refund = { id: 're_1', amount: 250, currency: 'usd', status: 'succeeded' } as Refund;

  test('how much went back to each share, refused parts in words', () => {
    const html = render(
      <RefundSplit
        refund={
          {
            ...refund,
            allocations: [
              { amount: 200, funding: 'credit', brand: 'visa', last4: '4242', status: 'succeeded' },
              { amount: 50, funding: 'prepaid', brand: null, last4: '0005', status: 'failed' },
            ],
          } as Refund
        }
      />,
    );
    expect(texts(html, 'refund-split-source')).toEqual(['Visa •••• 4242', 'Card •••• 0005']);
    expect(texts(html, 'refund-split-amount')).toEqual(['$2.00', '$0.50']);
    expect(texts(html, 'refund-split-status')).toEqual(['Returned', 'Refused']);
  });

  test('a refund without a split shows nothing', () => {
    expect(render(<RefundSplit refund={refund} />)).toBe('');
  });
});
