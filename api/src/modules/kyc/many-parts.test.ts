/**
 * A multipart body of thousands of tiny parts costs the parsers time while staying far under the size caps (an
 * audit measured 20 s for 40,000 parts when fields were matched to headers by a scan per field). A verification
 * is a handful of parts: more than MAX_PARTS is refused before the form is parsed.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { MAX_PARTS } from './routes';
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
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'validation_error',
      param: 'documents',
      message: `A verification has at most ${MAX_PARTS} form parts: its fields and up to 5 documents.`,
    });
  }
});

test('the wizard form itself is well under the limit and still accepted', async () => {
  const res = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: kycForm() });
  expect(res.status).toBe(201);
});
