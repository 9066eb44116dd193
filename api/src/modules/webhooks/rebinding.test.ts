import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server } from 'bun';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { attemptsOf, deliveriesOf, newMerchant, v1, type Merchant } from '../../../test-support/modules/webhooks';
import { isIpLiteral } from './address';
import { pinnedRequest, type PinnedInit } from './pinned';
import { deliverDueWebhooks } from './worker';

/*
 * DNS rebinding (issue 27): a webhook URL whose name resolved to a public address when it was checked is delivered
 * to that address, never to the one the name resolves to a moment later. The world here is made of stand-ins:
 *   - a resolver whose answers for a name are scripted in turn (public, then loopback), counting its calls;
 *   - a network: an address is a real local server (93.184.216.34 is receiver A, "public"; 127.0.0.1 is receiver B,
 *     "this machine"), and a URL with a name in it is resolved through the same resolver, as a fetch by name does
 *     (so code that checked once and then fetched by name would reach B, and these tests would fail);
 *   - for https, receiver A's certificate is for rebind.example only, signed by a CA made here with openssl and
 *     trusted by the network; the name's Host, SNI and certificate check must all survive the pinning.
 */

const PUBLIC = '93.184.216.34';
const PUBLIC_V6 = '2606:4700:4700::1111';
const LOOPBACK = '127.0.0.1';

interface Hit {
  host: string | null;
  path: string;
  type: string;
}

/** A receiver that records every request and answers `answer` (200 by default; a 3xx points at `location`). */
class Box {
  readonly hits: Hit[] = [];
  answer = 200;
  location = '';
  readonly server: Server<undefined>;
  constructor(tls?: { cert: string; key: string }) {
    this.server = Bun.serve({
      port: 0,
      hostname: LOOPBACK,
      ...(tls ? { tls } : {}),
      fetch: async (req) => {
        const body = (await req.json().catch(() => ({}))) as { type?: string };
        this.hits.push({ host: req.headers.get('host'), path: new URL(req.url).pathname, type: body.type ?? '' });
        return new Response('ok', { status: this.answer, headers: this.location ? { location: this.location } : {} });
      },
    });
  }
  reset() {
    this.hits.length = 0;
    this.answer = 200;
    this.location = '';
  }
}

