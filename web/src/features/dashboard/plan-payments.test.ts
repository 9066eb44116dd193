import { describe, expect, test } from 'bun:test';
import { planPaymentsCsvUrl, planPaymentsFor, type PlanPayment } from './plan-payments';
import { STATUS_FILTERS } from './transactions';

const payment = (id: string, status: PlanPayment['status']): PlanPayment => ({
  id,
  createdAt: '2025-03-10T12:00:00.000Z',
  kind: 'upgrade',
  status,
  amount: '9.99',
  planName: 'Professional',
  periodStart: '2025-03-10T12:00:00.000Z',
  periodEnd: '2025-04-10T12:00:00.000Z',
  fundingSource: { id: 'fs_1', name: 'Visa', last4: '4242', brand: 'visa' },
  failureMessage: status === 'failed' ? 'Your card was declined.' : null,
  proration: null,
});

const all = [payment('c3', 'succeeded'), payment('c2', 'failed'), payment('c1', 'pending'), payment('c0', 'succeeded')];

describe('plan payments under the Transactions status filter', () => {
  test('all keeps every payment in order; completed means paid; pending and failed keep their own', () => {
    const ids = (filter: (typeof STATUS_FILTERS)[number]) => planPaymentsFor(all, filter).map((p) => p.id);
    expect(ids('all')).toEqual(['c3', 'c2', 'c1', 'c0']);
    expect(ids('completed')).toEqual(['c3', 'c0']);
    expect(ids('pending')).toEqual(['c1']);
    expect(ids('failed')).toEqual(['c2']);
    expect(planPaymentsFor([], 'all')).toEqual([]);
  });

  test('every filter of the tab maps to a status the CSV endpoint accepts', () => {
    const accepted = ['all', 'succeeded', 'pending', 'failed'];
    for (const f of STATUS_FILTERS) {
      const url = new URL(planPaymentsCsvUrl(f), 'http://x');
      expect(url.pathname).toBe('/api/subscription/charges/export.csv');
      expect(accepted).toContain(url.searchParams.get('status')!);
    }
    expect(planPaymentsCsvUrl('completed')).toEndWith('status=succeeded');
  });
});
