/**
 * Issue 11 §2 through the real HTTP layer: the process entry (server.ts) started as start.sh starts it. Bun answers
 * oversized headers and bodies itself with an empty body unless its own caps are above ours; these check that the
 * app's shaped 413 and 431 are what a client really gets.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';

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
  writeFileSync(join(dir, 'web', 'index.html'), '<!doctype html><title>bpay</title>');
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

test('malformed and traversing paths get the app, never an error page or a file beside the build', async () => {
  for (const path of ['/%zz', '/..%2fbpay.db', '/..%2f..%2fetc/passwd', '/%2e%2e%2fbpay.db']) {
    const res = await fetch(`${base}${path}`);
    const text = await res.text();
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    expect(text).toBe('<!doctype html><title>bpay</title>');
  }
});
