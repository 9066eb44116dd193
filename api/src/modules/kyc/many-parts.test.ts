/**
 * A multipart body of thousands of tiny parts costs the parsers time while staying far under the size caps (an
 * audit measured 20 s for 40,000 parts when fields were matched to headers by a scan per field, and later another
 * client's GET waiting 19× its normal time behind 20 bodies of 10,000 fields). A verification is a handful of parts:
 * more than MAX_PARTS is refused with 413 while the body streams in, before anything is parsed.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { MAX_PART_HEADER_BYTES, MAX_PART_HEADER_LINES } from './multipart-guard';
import { MAX_PARTS, readMultipart } from './read-multipart';
import { kycForm } from '../../../test-support/modules/kyc';

let ctx: TestContext;
let cookie: string;
beforeAll(async () => {
  ctx = await makeTestApp();
  cookie = (await registerUser(ctx)).cookie;
});
afterAll(() => ctx.close());

function manyParts(n: number): { body: string; type: string } {
  const boundary = 'bpayboundary';
  let body = '';
  for (let i = 0; i < n; i++) body += `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nx\r\n`;
  return { body: `${body}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

test('more parts than a verification has are refused before the form is parsed', async () => {
  for (const n of [MAX_PARTS + 1, 40_000]) {
    const { body, type } = manyParts(n);
    const res = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: body, headers: { 'content-type': type } });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'payload_too_large',
      param: 'documents',
      message: `A verification has at most ${MAX_PARTS} form parts (its 7 fields and up to 5 documents); this upload has more.`,
    });
    expect(res.body.error.request_id).toMatch(/^req_/);
  }
});

test('exactly MAX_PARTS parts are read and parsed (then judged by the service)', async () => {
  const { body, type } = manyParts(MAX_PARTS);
  const res = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: body, headers: { 'content-type': type } });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('validation_error');
});

test('a part with too many or too long header lines is refused with 413 naming the limit', async () => {
  const boundary = 'bpayboundary';
  const type = `multipart/form-data; boundary=${boundary}`;
  const part = (headers: string) => `--${boundary}\r\nContent-Disposition: form-data; name="firstName"\r\n${headers}\r\nAda\r\n--${boundary}--\r\n`;
  const lines = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: part('X: y\r\n'.repeat(10_000)), headers: { 'content-type': type } });
  expect(lines.status).toBe(413);
  expect(lines.body.error).toMatchObject({
    code: 'payload_too_large',
    param: 'documents',
    message: `Each form part may have at most ${MAX_PART_HEADER_LINES} header lines; this upload has a part with more.`,
  });
  const long = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: part(`X: ${'y'.repeat(100 * 1024)}\r\n`), headers: { 'content-type': type } });
  expect(long.status).toBe(413);
  expect(long.body.error).toMatchObject({
    code: 'payload_too_large',
    param: 'documents',
    message: `Each form part's headers may be at most ${MAX_PART_HEADER_BYTES / 1024} KB; this upload has a part with more.`,
  });
});

test('a multipart type without a boundary we can read is refused before the body is read', async () => {
  const { body } = manyParts(1);
  const res = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: body, headers: { 'content-type': `multipart/form-data; boundary=${'b'.repeat(201)}` } });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'validation_error', message: 'The request body is not valid multipart/form-data.' });
});

test('a Content-Type whose boundary the guard and the form parser would read differently never gets a body parsed', async () => {
  // Each pair: a Content-Type, and the boundary Bun's parser takes from it while the guard read another (a parameter
  // inside another's quotes, a space after '=', an empty quoted boundary). The guard then counted no part at all.
  const cases: [type: string, parsedBoundary: string][] = [
    ['multipart/form-data; charset="x; boundary=AAA"; boundary=BBB', 'BBB'],
    ['multipart/form-data; foo="a\\"; boundary=AAA"; boundary=BBB', 'BBB'],
    ['multipart/form-data; boundary= AAA', ' AAA'],
    ['multipart/form-data; boundary=""; boundary=AAA', ''],
  ];
  for (const [type, parsedBoundary] of cases) {
    let body = '';
    for (let i = 0; i < 2_000; i++) body += `--${parsedBoundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nx\r\n`;
    body += `--${parsedBoundary}--\r\n`;
    const request = new Request('http://localhost/api/kyc/submit', { method: 'POST', headers: { 'content-type': type }, body });
    const outcome = await readMultipart(request).then(
      (form) => `parsed ${[...form.keys()].length} fields`,
      (e: { status?: number; code?: string }) => `${e.status} ${e.code}`,
    );
    expect({ type, outcome }).toEqual({ type, outcome: expect.stringMatching(/^(400 validation_error|413 payload_too_large)$/) });
  }
});

test('the wizard form itself is well under the limit and still accepted', async () => {
  const res = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: kycForm() });
  expect(res.status).toBe(201);
});
