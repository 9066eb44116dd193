/*
 * `bpay pi get` with the split, and `bpay charges get|list` (issue 28 §2), in-process against a small server that
 * answers as the Charges API's contract says (README, "Money"): what is printed, and that --json stays the intent.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'bun';
import { Bpay } from '@bpay/sdk';
import { newMerchantAccount, startLiveServer } from '../../../sdk/test-support/live-server';
import type { Ctx } from '../context';
import { run } from '../index';
import { allocationTable, refundAllocationTable, sourceLabel } from './charges';

const share = (amount: number, over: Record<string, unknown>) => ({ amount, amount_refunded: 0, funding: 'credit', brand: 'visa', last4: '4242', status: 'succeeded', ...over });

const intent = (id: string, status: string) => ({
  id,
  object: 'payment_intent',
  amount: 3000,
  amount_capturable: 0,
  amount_received: status === 'succeeded' ? 3000 : 0,
  amount_refunded: 600,
  currency: 'usd',
  status,
  capture_method: 'automatic',
  created: 1_764_300_000,
  description: 'Order 28',
  metadata: {},
  livemode: false,
  payment_method: 'bcard_1',
  last_payment_error: null,
  canceled_at: null,
  cancellation_reason: null,
  latest_charge: status === 'succeeded' ? `ch_${id.slice(3)}` : null,
});

const charge = {
  id: 'ch_paid',
  object: 'charge',
  amount: 3000,
  amount_captured: 3000,
  amount_refunded: 600,
  currency: 'usd',
  created: 1_764_300_000,
  livemode: false,
  paid: true,
  captured: true,
  refunded: false,
  status: 'succeeded',
  payment_intent: 'pi_paid',
  description: 'Order 28',
  metadata: {},
  payment_method_details: { type: 'bcard', bcard: { last4: '0005' } },
  allocations: [
    share(1500, { amount_refunded: 300 }),
    share(1000, { funding: 'debit', brand: 'mastercard', last4: '5555', amount_refunded: 200 }),
    share(500, { funding: 'bank_account', brand: null, last4: '6789', status: 'pending', amount_refunded: 100 }),
  ],
};

const refund = {
  id: 're_1',
  object: 'refund',
  amount: 600,
  currency: 'usd',
  status: 'succeeded',
  reason: null,
  payment_intent: 'pi_paid',
  metadata: {},
  created: 1_764_300_100,
  failure_reason: null,
  allocations: [
    { amount: 300, funding: 'credit', brand: 'visa', last4: '4242', status: 'succeeded' },
    { amount: 200, funding: 'debit', brand: 'mastercard', last4: '5555', status: 'succeeded' },
    { amount: 100, funding: 'bank_account', brand: null, last4: '6789', status: 'pending' },
  ],
};

const list = (url: string, data: unknown[]) => Response.json({ object: 'list', url, has_more: false, data });

let server: Server<undefined>;
const asked: string[] = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const url = new URL(req.url);
      asked.push(url.pathname + url.search);
      if (url.pathname === '/api/v1/payment_intents/pi_paid') return Response.json(intent('pi_paid', 'succeeded'));
      if (url.pathname === '/api/v1/payment_intents/pi_open') return Response.json(intent('pi_open', 'requires_payment_method'));
      if (url.pathname === '/api/v1/charges') return list('/v1/charges', url.searchParams.get('payment_intent') === 'pi_paid' ? [charge] : []);
      if (url.pathname === '/api/v1/charges/ch_paid') return Response.json(charge);
      if (url.pathname === '/api/v1/refunds') return list('/v1/refunds', url.searchParams.get('payment_intent') === 'pi_paid' ? [refund] : []);
      return Response.json({ error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such object' } }, { status: 404 });
    },
  });
});
afterAll(() => server.stop(true));

async function bpay(argv: string[], baseUrl = `http://127.0.0.1:${server.port}`, key = 'sk_test_x') {
  const dir = mkdtempSync(join(tmpdir(), 'bpay-cli-charges-'));
  const io = { stdout: '', stderr: '' };
  const ctx: Ctx = {
    env: { XDG_CONFIG_HOME: dir, HOME: dir, BPAY_API_KEY: key, BPAY_BASE_URL: baseUrl },
    io: { out: (s) => void (io.stdout += s), err: (s) => void (io.stderr += s), errIsTTY: false },
  };
  try {
    const code = await run(argv, ctx);
    return { code, ...io };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The table's data rows, each split into its cells (two or more spaces apart). */
const cells = (text: string, header: string) => {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(header));
  const rows: string[][] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.trim()) break;
    rows.push(line.trim().split(/\s{2,}/));
  }
  return rows;
};