/** openssl, when this machine has it: a CA and a certificate for rebind.example (only) signed by it. */
function makeCertificates(): { ca: string; cert: string; key: string } | null {
  if (!Bun.which('openssl')) return null;
  const dir = mkdtempSync(join(tmpdir(), 'bpay-rebind-'));
  const run = (args: string[]) => {
    const r = Bun.spawnSync(['openssl', ...args], { cwd: dir, stderr: 'pipe', stdout: 'pipe' });
    if (r.exitCode !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr.toString()}`);
  };
  try {
    run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=bpay test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign']);
    run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=rebind.example']);
    writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:rebind.example\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
    run(['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '2', '-extfile', 'ext.cnf']);
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    return { ca: read('ca.pem'), cert: read('leaf.pem'), key: read('leaf.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let ctx: TestContext;
let owner: { cookie: string };
const certs = makeCertificates();
/** Receiver A behind the public address: over https (certificate for rebind.example) when openssl exists. */
let httpsA: Box | null = null;
let httpA: Box;
let httpB: Box;
let httpsB: Box | null = null;

/** name -> the answers it gives, one per lookup in turn; the last one repeats. */
const script = new Map<string, string[][]>();
const lookups = new Map<string, number>();
const resolver = async (host: string) => {
  const answers = script.get(host);
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  const n = lookups.get(host) ?? 0;
  lookups.set(host, n + 1);
  return answers[Math.min(n, answers.length - 1)]!.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

/** What reached the network: the address connected to, the Host header, the TLS server name. */
const wire: Array<{ address: string; host: string | null; serverName: string | null }> = [];

/** The network stand-in (deps.webhooks.fetch): routes an address to its local server; a name is resolved first. */
async function network(rawUrl: string, init: PinnedInit): Promise<Response> {
  const url = new URL(rawUrl);
  const headers = new Headers(init.headers);
  let address = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let serverName = init.tls?.serverName ?? null;
  if (!isIpLiteral(url.hostname)) {
    // A fetch by name: resolved now, with the Host and server name of the URL.
    address = (await resolver(url.hostname))[0]!.address;
    if (!headers.has('host')) headers.set('host', url.host);
    serverName = url.hostname;
  }
  wire.push({ address, host: headers.get('host'), serverName });
  const https = url.protocol === 'https:';
  const box = address === PUBLIC ? (https ? httpsA : httpA) : address === LOOPBACK ? (https ? httpsB : httpB) : null;
  if (!box) throw new TypeError(`Unable to connect to ${address}. Is the computer able to access the url?`);
  const local = new URL(rawUrl);
  local.hostname = LOOPBACK;
  local.port = String(box.server.port);
  return fetch(local.toString(), {
    ...init,
    headers,
    ...(https ? { tls: { ca: certs!.ca, ...(serverName ? { serverName } : {}) } } : {}),
  } as RequestInit);
}

beforeAll(async () => {
  ctx = await makeTestApp();
  ctx.deps.webhooks.resolveHost = resolver;
  ctx.deps.webhooks.fetch = network;
  ctx.deps.webhooks.timeoutMs = 5000;
  owner = await registerUser(ctx);
  httpA = new Box();
  httpB = new Box();
  if (certs) {
    httpsA = new Box({ cert: certs.cert, key: certs.key });
    // "This machine" answers https too (with the same certificate: the worst case, one it would accept).
    httpsB = new Box({ cert: certs.cert, key: certs.key });
  }
});
afterAll(() => {
  for (const b of [httpA, httpB, httpsA, httpsB]) b?.server.stop(true);
  ctx.close();
});

function reset() {
  for (const b of [httpA, httpB, httpsA, httpsB]) b?.reset();
  wire.length = 0;
  lookups.clear();
  script.clear();
}

async function endpoint(m: Merchant, url: string): Promise<string> {
  const res = await v1(ctx, m.key, '/webhook_endpoints', { method: 'POST', body: { url, enabled_events: ['*'] } });
  if (res.status !== 200) throw new Error(`endpoint: ${res.status} ${res.text}`);
  return res.body.id;
}

async function intent(m: Merchant) {
  const res = await v1(ctx, m.key, '/payment_intents', { method: 'POST', body: { amount: 1000, currency: 'usd' } });
  expect(res.status).toBe(200);
}

describe('a shared server (sandbox local targets off): http', () => {
  let m: Merchant;
  beforeAll(async () => {
    ctx.deps.webhooks.sandboxLocal = false;
    m = await newMerchant(ctx, owner.cookie, 'sandbox');
  });
  afterAll(() => {
    ctx.deps.webhooks.sandboxLocal = true;
  });

  test('the name answers public when checked, then loopback: the delivery reaches the public address only', async () => {
    reset();
    // Created while public (lookup 1); the delivery's check sees public too (lookup 2); any later lookup, loopback.
    script.set('rebind.example', [[PUBLIC], [PUBLIC], [LOOPBACK]]);
    const ep = await endpoint(m, 'http://rebind.example:8080/hooks?x=1');
    await intent(m);
    const run = await deliverDueWebhooks(ctx.deps, { limit: 20 });
    expect(run.succeeded).toBe(1);
    expect(httpB.hits).toEqual([]);
    expect(httpA.hits).toEqual([{ host: 'rebind.example:8080', path: '/hooks', type: 'payment_intent.created' }]);
    expect(wire).toEqual([{ address: PUBLIC, host: 'rebind.example:8080', serverName: null }]);
    // One lookup at creation, one for the delivery: the connection did not ask again.
    expect(lookups.get('rebind.example')).toBe(2);
    expect((await deliveriesOf(ctx, ep))[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    await v1(ctx, m.key, `/webhook_endpoints/${ep}`, { method: 'DELETE' });
  });

  test('a name that answers loopback when the delivery checks it: refused, nothing sent anywhere, retried later', async () => {
    reset();
    script.set('flip.example', [[PUBLIC], [LOOPBACK]]);
    const ep = await endpoint(m, 'http://flip.example/hooks');
    await intent(m);
    await deliverDueWebhooks(ctx.deps, { limit: 20 });
    expect(httpA.hits).toEqual([]);
    expect(httpB.hits).toEqual([]);
    expect(wire).toEqual([]);
    const [d] = await deliveriesOf(ctx, ep);
    expect(d).toMatchObject({ status: 'pending', attempts: 1 });
    expect((await attemptsOf(ctx, d!.id))[0]).toMatchObject({ statusCode: null, error: expect.stringContaining('url_not_allowed') });
    await v1(ctx, m.key, `/webhook_endpoints/${ep}`, { method: 'DELETE' });
  });

  test('one address among several private at check: nothing is sent, not even to the public one', async () => {
    reset();
    script.set('mixed.example', [[PUBLIC], [PUBLIC, LOOPBACK]]);
    const ep = await endpoint(m, 'http://mixed.example/hooks');
    await intent(m);
    await deliverDueWebhooks(ctx.deps, { limit: 20 });
    expect(wire).toEqual([]);
    expect(httpA.hits).toEqual([]);
    expect(httpB.hits).toEqual([]);
    await v1(ctx, m.key, `/webhook_endpoints/${ep}`, { method: 'DELETE' });
  });

  test('a checked address that does not connect: the next checked address is tried, never a new lookup', async () => {
    reset();
    script.set('two.example', [[PUBLIC_V6, PUBLIC], [PUBLIC_V6, PUBLIC], [LOOPBACK]]);
    const ep = await endpoint(m, 'http://two.example/hooks');
    await intent(m);
    expect((await deliverDueWebhooks(ctx.deps, { limit: 20 })).succeeded).toBe(1);
    expect(wire.map((w) => w.address)).toEqual([PUBLIC_V6, PUBLIC]);
    expect(httpA.hits).toHaveLength(1);
    expect(httpB.hits).toEqual([]);
    expect(lookups.get('two.example')).toBe(2);
    await v1(ctx, m.key, `/webhook_endpoints/${ep}`, { method: 'DELETE' });
  });

  test('a redirect from the checked address to this machine is not followed', async () => {
    reset();
    script.set('redir.example', [[PUBLIC]]);
    const ep = await endpoint(m, 'http://redir.example/hooks');
    httpA.answer = 307;
    httpA.location = `http://${LOOPBACK}:${httpB.server.port}/internal`;
    await intent(m);
    expect((await deliverDueWebhooks(ctx.deps, { limit: 20 })).retrying).toBe(1);
    expect(httpA.hits).toHaveLength(1);
    expect(httpB.hits).toEqual([]);
    const [d] = await deliveriesOf(ctx, ep);
    expect((await attemptsOf(ctx, d!.id))[0]).toMatchObject({ statusCode: 307 });
    await v1(ctx, m.key, `/webhook_endpoints/${ep}`, { method: 'DELETE' });
  });
});

