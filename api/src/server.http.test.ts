/**
 * Issue 11 §2 through the real HTTP layer: the process entry (server.ts) started as start.sh starts it. Bun answers
 * oversized headers and bodies itself with an empty body unless its own caps are above ours; these check that the
 * app's shaped 413 and 431 are what a client really gets.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Subprocess } from 'bun';
import { compressFolder } from '../../web/compress';

const ASSET_NAME = 'index-abcd1234.js';
const ASSET = `export const copy = ${JSON.stringify('bpay pays in parts. '.repeat(500))};\n`;
const AR_PAGE = `<!doctype html><html lang="ar" dir="rtl"><body>${'<p>ادفع على دفعات</p>'.repeat(100)}</body></html>`;

const INDEX_HTML = '<!doctype html><title>bpay</title><div id="root"></div>';

let dir: string;
let proc: Subprocess;
let base: string;

function freePort(): number {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-http-'));
  mkdirSync(join(dir, 'web'));
  writeFileSync(join(dir, 'web', 'index.html'), INDEX_HTML);
  // A built asset and a prerendered page, with the build's own compression step.
  mkdirSync(join(dir, 'web', 'assets'));
  writeFileSync(join(dir, 'web', 'assets', ASSET_NAME), ASSET);
  mkdirSync(join(dir, 'web', 'pages'));
  writeFileSync(join(dir, 'web', 'pages', 'ar.html'), AR_PAGE);
  compressFolder(join(dir, 'web'));
  const port = freePort();
  base = `http://127.0.0.1:${port}`;
  proc = Bun.spawn(['bun', '--max-http-header-size=262144', join(import.meta.dir, 'server.ts')], {
    cwd: join(import.meta.dir, '../..'),
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      BPAY_DATABASE_URL: `file:${join(dir, 'bpay.db')}`,
      BPAY_SESSION_SECRET: 'http-test-session-secret-http-test-session',
      BPAY_WEB_DIST: join(dir, 'web'),
      BPAY_UPLOADS_DIR: join(dir, 'uploads'),
      BPAY_WEBHOOK_WORKER: 'off',
      BPAY_LOG_LEVEL: 'error',
      BPAY_PUBLIC_URL: 'https://pay.example.com',
    },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${base}/api/subscription/tiers`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await Bun.sleep(50);
  }
  throw new Error(`the server did not start: ${await new Response(proc.stderr as ReadableStream).text()}`);
}, 30_000);

afterAll(() => {
  proc?.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function expectShaped(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/json');
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(body.error).toMatchObject({ type: 'invalid_request_error', code });
  expect(String(body.error.request_id)).toMatch(/^req_/);
  expect(res.headers.get('request-id')).toBe(body.error.request_id as string);
}

const json = { 'content-type': 'application/json' };
// An early 413 leaves the rest of the body unread, so the server drops the connection; a pooled client connection
// would then fail the next request (as it would against nginx). Oversized requests here go on their own connection.
const alone = { keepalive: false } as const;

test('headers over 16 KB: 431 in the error shape, on the API and on a web page', async () => {
  for (const path of ['/api/subscription/tiers', '/', '/swagger']) {
    for (const size of [20_000, 100_000]) {
      await expectShaped(await fetch(`${base}${path}`, { ...alone, headers: { 'x-pad': 'y'.repeat(size) } }), 431, 'headers_too_large');
    }
  }
});

test('a URL over 8 KB: 414 in the error shape, on the API and on a web page (Bun would take up to 256 KiB)', async () => {
  for (const path of ['/api/subscription/tiers', '/', '/swagger']) {
    await expectShaped(await fetch(`${base}${path}?${'a=1&'.repeat(25_000)}`, alone), 414, 'uri_too_long');
  }
});

test('a request without a usable Host: 400 in the error shape, not a 500', async () => {
  const { connect } = await import('node:net');
  const port = Number(new URL(base).port);
  for (const head of ['GET /api/subscription/tiers HTTP/1.0\r\n\r\n', 'GET / HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n']) {
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('connect', () => socket.write(head));
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ code: 'validation_error', param: 'host', message: 'The request has no valid Host header.' });
  }
});

test("the consumer's notice stream outlives Bun's 10 s idle limit, as the merchant event stream does", async () => {
  const origin = 'https://pay.example.com';
  const email = `stream-${Date.now()}@example.com`;
  const registered = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: { ...json, origin },
    body: JSON.stringify({ email, password: 'correct horse battery staple', firstName: 'Ada', lastName: 'Lovelace' }),
  });
  expect(registered.status).toBe(201);
  const cookie = /((?:__Host-)?bpay_session=[^;]*)/.exec(registered.headers.get('set-cookie') ?? '')![1]!;
  const stream = await fetch(`${base}/api/notifications/stream`, { headers: { cookie, origin } });
  expect(stream.status).toBe(200);
  const reader = stream.body!.getReader();
  let ended = false;
  void (async () => {
    for (;;) if ((await reader.read()).done) break;
    ended = true;
  })().catch(() => (ended = true));
  // Bun's idle timer is checked every 4 s: a connection it cuts at 10 s is gone by 14 s. The first ping is at 15 s.
  await Bun.sleep(14_500);
  expect(ended).toBe(false);
  await reader.cancel();
}, 30_000);

test('a body over the route limit: 413 in the error shape, whatever its size or framing', async () => {
  await expectShaped(await fetch(`${base}/api/auth/login`, { ...alone, method: 'POST', headers: json, body: 'x'.repeat(40 * 1024) }), 413, 'payload_too_large');
  // Over the 12 MB Bun used to be given, which it answered with an empty 413.
  await expectShaped(
    await fetch(`${base}/api/auth/login`, { ...alone, method: 'POST', headers: json, body: new Uint8Array(13 * 1024 * 1024) }),
    413,
    'payload_too_large',
  );
  const chunked = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < 64; i++) c.enqueue(new Uint8Array(16 * 1024).fill(32));
      c.close();
    },
  });
  await expectShaped(await fetch(`${base}/api/auth/login`, { ...alone, method: 'POST', headers: json, body: chunked }), 413, 'payload_too_large');
});

test('the merchant API takes larger bodies (256 KB), and the server still answers normally afterwards', async () => {
  const res = await fetch(`${base}/api/v1/payment_intents`, { ...alone, method: 'POST', headers: json, body: JSON.stringify({ pad: 'y'.repeat(100 * 1024) }) });
  // Read, parsed, then refused for the missing key: not a size error.
  expect({ status: res.status, body: await res.text() }).toMatchObject({ status: 401 });
  await expectShaped(
    await fetch(`${base}/api/v1/payment_intents`, { ...alone, method: 'POST', headers: json, body: 'x'.repeat(300 * 1024) }),
    413,
    'payload_too_large',
  );
  expect((await fetch(`${base}/api/subscription/tiers`)).status).toBe(200);
});

test('malformed and traversing paths get the app (its not-found page, 404), never an error page or a file beside the build', async () => {
  for (const path of ['/%zz', '/..%2fbpay.db', '/..%2f..%2fetc/passwd', '/%2e%2e%2fbpay.db']) {
    const res = await fetch(`${base}${path}`);
    const text = await res.text();
    expect({ path, status: res.status }).toEqual({ path, status: 404 });
    expect(text).toBe(INDEX_HTML);
  }
});

test('issue 25 6e: a known route is 200, an unknown path 404 with the SPA, /api/nope a JSON 404, a missing asset 404', async () => {
  for (const path of ['/plans', '/checkout/pay', '/extension/connect', '/confirm-email', '/auth/logout']) {
    const res = await fetch(`${base}${path}`);
    expect({ path, status: res.status, body: await res.text() }).toEqual({ path, status: 200, body: INDEX_HTML });
  }
  expect((await fetch(`${base}/ar`)).status).toBe(200);
  const unknown = await fetch(`${base}/no/such/page`);
  expect(unknown.status).toBe(404);
  expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await unknown.text()).toContain('<div id="root"></div>');
  await expectShaped(await fetch(`${base}/api/nope`), 404, 'route_not_found');
  const asset = await fetch(`${base}/assets/deep/er/gone-abcdefgh.js`);
  expect({ status: asset.status, type: asset.headers.get('content-type') }).toEqual({ status: 404, type: 'text/plain; charset=utf-8' });
});

test("Stripe's /v1 paths are the merchant API, never the web app: an unknown one is a JSON 404", async () => {
  await expectShaped(await fetch(`${base}/v1/no_such_thing`), 404, 'route_not_found');
  const keyless = await fetch(`${base}/v1/payment_intents`);
  expect(keyless.status).toBe(401);
  expect(((await keyless.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
});

/** A raw HTTP exchange: fetch would decode the body and hide Content-Encoding's effect on the bytes. */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolvePromise, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

