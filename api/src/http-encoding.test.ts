import { expect, test } from 'bun:test';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync } from 'node:zlib';
import { BROTLI_QUALITY, compressJsonResponse, JSON_COMPRESS_MIN_BYTES, negotiateEncoding, varyOnAcceptEncoding, type Coding } from './http-encoding';

const both: Coding[] = ['br', 'gzip'];

test.each([
  { header: null, available: both, expected: null },
  { header: '', available: both, expected: null },
  { header: 'br, gzip', available: both, expected: 'br' },
  { header: 'gzip, deflate, br, zstd', available: both, expected: 'br' },
  { header: 'gzip', available: both, expected: 'gzip' },
  { header: 'x-gzip', available: both, expected: 'gzip' },
  { header: 'GZIP', available: both, expected: 'gzip' },
  { header: 'br, gzip', available: ['gzip'], expected: 'gzip' },
  { header: 'br', available: ['gzip'], expected: null },
  { header: 'br', available: [], expected: null },
  { header: 'identity', available: both, expected: null },
  { header: 'deflate', available: both, expected: null },
  { header: 'br;q=0, gzip', available: both, expected: 'gzip' },
  { header: 'br;q=0.5, gzip;q=0.8', available: both, expected: 'gzip' },
  { header: 'br;q=0.8, gzip;q=0.8', available: both, expected: 'br' },
  { header: 'br; q=0.000, gzip; q=1.0', available: both, expected: 'gzip' },
  { header: '*', available: both, expected: 'br' },
  { header: '*;q=0', available: both, expected: null },
  { header: 'gzip, *;q=0', available: both, expected: 'gzip' },
  { header: '*, br;q=0', available: both, expected: 'gzip' },
  { header: 'identity;q=0, *;q=0', available: both, expected: null },
  { header: 'br;q=2', available: both, expected: null },
  { header: 'br;q=abc, gzip', available: both, expected: 'gzip' },
] as { header: string | null; available: Coding[]; expected: Coding | null }[])('Accept-Encoding $header with $available -> $expected', ({ header, available, expected }) => {
  expect(negotiateEncoding(header, available)).toBe(expected);
});

test('Vary gains Accept-Encoding once, beside what is there', () => {
  const h = new Headers();
  varyOnAcceptEncoding(h);
  varyOnAcceptEncoding(h);
  expect(h.get('vary')).toBe('Accept-Encoding');
  const origin = new Headers({ vary: 'Origin' });
  varyOnAcceptEncoding(origin);
  expect(origin.get('vary')).toBe('Origin, Accept-Encoding');
  const star = new Headers({ vary: '*' });
  varyOnAcceptEncoding(star);
  expect(star.get('vary')).toBe('*');
});

const big = JSON.stringify({ items: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `item number ${i}` })) });
const small = JSON.stringify({ ok: true });
const get = (acceptEncoding?: string, method = 'GET') =>
  new Request('http://x/api/things', { method, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });
const json = (body: string | null, init: ResponseInit = {}) =>
  new Response(body, { ...init, headers: { 'content-type': 'application/json;charset=utf-8', ...(init.headers as Record<string, string>) } });

test('a JSON answer of 1 KB or more is sent as brotli or gzip, with its own length and Vary', async () => {
  expect(big.length).toBeGreaterThan(JSON_COMPRESS_MIN_BYTES);
  const br = await compressJsonResponse(get('br, gzip'), json(big, { status: 201, headers: { 'request-id': 'req_1' } }));
  expect(br.status).toBe(201);
  expect(br.headers.get('content-encoding')).toBe('br');
  expect(br.headers.get('vary')).toBe('Accept-Encoding');
  expect(br.headers.get('request-id')).toBe('req_1');
  expect(br.headers.get('content-type')).toBe('application/json;charset=utf-8');
  const brBytes = new Uint8Array(await br.arrayBuffer());
  expect(Number(br.headers.get('content-length'))).toBe(brBytes.byteLength);
  expect(brBytes.byteLength).toBeLessThan(big.length / 2);
  expect(brotliDecompressSync(brBytes).toString()).toBe(big);

  const gz = await compressJsonResponse(get('gzip'), json(big));
  expect(gz.headers.get('content-encoding')).toBe('gzip');
  const gzBytes = new Uint8Array(await gz.arrayBuffer());
  expect(Number(gz.headers.get('content-length'))).toBe(gzBytes.byteLength);
  expect(gunzipSync(gzBytes).toString()).toBe(big);
});

test("brotli runs at quality 1, the cheapest setting: the bytes are quality 1's, fewer than quality 0 would send", async () => {
  expect(BROTLI_QUALITY).toBe(1);
  const bytes = new TextEncoder().encode(big);
  const at = (quality: number) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } });
  const sent = new Uint8Array(await (await compressJsonResponse(get('br'), json(big))).arrayBuffer());
  expect(Buffer.from(sent).equals(at(1))).toBe(true);
  expect(Buffer.from(sent).equals(at(5))).toBe(false);
  expect(sent.byteLength).toBeLessThan(at(0).byteLength);
});

test('a strong ETag of the plain JSON becomes weak once compressed', async () => {
  const res = await compressJsonResponse(get('br'), json(big, { headers: { etag: '"abc"' } }));
  expect(res.headers.get('etag')).toBe('W/"abc"');
});

test('sent as it is: small JSON, no Accept-Encoding, HEAD, 204/304, other types, the event stream, encoded or no-transform', async () => {
  const plain = async (req: Request, res: Response) => {
    const out = await compressJsonResponse(req, res);
    expect(out.headers.get('content-encoding')).toBe(res.headers.get('content-encoding'));
    return out;
  };
  const smallRes = await plain(get('br'), json(small));
  expect(await smallRes.text()).toBe(small);
  expect(smallRes.headers.get('vary')).toBe('Accept-Encoding');
  expect(await (await plain(get(), json(big))).text()).toBe(big);
  expect(await (await plain(get('identity'), json(big))).text()).toBe(big);
  await plain(get('br', 'HEAD'), json(null, { headers: { 'content-length': String(big.length) } }));
  await plain(get('br'), json(null, { status: 204 }));
  await plain(get('br'), json(null, { status: 304 }));
  const html = new Response('<p>'.repeat(1000), { headers: { 'content-type': 'text/html' } });
  expect(await plain(get('br'), html)).toBe(html);
  const stream = new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('data: {}\n\n')) }), {
    headers: { 'content-type': 'text/event-stream' },
  });
  // The very same object: the stream is never read or buffered.
  expect(await plain(get('br'), stream)).toBe(stream);
  const encoded = json(big, { headers: { 'content-encoding': 'gzip' } });
  expect(await plain(get('br'), encoded)).toBe(encoded);
  const noTransform = json(big, { headers: { 'cache-control': 'private, no-transform' } });
  expect(await plain(get('br'), noTransform)).toBe(noTransform);
});

test('every Set-Cookie survives, compressed or not (a sign-in answer sets more than one)', async () => {
  for (const body of [big, small]) {
    const res = new Response(body, {
      headers: [
        ['content-type', 'application/json'],
        ['set-cookie', 'a=1; Path=/; HttpOnly'],
        ['set-cookie', 'b=2; Path=/; HttpOnly'],
      ],
    });
    const out = await compressJsonResponse(get('br'), res);
    expect(out.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2; Path=/; HttpOnly']);
  }
});