describe.skipIf(!certs)('production: https to the checked address, the certificate still checked for the name', () => {
  let m: Merchant;
  beforeAll(async () => {
    m = await newMerchant(ctx, owner.cookie, 'production');
  });

  test('public when checked, loopback after: delivered to A over TLS with the name as Host and SNI; B gets nothing', async () => {
    reset();
    script.set('rebind.example', [[PUBLIC], [PUBLIC], [LOOPBACK]]);
    const ep = await endpoint(m, 'https://rebind.example/hooks');
    await intent(m);
    const run = await deliverDueWebhooks(ctx.deps, { limit: 20 });
    expect(run.succeeded).toBe(1);
    expect(httpsA!.hits).toEqual([{ host: 'rebind.example', path: '/hooks', type: 'payment_intent.created' }]);
    expect(httpsB!.hits).toEqual([]);
    expect(wire).toEqual([{ address: PUBLIC, host: 'rebind.example', serverName: 'rebind.example' }]);
    expect(lookups.get('rebind.example')).toBe(2);

    // The dashboard's "send a test event" goes the same way.
    reset();
    script.set('rebind.example', [[PUBLIC], [LOOPBACK]]);
    const sent = await call(ctx, `/api/merchants/${m.id}/webhook_endpoints/${ep}/test`, { method: 'POST', cookie: m.cookie });
    expect(sent.status).toBe(200);
    expect((await deliverDueWebhooks(ctx.deps, { limit: 20 })).succeeded).toBe(1);
    expect(httpsA!.hits.map((h) => h.type)).toEqual(['webhook_endpoint.test']);
    expect(httpsB!.hits).toEqual([]);
    await v1(ctx, m.key, `/webhook_endpoints/${ep}`, { method: 'DELETE' });
  });

  test('a name the certificate does not cover is refused by TLS even at a checked public address', async () => {
    reset();
    script.set('other.example', [[PUBLIC]]);
    const ep = await endpoint(m, 'https://other.example/hooks');
    await intent(m);
    expect((await deliverDueWebhooks(ctx.deps, { limit: 20 })).retrying).toBe(1);
    expect(wire).toEqual([{ address: PUBLIC, host: 'other.example', serverName: 'other.example' }]);
    expect(httpsA!.hits).toEqual([]);
    const [d] = await deliveriesOf(ctx, ep);
    expect((await attemptsOf(ctx, d!.id))[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/CERT|certificate/i) });
    await v1(ctx, m.key, `/webhook_endpoints/${ep}`, { method: 'DELETE' });
  });
});