test('a built asset is sent as brotli, gzip or as it is by Accept-Encoding, with Vary and a year of immutable cache', async () => {
  const path = `/assets/${ASSET_NAME}`;
  const br = await raw(path, { 'accept-encoding': 'br, gzip' });
  expect(br.status).toBe(200);
  expect(br.headers).toMatchObject({
    'content-encoding': 'br',
    'content-type': 'text/javascript; charset=utf-8',
    vary: 'Accept-Encoding',
    'cache-control': 'public, max-age=31536000, immutable',
    'content-length': String(br.body.byteLength),
  });
  expect(brotliDecompressSync(br.body).toString()).toBe(ASSET);

  const gz = await raw(path, { 'accept-encoding': 'gzip' });
  expect(gz.headers).toMatchObject({ 'content-encoding': 'gzip', vary: 'Accept-Encoding', 'content-length': String(gz.body.byteLength) });
  expect(gunzipSync(gz.body).toString()).toBe(ASSET);

  const identity = await raw(path);
  expect(identity.headers['content-encoding']).toBeUndefined();
  expect(identity.headers).toMatchObject({ vary: 'Accept-Encoding', 'content-length': String(ASSET.length), 'content-type': 'text/javascript; charset=utf-8' });
  expect(identity.body.toString()).toBe(ASSET);

  const head = await raw(path, { 'accept-encoding': 'br' }, 'HEAD');
  expect(head.headers).toMatchObject({ 'content-encoding': 'br', 'content-length': String(br.body.byteLength) });
  expect(head.body.byteLength).toBe(0);
});

