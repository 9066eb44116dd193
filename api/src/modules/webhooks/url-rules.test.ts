import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { classifyAddress } from './address';
import { fakeDns, newMerchant, v1, type Merchant } from '../../../test-support/modules/webhooks';
import { checkWebhookUrl } from './url-policy';
import { deliverDueWebhooks } from './worker';

/*
 * Production webhook URLs: https only, and never to this machine or a private network, checked when the URL is
 * given and again before every delivery (a name can resolve elsewhere later: DNS rebinding). Sandbox allows local.
 */

let ctx: TestContext;
let prod: Merchant;
let sandbox: Merchant;
const dns: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'v6.example.com': ['2606:4700:4700::1111'],
  'evil.example': ['127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '10.0.0.7'],
  'mapped.example': ['::ffff:192.168.1.1'],
  'ula.example': ['fd00::1'],
  'rebind.example': ['93.184.216.34'],
};

beforeAll(async () => {
  ctx = await makeTestApp();
  ctx.deps.webhooks.resolveHost = fakeDns(dns);
  const owner = await registerUser(ctx);
  prod = await newMerchant(ctx, owner.cookie, 'production');
  sandbox = await newMerchant(ctx, owner.cookie, 'sandbox');
});
afterAll(() => ctx.close());

const create = (m: Merchant, url: string) => v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: { url, enabled_events: ['*'] } });

describe('production webhook URLs', () => {
  const refused: Array<[string, string]> = [
    ['http://hooks.example.com/webhooks', 'plain http'],
    ['https://127.0.0.1/webhooks', 'loopback literal'],
    ['https://127.0.0.1:8443/webhooks', 'loopback literal with a port'],
    ['https://localhost/webhooks', 'localhost'],
    ['https://localhost./webhooks', 'localhost with a trailing dot'],
    ['https://api.localhost/webhooks', 'a .localhost name'],
    ['https://10.1.2.3/webhooks', 'private 10/8'],
    ['https://172.16.5.4/webhooks', 'private 172.16/12'],
    ['https://192.168.1.1/webhooks', 'private 192.168/16'],
    ['https://169.254.169.254/latest/meta-data', 'link-local (cloud metadata)'],
    ['https://100.64.0.1/webhooks', 'CGNAT'],
    ['https://0.0.0.0/webhooks', '0.0.0.0'],
    ['https://224.0.0.1/webhooks', 'multicast'],
    ['https://[::1]/webhooks', 'IPv6 loopback'],
    ['https://[fe80::1]/webhooks', 'IPv6 link-local'],
    ['https://[fd00::1]/webhooks', 'IPv6 unique-local'],
    ['https://[::ffff:127.0.0.1]/webhooks', 'IPv4-mapped loopback'],
    ['https://[::ffff:10.0.0.1]/webhooks', 'IPv4-mapped private'],
    ['https://2130706433/webhooks', '127.0.0.1 written as one number'],
    ['https://0x7f.1/webhooks', '127.0.0.1 written in hex'],
    ['https://evil.example/webhooks', 'a name resolving to loopback'],
    ['https://metadata.example/webhooks', 'a name resolving to link-local'],
    ['https://mixed.example/webhooks', 'a name with one private address among public ones'],
    ['https://mapped.example/webhooks', 'a name resolving to an IPv4-mapped private address'],
    ['https://ula.example/webhooks', 'a name resolving to a unique-local address'],
    ['https://nowhere.example/webhooks', 'a name that does not resolve'],
  ];
  test.each(refused)('%s (%s) -> 400 url_not_allowed naming url', async (url) => {
    const res = await create(prod, url);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('url_not_allowed');
    expect(res.body.error.param).toBe('url');
  });

  const accepted = ['https://hooks.example.com/webhooks', 'https://v6.example.com/hooks?x=1', 'https://93.184.216.34:8443/webhooks'];
  test.each(accepted)('%s -> 200', async (url) => {
    const res = await create(prod, url);
    expect(res.status).toBe(200);
    expect(res.body.url).toBe(new URL(url).toString());
    expect(res.body.livemode).toBe(true);
  });

  test('PATCH applies the same rules', async () => {
    const ep = (await create(prod, 'https://hooks.example.com/a')).body;
    for (const url of ['https://evil.example/a', 'http://hooks.example.com/a', 'https://[::1]/']) {
      const res = await v1(ctx, prod.key, `/webhook_endpoints/${ep.id}`, { method: 'PATCH', body: { url } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('url_not_allowed');
      expect(res.body.error.param).toBe('url');
    }
    const still = await v1(ctx, prod.key, `/webhook_endpoints/${ep.id}`);
    expect(still.body.url).toBe('https://hooks.example.com/a');
    const ok = await v1(ctx, prod.key, `/webhook_endpoints/${ep.id}`, { method: 'PATCH', body: { url: 'https://v6.example.com/b' } });
    expect(ok.status).toBe(200);
    expect(ok.body.url).toBe('https://v6.example.com/b');
  });
});

describe('every mode', () => {
  const long = `https://hooks.example.com/${'a'.repeat(2100)}`;
  test.each([
    ['not a url', 'validation_error'],
    ['/relative/path', 'validation_error'],
    ['ftp://hooks.example.com/x', 'validation_error'],
    ['javascript:alert(1)', 'validation_error'],
    ['https://user:pass@hooks.example.com/x', 'validation_error'],
    ['(a 2,126-character URL)', 'validation_error'],
  ])('%s -> 400 %s in sandbox and production', async (label, code) => {
    const url = label.startsWith('(') ? long : label;
    for (const m of [sandbox, prod]) {
      const res = await create(m, url);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(code);
      expect(res.body.error.param).toBe('url');
    }
  });
});

describe('sandbox webhook URLs', () => {
  test.each(['http://127.0.0.1:4242/webhooks', 'http://localhost:3000/hook', 'http://10.0.0.5/x', 'http://[::1]:8080/', 'https://evil.example/'])(
    '%s is allowed (local development)',
    async (url) => {
      const res = await create(sandbox, url);
      expect(res.status).toBe(200);
      expect(res.body.livemode).toBe(false);
    },
  );
});

describe('sandbox webhook URLs on a shared server (BPAY_SANDBOX_LOCAL_WEBHOOKS off)', () => {
  test('local targets are refused when given and before every delivery; public ones work, over http too', async () => {
    // Allowed while the setting was on (a developer's install), then the operator turns it off.
    const early = (await create(sandbox, 'http://10.0.0.9/hook')).body;
    ctx.deps.webhooks.sandboxLocal = false;
    try {
      for (const url of ['http://127.0.0.1:4242/webhooks', 'http://localhost:3000/hook', 'http://[::1]:8080/', 'https://evil.example/', 'http://metadata.example/']) {
        const res = await create(sandbox, url);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('url_not_allowed');
        expect(res.body.error.message).not.toContain('in production');
      }
      const pub = await create(sandbox, 'http://hooks.example.com/webhooks');
      expect(pub.status).toBe(200);

      const calls: string[] = [];
      ctx.deps.webhooks.fetch = async (url, init) => {
        calls.push(`${url} host=${new Headers(init.headers).get('host')}`);
        return new Response('ok', { status: 200 });
      };
      expect((await v1(ctx, sandbox.key, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } })).status).toBe(200);
      await deliverDueWebhooks(ctx.deps, { limit: 100 });
      // To the address that was checked, speaking to the name.
      expect(calls).toContain('http://93.184.216.34/webhooks host=hooks.example.com');
      expect(calls.filter((c) => c.includes('10.0.0.9'))).toEqual([]);
      const [attempt] = await ctx.handle.db
        .select({ error: schema.webhookAttempts.error })
        .from(schema.webhookAttempts)
        .innerJoin(schema.webhookDeliveries, eq(schema.webhookDeliveries.id, schema.webhookAttempts.deliveryId))
        .where(eq(schema.webhookDeliveries.endpointId, early.id));
      expect(attempt?.error).toContain('url_not_allowed');
    } finally {
      ctx.deps.webhooks.sandboxLocal = true;
      for (const id of [early.id]) await v1(ctx, sandbox.key, `/webhook_endpoints/${id}`, { method: 'DELETE' });
    }
  });
});