describe('a developer install (sandbox local targets on)', () => {
  test('nothing is checked: the URL is fetched by name, as before', async () => {
    reset();
    const m = await newMerchant(ctx, owner.cookie, 'sandbox');
    const ep = await endpoint(m, `http://${LOOPBACK}:${httpB.server.port}/local`);
    await intent(m);
    expect((await deliverDueWebhooks(ctx.deps, { limit: 20 })).succeeded).toBe(1);
    expect(httpB.hits).toEqual([{ host: `${LOOPBACK}:${httpB.server.port}`, path: '/local', type: 'payment_intent.created' }]);
    expect(lookups.size).toBe(0);
    await v1(ctx, m.key, `/webhook_endpoints/${ep}`, { method: 'DELETE' });
  });
});

describe('pinnedRequest', () => {
  const init = { method: 'POST', headers: { 'content-type': 'application/json' } };
  test('the address goes in the URL; the name, with its port, in Host and (https) in the TLS server name', () => {
    const v4 = pinnedRequest('https://hooks.example.com:8443/a/b?c=1', PUBLIC, init);
    expect(v4.url).toBe(`https://${PUBLIC}:8443/a/b?c=1`);
    expect(new Headers(v4.init.headers).get('host')).toBe('hooks.example.com:8443');
    expect(new Headers(v4.init.headers).get('content-type')).toBe('application/json');
    expect(v4.init.tls).toEqual({ serverName: 'hooks.example.com' });
    expect(v4.init.keepalive).toBe(false);

    const v6 = pinnedRequest('https://hooks.example.com./x', PUBLIC_V6, init);
    expect(v6.url).toBe(`https://[${PUBLIC_V6}]/x`);
    expect(new Headers(v6.init.headers).get('host')).toBe('hooks.example.com.');
    expect(v6.init.tls).toEqual({ serverName: 'hooks.example.com' });

    const plain = pinnedRequest('http://hooks.example.com/x', PUBLIC, init);
    expect(plain.url).toBe(`http://${PUBLIC}/x`);
    expect(plain.init.tls).toBeUndefined();
  });

  test('a URL whose host is an address already is sent as it is', () => {
    expect(pinnedRequest(`https://${PUBLIC}/x`, PUBLIC, init)).toEqual({ url: `https://${PUBLIC}/x`, init });
  });
});