describe('pi get shows the split', () => {
  test('a paid intent: the intent, then each share (source, funding, amount, refunded, status in words), then each refund split', async () => {
    const r = await bpay(['pi', 'get', 'pi_paid']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('pi_paid');
    expect(r.stdout).toContain('Funded by (3 sources):');
    expect(cells(r.stdout, 'SOURCE  ')).toEqual([
      ['Visa •••• 4242', 'Credit card', '$15.00 USD', '$3.00 USD', 'Succeeded'],
      ['Mastercard •••• 5555', 'Debit card', '$10.00 USD', '$2.00 USD', 'Succeeded'],
      ['Bank •••• 6789', 'Bank account', '$5.00 USD', '$1.00 USD', 'Pending (bank debit settling)'],
    ]);
    expect(r.stdout).toContain('Refund re_1: $6.00 USD (succeeded)');
    const refundRows = cells(r.stdout.slice(r.stdout.indexOf('Refund re_1')), 'SOURCE  ');
    expect(refundRows).toEqual([
      ['Visa •••• 4242', 'Credit card', '$3.00 USD', 'Refunded'],
      ['Mastercard •••• 5555', 'Debit card', '$2.00 USD', 'Refunded'],
      ['Bank •••• 6789', 'Bank account', '$1.00 USD', 'Pending'],
    ]);
    expect(asked).toContain('/api/v1/charges?payment_intent=pi_paid&limit=1');
  });

  test('an intent not paid: no split, and no charge asked for', async () => {
    asked.length = 0;
    const r = await bpay(['pi', 'get', 'pi_open']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Funded by');
    expect(asked).toEqual(['/api/v1/payment_intents/pi_open']);
  });

  test('--json is the intent as the API answers it, nothing else', async () => {
    asked.length = 0;
    const r = await bpay(['pi', 'get', 'pi_paid', '--json']);
    expect(JSON.parse(r.stdout)).toEqual(intent('pi_paid', 'succeeded'));
    expect(asked).toEqual(['/api/v1/payment_intents/pi_paid']);
  });
});

describe('charges get and list', () => {
  test('get: the charge and its split; --json the API object', async () => {
    const r = await bpay(['charges', 'get', 'ch_paid']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Payment intent\s+pi_paid/);
    expect(r.stdout).toMatch(/Bcard\s+•••• 0005/);
    expect(cells(r.stdout, 'SOURCE  ')).toHaveLength(3);
    expect(JSON.parse((await bpay(['charges', 'get', 'ch_paid', '--json'])).stdout)).toEqual(charge);
  });

  test('list --payment-intent: one row naming its sources; none for an intent without a charge', async () => {
    const r = await bpay(['charges', 'list', '--payment-intent', 'pi_paid']);
    expect(cells(r.stdout, 'ID  ')[0]).toEqual(expect.arrayContaining(['ch_paid', '$30.00 USD', 'Visa •••• 4242, Mastercard •••• 5555, Bank •••• 6789']));
    expect((await bpay(['charges', 'list', '--payment-intent', 'pi_open'])).stdout).toBe('No charge for pi_open.\n');
    const bad = await bpay(['charges', 'list', '--payment-intent', 'ch_paid']);
    expect(bad.code).toBe(2);
  });

  test('a missing charge is an API error (exit 1)', async () => {
    expect((await bpay(['charges', 'get', 'ch_nope'])).code).toBe(1);
  });
});

test('labels and tables: brand capitalised, a bank named Bank, a returned debit in words', () => {
  expect(sourceLabel({ funding: 'credit', brand: 'amex', last4: '0005' })).toBe('Amex •••• 0005');
  expect(sourceLabel({ funding: 'bank_account', brand: null, last4: '6789' })).toBe('Bank •••• 6789');
  expect(sourceLabel({ funding: 'prepaid', brand: null, last4: '1111' })).toBe('Card •••• 1111');
  expect(allocationTable([{ amount: 100, amount_refunded: 0, funding: 'bank_account', brand: null, last4: '6789', status: 'failed' }], 'usd')).toContain(
    'Returned by the bank',
  );
  expect(refundAllocationTable([{ amount: 100, funding: 'prepaid', brand: 'visa', last4: '1', status: 'failed' }], 'usd')).toContain('Refused');
});

test('against the real API: pi get of a split sandbox payment after a partial refund', async () => {
  const live = await startLiveServer();
  try {
    const key = (await newMerchantAccount(live.ctx)).secretKey;
    const sdk = new Bpay(key, { baseUrl: live.baseUrl });
    const card = await sdk.testHelpers.bcards.create({
      amount: 3000,
      allocations: [
        { amount: 2000, source: 'tok_visa' },
        { amount: 1000, source: 'tok_visa_debit' },
      ],
    } as Parameters<typeof sdk.testHelpers.bcards.create>[0]);
    const pi = await sdk.paymentIntents.create({ amount: 3000, currency: 'usd' });
    await sdk.paymentIntents.confirm(pi.id, { payment_method: card.id });
    const refund = await sdk.refunds.create({ payment_intent: pi.id, amount: 600 });
    const r = await bpay(['pi', 'get', pi.id], live.baseUrl, key);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Funded by (2 sources):');
    expect(cells(r.stdout, 'SOURCE  ')).toEqual([
      ['Visa •••• 4242', 'Credit card', '$20.00 USD', '$4.00 USD', 'Succeeded'],
      ['Visa •••• 5556', 'Debit card', '$10.00 USD', '$2.00 USD', 'Succeeded'],
    ]);
    expect(cells(r.stdout.slice(r.stdout.indexOf(`Refund ${refund.id}`)), 'SOURCE  ')).toEqual([
      ['Visa •••• 4242', 'Credit card', '$4.00 USD', 'Refunded'],
      ['Visa •••• 5556', 'Debit card', '$2.00 USD', 'Refunded'],
    ]);
  } finally {
    live.close();
  }
}, 30_000);