describe('checkWebhookUrl', () => {
  test('the default resolver is the system one: localhost resolves to loopback', async () => {
    const local = await makeTestApp();
    try {
      const addrs = await local.deps.webhooks.resolveHost('localhost');
      expect(addrs.length).toBeGreaterThan(0);
      for (const a of addrs) expect(classifyAddress(a.address)).toBe('loopback');
    } finally {
      local.close();
    }
  });

  test('a resolver that hangs is given up on and the URL refused', async () => {
    const hang = () => new Promise<never>(() => {});
    const err = await checkWebhookUrl('https://slow.example/', { production: true, resolveHost: hang, resolveTimeoutMs: 20 }).catch((e) => e);
    expect(err.code).toBe('url_not_allowed');
    expect(err.message).toContain('could not be resolved');
  });
});

describe('DNS rebinding: the rules are checked again before every production delivery', () => {
  test('a name that now resolves to loopback is not called; the failed attempt is recorded and retried later', async () => {
    const ep = (await create(prod, 'https://rebind.example/webhooks')).body;
    const calls: string[] = [];
    ctx.deps.webhooks.fetch = async (url, init) => {
      calls.push(`${url} host=${new Headers(init.headers).get('host')}`);
      return new Response('ok', { status: 200 });
    };
    // Something happens: an event and a delivery to this endpoint (and the other production endpoints).
    expect((await v1(ctx, prod.key, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } })).status).toBe(200);
    const [delivery] = await ctx.handle.db.select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.endpointId, ep.id));
    expect(delivery?.status).toBe('pending');

    dns['rebind.example'] = ['127.0.0.1'];
    await deliverDueWebhooks(ctx.deps, { limit: 100 });
    expect(calls.filter((c) => c.includes('rebind.example') || c.includes('127.0.0.1'))).toEqual([]);
    const after = await ctx.handle.db.query.webhookDeliveries.findFirst({ where: eq(schema.webhookDeliveries.id, delivery!.id) });
    expect(after?.status).toBe('pending');
    expect(after?.attempts).toBe(1);
    const attempts = await ctx.handle.db.select().from(schema.webhookAttempts).where(eq(schema.webhookAttempts.deliveryId, delivery!.id));
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.statusCode).toBeNull();
    expect(attempts[0]?.error).toContain('url_not_allowed');

    // Back to a public address: the retry goes out.
    dns['rebind.example'] = ['93.184.216.34'];
    ctx.clock.advance(31_000);
    await deliverDueWebhooks(ctx.deps, { limit: 100 });
    expect(calls).toContain('https://93.184.216.34/webhooks host=rebind.example');
    const done = await ctx.handle.db.query.webhookDeliveries.findFirst({ where: eq(schema.webhookDeliveries.id, delivery!.id) });
    expect(done?.status).toBe('succeeded');
    expect(done?.attempts).toBe(2);
  });
});
