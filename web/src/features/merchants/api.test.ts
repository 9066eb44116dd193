import { afterEach, describe, expect, test } from 'bun:test';
import {
  createRefundRequest,
  paymentIntentsQuery,
  recentIntentsQuery,
  refundsQuery,
  rollSecretRequest,
  rollWebhookSecretRequest,
  sendTestEventRequest,
  webhookDeliveriesQuery,
  webhookEndpointsQuery,
} from './api';
import { answering, restoreFetch } from '../../../test-support/fetch-mock';

afterEach(restoreFetch);

const pathOf = (r: Request) => {
  const u = new URL(r.url);
  return decodeURIComponent(u.pathname + u.search);
};

/** Runs a query factory's queryFn as TanStack Query would (the context is not read beyond pageParam). */
function run<T>(options: { queryFn?: unknown }, pageParam: string | null = null): Promise<T> {
  return (options.queryFn as (ctx: { pageParam: string | null }) => Promise<T>)({ pageParam });
}

describe("the merchant pages' calls", () => {
  test('lists are read from their data; filters and cursors go in the query', async () => {
    const seen = answering(() => Response.json({ object: 'list', has_more: false, data: [{ id: 'x_1' }] }));
    expect(await run(webhookEndpointsQuery('m 1'))).toEqual([{ id: 'x_1' }]);
    expect(await run(webhookDeliveriesQuery('m_1', 'we_1'))).toEqual([{ id: 'x_1' }]);
    await run(webhookDeliveriesQuery('m_1'));
    await run(paymentIntentsQuery('m_1', 10, 'pi_9'));
    await run(paymentIntentsQuery('m_1', 10));
    await run(recentIntentsQuery('m_1'));
    await run(refundsQuery('m_1', 'pi_1'), 're_5');
    expect(seen.map(pathOf)).toEqual([
      '/api/merchants/m 1/webhook_endpoints',
      '/api/merchants/m_1/webhook_deliveries?endpoint_id=we_1',
      '/api/merchants/m_1/webhook_deliveries',
      '/api/merchants/m_1/payment_intents?limit=10&starting_after=pi_9',
      '/api/merchants/m_1/payment_intents?limit=10',
      '/api/merchants/m_1/payment_intents?limit=10&include[]=total_count',
      '/api/merchants/m_1/refunds?payment_intent=pi_1&limit=20&starting_after=re_5',
    ]);
  });

  test("the rolls, the resend and a refund send the caller's Idempotency-Key; a test event sends none", async () => {
    const seen = answering(() => Response.json({}));
    await rollSecretRequest('m_1', '24h', 'k_roll');
    await createRefundRequest('m_1', { payment_intent: 'pi_1', amount: 500 }, 'k_refund');
    await sendTestEventRequest('m_1', 'we_1');
    expect(seen.map((r) => [r.method, pathOf(r), r.headers.get('idempotency-key')])).toEqual([
      ['POST', '/api/merchants/m_1/roll-secret', 'k_roll'],
      ['POST', '/api/merchants/m_1/refunds', 'k_refund'],
      ['POST', '/api/merchants/m_1/webhook_endpoints/we_1/test', null],
    ]);
    expect(await seen[0]!.json()).toEqual({ expire_old_key_in: '24h' });
  });

  test("a webhook secret's roll sends the grace chosen and its Idempotency-Key", async () => {
    const seen = answering(() => Response.json({}));
    await rollWebhookSecretRequest('m_1', 'we_1', '24h', 'k_whroll');
    await rollWebhookSecretRequest('m_1', 'we_1', 'now', 'k_whroll2');
    expect(seen.map((r) => [r.method, pathOf(r), r.headers.get('idempotency-key')])).toEqual([
      ['POST', '/api/merchants/m_1/webhook_endpoints/we_1/roll_secret', 'k_whroll'],
      ['POST', '/api/merchants/m_1/webhook_endpoints/we_1/roll_secret', 'k_whroll2'],
    ]);
    expect(await seen[0]!.json()).toEqual({ expire_old_secret_in: '24h' });
    expect(await seen[1]!.json()).toEqual({ expire_old_secret_in: 'now' });
  });
});