test('index.html (and the SPA fallback) is no-cache with a strong ETag, and 304 when the client has it', async () => {
  const first = await raw('/kyc-verification', { 'accept-encoding': 'br, gzip' });
  expect(first.status).toBe(200);
  expect(first.headers).toMatchObject({ 'cache-control': 'no-cache', 'content-type': 'text/html; charset=utf-8', vary: 'Accept-Encoding' });
  const etag = String(first.headers.etag);
  expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
  const again = await raw('/merchant-dashboard', { 'accept-encoding': 'br, gzip', 'if-none-match': etag });
  expect(again.status).toBe(304);
  expect(again.headers.etag).toBe(etag);
  expect(again.body.byteLength).toBe(0);
});

test('a prerendered page answers its route, compressed, and revalidated', async () => {
  const ar = await raw('/ar', { 'accept-encoding': 'gzip' });
  expect(ar.headers).toMatchObject({ 'content-encoding': 'gzip', 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
  expect(gunzipSync(ar.body).toString()).toBe(AR_PAGE);
  expect((await raw('/ar', { 'accept-encoding': 'gzip', 'if-none-match': String(ar.headers.etag) })).status).toBe(304);
});

test('a JSON answer over 1 KB is compressed (the API document), and the docs script too', async () => {
  const doc = await raw('/swagger/json', { 'accept-encoding': 'br, gzip' });
  expect(doc.status).toBe(200);
  expect(doc.headers).toMatchObject({ 'content-encoding': 'br', vary: 'Accept-Encoding', 'content-length': String(doc.body.byteLength) });
  expect(JSON.parse(brotliDecompressSync(doc.body).toString())).toHaveProperty('openapi');
  const gz = await raw('/swagger/json', { 'accept-encoding': 'gzip' });
  expect(gz.headers['content-encoding']).toBe('gzip');
  expect(JSON.parse(gunzipSync(gz.body).toString())).toHaveProperty('paths');
  const plain = await raw('/swagger/json');
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(JSON.parse(plain.body.toString())).toHaveProperty('openapi');
  // The docs' own script, 1.5 MB shipped uncompressed, is compressed by the server once.
  const script = await raw('/swagger/assets/swagger-ui-bundle.js', { 'accept-encoding': 'gzip' });
  expect(script.headers).toMatchObject({ 'content-encoding': 'gzip', 'content-type': 'text/javascript; charset=utf-8' });
  expect(script.body.byteLength).toBeLessThan(700_000);
});

test('robots.txt and sitemap.xml name the public URL', async () => {
  const robots = await raw('/robots.txt');
  expect(robots.status).toBe(200);
  expect(robots.headers).toMatchObject({ 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' });
  expect(robots.body.toString()).toContain('Sitemap: https://pay.example.com/sitemap.xml');
  expect(robots.body.toString()).toContain('Disallow: /admin-panel');
  expect((await raw('/robots.txt', { 'if-none-match': String(robots.headers.etag) })).status).toBe(304);
  const sitemap = await raw('/sitemap.xml');
  expect(sitemap.headers['content-type']).toBe('application/xml; charset=utf-8');
  expect(sitemap.body.toString()).toContain('<loc>https://pay.example.com/terms-conditions</loc>');
});
