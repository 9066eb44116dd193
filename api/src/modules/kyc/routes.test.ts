import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { unseal } from '../../lib/crypto';
import { setPeerAddress } from '../../lib/request-context';
import { call, makeTestApp, TEST_ORIGIN, type CallResult, type TestContext } from '../../../test-support/app';
import { addCard, CARDS_OK, registerUser } from '../../../test-support/world';
import { applyKycDecision, MAX_OPEN_VERIFICATIONS } from './service';
import { MAX_BODY_BYTES, MAX_FILE_BYTES } from './validation';

/*
 * /api/kyc: the submission's every field and file rule (content sniffing, sizes refused before reading, 1 to 5
 * files, 18 or older on the server's date), ownership of verifications and documents, storage at rest, the
 * pending limit, and the admin decision that gives a verified user their benefits. The clock starts 2026-01-15.
 */

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0]);
const PDF = new TextEncoder().encode('%PDF-1.7\n1 0 obj <<>> endobj\n%%EOF\n');
const SVG = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const HTML = new TextEncoder().encode('<!doctype html><html><body><script>alert(1)</script></body></html>');
const PNG_THEN_HTML = new Uint8Array([...PNG, ...HTML]);
function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const body = new Uint8Array([...new TextEncoder().encode(type), ...data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.set(body, 4);
  out.writeUInt32BE(Bun.hash.crc32(body), 8 + data.length);
  return out;
}
/** A whole 1×1 PNG (signature, IHDR, IDAT, IEND) followed by a script: a valid image with HTML after its end. */
const PNG_WITH_TRAILER = new Uint8Array([
  ...PNG.subarray(0, 8),
  ...pngChunk('IHDR', new Uint8Array([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])),
  ...pngChunk('IDAT', deflateSync(new Uint8Array([0, 0, 0, 0, 0]))),
  ...pngChunk('IEND', new Uint8Array(0)),
  ...HTML,
]);

type Fields = Record<string, string | undefined>;
const FIELDS: Fields = {
  verificationType: 'identity_document',
  documentType: 'passport',
  documentCountry: 'UK',
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  documentNumber: 'P1234567',
};

function form(over: Fields = {}, files: Array<{ bytes: Uint8Array; name: string; type?: string }> = [{ bytes: PNG, name: 'passport.png' }]) {
  const fd = new FormData();
  for (const [k, v] of Object.entries({ ...FIELDS, ...over })) if (v !== undefined) fd.append(k, v);
  for (const f of files) fd.append('documents', new File([f.bytes as Uint8Array<ArrayBuffer>], f.name, { type: f.type ?? 'image/png' }));
  return fd;
}

function submit(ctx: TestContext, cookie: string | null, fd: FormData, opts: { headers?: Record<string, string>; origin?: string | null } = {}) {
  return call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: fd, headers: opts.headers, origin: opts.origin });
}

function expectError(res: CallResult, status: number, code: ErrorCode, param?: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.type).toBe(CATALOGUE[code].type);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

let ctx: TestContext;
let cookie: string;
beforeAll(async () => {
  ctx = await makeTestApp();
  cookie = (await registerUser(ctx)).cookie;
});
afterAll(() => ctx.close());

describe('POST /api/kyc/submit: validation', () => {
  const rows: Array<{ name: string; fd: () => FormData; expectStatus: number; expectCode: ErrorCode; expectParam: string }> = [
    { name: 'verificationType missing', fd: () => form({ verificationType: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'verificationType' },
    { name: 'verificationType unknown', fd: () => form({ verificationType: 'fingerprint' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'verificationType' },
    { name: 'documentType missing', fd: () => form({ documentType: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'documentType' },
    { name: 'documentType unknown', fd: () => form({ documentType: 'library_card' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'documentType' },
    { name: 'documentCountry unknown (GB is spelled UK)', fd: () => form({ documentCountry: 'GB' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'documentCountry' },
    { name: 'documentCountry lower case', fd: () => form({ documentCountry: 'us' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'documentCountry' },
    { name: 'firstName blank', fd: () => form({ firstName: '   ' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'firstName' },
    { name: 'firstName of 101 characters', fd: () => form({ firstName: 'a'.repeat(101) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'firstName' },
    { name: 'firstName with a control character', fd: () => form({ firstName: 'Ada\u0007' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'firstName' },
    { name: 'lastName missing', fd: () => form({ lastName: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'lastName' },
    { name: 'lastName of 101 characters', fd: () => form({ lastName: 'b'.repeat(101) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'lastName' },
    { name: 'dateOfBirth missing', fd: () => form({ dateOfBirth: undefined }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'dateOfBirth' },
    { name: 'dateOfBirth not ISO', fd: () => form({ dateOfBirth: '10/12/1990' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'dateOfBirth' },
    { name: 'dateOfBirth 1990-02-30', fd: () => form({ dateOfBirth: '1990-02-30' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'dateOfBirth' },
    { name: 'dateOfBirth 1899-12-31 (before 1900)', fd: () => form({ dateOfBirth: '1899-12-31' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'dateOfBirth' },
    { name: 'dateOfBirth in the future', fd: () => form({ dateOfBirth: '2030-01-01' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'dateOfBirth' },
    { name: 'dateOfBirth one day short of 18 (2008-01-16)', fd: () => form({ dateOfBirth: '2008-01-16' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'dateOfBirth' },
    { name: 'documentNumber with markup', fd: () => form({ documentNumber: '<b>1</b>' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'documentNumber' },
    { name: 'documentNumber of 51 characters', fd: () => form({ documentNumber: 'A'.repeat(51) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'documentNumber' },
    { name: 'an unknown field', fd: () => form({ role: 'admin' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'role' },
    { name: 'a field given twice', fd: () => { const f = form(); f.append('firstName', 'Grace'); return f; }, expectStatus: 400, expectCode: 'validation_error', expectParam: 'firstName' },
    { name: 'a text field sent as a file', fd: () => { const f = form({ firstName: undefined }); f.append('firstName', new File(['Ada'], 'a.txt')); return f; }, expectStatus: 400, expectCode: 'validation_error', expectParam: 'firstName' },
    { name: 'no file', fd: () => form({}, []), expectStatus: 400, expectCode: 'validation_error', expectParam: 'documents' },
    { name: 'six files', fd: () => form({}, Array.from({ length: 6 }, (_, i) => ({ bytes: PNG, name: `p${i}.png` }))), expectStatus: 400, expectCode: 'validation_error', expectParam: 'documents' },
    { name: 'documents as text', fd: () => { const f = form({}, []); f.append('documents', 'not a file'); return f; }, expectStatus: 400, expectCode: 'validation_error', expectParam: 'documents' },
    { name: 'an empty file', fd: () => form({}, [{ bytes: new Uint8Array(0), name: 'empty.png' }]), expectStatus: 400, expectCode: 'validation_error', expectParam: 'documents' },
    { name: 'an SVG named .png', fd: () => form({}, [{ bytes: SVG, name: 'passport.png' }]), expectStatus: 415, expectCode: 'unsupported_media_type', expectParam: 'documents' },
    { name: 'HTML named .png (declared image/png)', fd: () => form({}, [{ bytes: HTML, name: 'passport.png', type: 'image/png' }]), expectStatus: 415, expectCode: 'unsupported_media_type', expectParam: 'documents' },
    { name: 'one good PNG and one HTML file', fd: () => form({}, [{ bytes: PNG, name: 'a.png' }, { bytes: HTML, name: 'b.pdf', type: 'application/pdf' }]), expectStatus: 415, expectCode: 'unsupported_media_type', expectParam: 'documents' },
    { name: 'PDF bytes named scan.png (declared image/png)', fd: () => form({}, [{ bytes: PDF, name: 'scan.png', type: 'image/png' }]), expectStatus: 415, expectCode: 'unsupported_media_type', expectParam: 'documents' },
    { name: 'PDF bytes named scan.pdf but declared image/png', fd: () => form({}, [{ bytes: PDF, name: 'scan.pdf', type: 'image/png' }]), expectStatus: 415, expectCode: 'unsupported_media_type', expectParam: 'documents' },
    { name: 'a PNG header then HTML, named x.html', fd: () => form({}, [{ bytes: PNG_THEN_HTML, name: 'x.html', type: 'image/png' }]), expectStatus: 415, expectCode: 'unsupported_media_type', expectParam: 'documents' },
    { name: 'a PNG named passport.png declared text/html', fd: () => form({}, [{ bytes: PNG, name: 'passport.png', type: 'text/html' }]), expectStatus: 415, expectCode: 'unsupported_media_type', expectParam: 'documents' },
    { name: 'a file of 10 MB + 1 byte', fd: () => form({}, [{ bytes: (() => { const b = new Uint8Array(MAX_FILE_BYTES + 1); b.set(PNG); return b; })(), name: 'big.png' }]), expectStatus: 413, expectCode: 'payload_too_large', expectParam: 'documents' },
  ];

  test.each(rows)('$name → $expectStatus $expectCode ($expectParam)', async ({ fd, expectStatus, expectCode, expectParam }) => {
    expectError(await submit(ctx, cookie, fd()), expectStatus, expectCode, expectParam);
  });

  test('a birth date before 1900 is refused in words (a typing slip such as 1890 for 1990), not as "not plausible"', async () => {
    for (const dateOfBirth of ['1899-12-31', '1890-05-01', '0990-05-01']) {
      const res = await submit(ctx, cookie, form({ dateOfBirth }));
      expectError(res, 400, 'validation_error', 'dateOfBirth');
      expect(res.body.error.message).toBe('dateOfBirth must be on or after 1900-01-01.');
    }
  });

  test('a refused file is named in the message, with what its name or declared type said against its content', async () => {
    const cases: Array<[Array<{ bytes: Uint8Array; name: string; type?: string }>, string]> = [
      [[{ bytes: PDF, name: 'scan.png', type: 'image/png' }], 'scan.png is named as a .png file but its content is a PDF document.'],
      [[{ bytes: PNG_THEN_HTML, name: 'x.html', type: 'image/png' }], 'x.html is named as a .html file but its content is a PNG image.'],
      [[{ bytes: PNG, name: 'a.png' }, { bytes: PDF, name: 'b.pdf', type: 'image/png' }], 'b.pdf was sent as image/png but its content is a PDF document.'],
      [[{ bytes: SVG, name: 'photo.png' }], 'photo.png is not a JPG, PNG or PDF file.'],
    ];
    for (const [files, message] of cases) {
      const res = await submit(ctx, cookie, form({}, files));
      expect(res.status).toBe(415);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_media_type', param: 'documents', message });
    }
  });

  test('nothing is stored by a refused submission', async () => {
    const u = await registerUser(ctx);
    await submit(ctx, u.cookie, form({}, [{ bytes: PNG, name: 'a.png' }, { bytes: SVG, name: 'b.png' }]));
    const status = await call(ctx, '/api/kyc/status', { cookie: u.cookie });
    expect(status.body.verifications).toEqual([]);
  });

  test('exactly 18 today (born 2008-01-15) is accepted', async () => {
    const u = await registerUser(ctx);
    const res = await submit(ctx, u.cookie, form({ dateOfBirth: '2008-01-15' }));
    expect(res.status).toBe(201);
  });

  test('a file of exactly 10 MB is accepted', async () => {
    const u = await registerUser(ctx);
    const b = new Uint8Array(MAX_FILE_BYTES);
    b.set(PDF);
    const res = await submit(ctx, u.cookie, form({}, [{ bytes: b, name: 'scan.pdf', type: 'application/pdf' }]));
    expect(res.status).toBe(201);
    expect(res.body.documents[0].size).toBe(MAX_FILE_BYTES);
  });
});

describe('POST /api/kyc/submit: access and transport', () => {
  test('no cookie → 401', async () => {
    expectError(await submit(ctx, null, form()), 401, 'unauthenticated');
  });
  test('cross-site → 403', async () => {
    expectError(await submit(ctx, cookie, form(), { headers: { 'sec-fetch-site': 'cross-site' } }), 403, 'cross_site_request');
    expectError(await submit(ctx, cookie, form(), { origin: 'https://evil.example' }), 403, 'cross_site_request');
  });
  test('a JSON body → 415', async () => {
    const res = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, body: FIELDS });
    expectError(res, 415, 'unsupported_media_type');
  });
  test('a urlencoded body → 415', async () => {
    const res = await call(ctx, '/api/kyc/submit', {
      method: 'POST',
      cookie,
      rawBody: new URLSearchParams(FIELDS as Record<string, string>).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(res, 415, 'unsupported_media_type');
  });
  test('a malformed multipart body → 400', async () => {
    const res = await call(ctx, '/api/kyc/submit', {
      method: 'POST',
      cookie,
      rawBody: 'this is not multipart',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    });
    expectError(res, 400, 'validation_error');
  });

  test('a Content-Length over 5 × 10 MB → 413 without the body being read', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 1) throw new Error('the body was read past its first chunk');
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const req = new Request(`${TEST_ORIGIN}/api/kyc/submit`, {
      method: 'POST',
      headers: {
        origin: TEST_ORIGIN,
        cookie,
        'content-type': 'multipart/form-data; boundary=xyz',
        'content-length': String(MAX_BODY_BYTES + 1),
      },
      body: stream,
      // @ts-expect-error: duplex is required by fetch for a streamed body, missing from the DOM typings here
      duplex: 'half',
    });
    setPeerAddress(req, '203.0.113.7');
    const res = await ctx.app.handle(req);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    expect(pulled).toBeLessThanOrEqual(1);
  });

  test('a streamed body without Content-Length is cut off past the cap → 413', async () => {
    let sent = 0;
    const chunk = new Uint8Array(1024 * 1024);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        if (sent > MAX_BODY_BYTES * 2) throw new Error('read far past the cap');
        controller.enqueue(chunk);
      },
    });
    const req = new Request(`${TEST_ORIGIN}/api/kyc/submit`, {
      method: 'POST',
      headers: { origin: TEST_ORIGIN, cookie, 'content-type': 'multipart/form-data; boundary=xyz', 'transfer-encoding': 'chunked' },
      body: stream,
      // @ts-expect-error: see above
      duplex: 'half',
    });
    req.headers.delete('content-length');
    setPeerAddress(req, '203.0.113.7');
    const res = await ctx.app.handle(req);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(MAX_BODY_BYTES + 2 * chunk.byteLength);
  });

  /** A request whose body is `bytes` pulled in chunks of `chunkSize` (no Content-Length); `pulled()` counts bytes. */
  async function streamedSubmit(u: string, fd: FormData, chunkSize: number) {
    const encoded = new Response(fd);
    // Read before the body: Bun's Response forgets the multipart Content-Type once the body is consumed.
    const contentType = encoded.headers.get('content-type')!;
    const bytes = new Uint8Array(await encoded.arrayBuffer());
    let pulledBytes = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulledBytes >= bytes.length) return controller.close();
        const next = bytes.subarray(pulledBytes, pulledBytes + chunkSize);
        pulledBytes += next.byteLength;
        controller.enqueue(next);
      },
    });
    const req = new Request(`${TEST_ORIGIN}/api/kyc/submit`, {
      method: 'POST',
      headers: { origin: TEST_ORIGIN, cookie: u, 'content-type': contentType, 'transfer-encoding': 'chunked' },
      body: stream,
      // @ts-expect-error: see above
      duplex: 'half',
    });
    req.headers.delete('content-length');
    setPeerAddress(req, '203.0.113.7');
    const res = await ctx.app.handle(req);
    const body = (await res.json()) as { error?: { code: string; param?: string; message: string }; documents?: Array<{ size: number }> };
    return { res, body, bodyBytes: bytes.length, pulled: () => pulledBytes };
  }

  test('a file of 10 MB + 1 byte is refused with 413 while it streams in: the rest of the body is never read', async () => {
    const big = new Uint8Array(MAX_FILE_BYTES + 1);
    big.set(PNG);
    const rest = new Uint8Array(5 * 1024 * 1024);
    rest.set(PDF);
    const fd = form({}, [
      { bytes: big, name: 'big.png' },
      { bytes: rest, name: 'second.pdf', type: 'application/pdf' },
    ]);
    const { res, body, bodyBytes, pulled } = await streamedSubmit(cookie, fd, 64 * 1024);
    expect(res.status).toBe(413);
    expect(body.error).toMatchObject({ code: 'payload_too_large', param: 'documents', message: 'big.png is larger than 10 MB.' });
    expect(bodyBytes).toBeGreaterThan(MAX_FILE_BYTES + 5 * 1024 * 1024);
    expect(pulled()).toBeLessThan(MAX_FILE_BYTES + 256 * 1024);
  });

  test('a 9.9 MB file followed by a small file, streamed in odd-sized chunks, is accepted', async () => {
    const u = await registerUser(ctx);
    const large = new Uint8Array(Math.floor(MAX_FILE_BYTES * 0.99));
    large.set(PDF);
    const fd = form({}, [
      { bytes: large, name: 'scan.pdf', type: 'application/pdf' },
      { bytes: PNG, name: 'selfie.png' },
    ]);
    const { res, body, bodyBytes, pulled } = await streamedSubmit(u.cookie, fd, 65_537);
    expect(res.status).toBe(201);
    expect(body.documents?.map((d) => d.size)).toEqual([large.length, PNG.length]);
    expect(pulled()).toBe(bodyBytes);
  });
});

describe('submission, status and documents', () => {
  test('201 with the verification; content detected; the number sealed at rest', async () => {
    const u = await registerUser(ctx);
    const res = await submit(
      ctx,
      u.cookie,
      form({}, [
        { bytes: PNG, name: '../../etc/passwd<script>.png' },
        { bytes: PDF, name: 'scan', type: 'application/octet-stream' },
        { bytes: JPEG, name: 'selfie.JPEG', type: 'image/jpeg' },
      ]),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'pending',
      verificationType: 'identity_document',
      documentType: 'passport',
      documentCountry: 'UK',
      riskScore: null,
      errorMessage: null,
      adminNotes: null,
    });
    expect(res.body.documents.map((d: { contentType: string }) => d.contentType)).toEqual(['image/png', 'application/pdf', 'image/jpeg']);
    expect(res.body.documents.map((d: { name: string }) => d.name)).toEqual(['passwd_script_.png', 'scan.pdf', 'selfie.jpg']);
    expect(JSON.stringify(res.body)).not.toContain('P1234567');

    const [row] = await ctx.handle.db.select().from(schema.kycVerifications).where(eq(schema.kycVerifications.id, res.body.id));
    expect(row!.documentNumber).not.toContain('P1234567');
    expect(row!.documentNumber!.startsWith('v1.')).toBe(true);
    expect(unseal(ctx.deps.kycKey, row!.documentNumber!)).toBe('P1234567');
  });

  test('files are stored under random names in the uploads folder (0700/0600), outside web/dist', async () => {
    const u = await registerUser(ctx);
    const res = await submit(ctx, u.cookie, form({}, [{ bytes: PNG, name: 'passport.png' }]));
    expect(res.status).toBe(201);
    const docs = await ctx.handle.db.select().from(schema.kycDocuments).where(eq(schema.kycDocuments.verificationId, res.body.id));
    expect(docs).toHaveLength(1);
    const key = docs[0]!.storageKey;
    expect(key).toMatch(/^[a-f0-9]{32}$/);
    expect(key).not.toContain('passport');
    const root = join(ctx.dir, 'uploads');
    const file = join(root, key.slice(0, 2), key);
    expect(new Uint8Array(await Bun.file(file).arrayBuffer())).toEqual(PNG);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, key.slice(0, 2))).mode & 0o777).toBe(0o700);
    expect(resolve(file).startsWith(resolve('web/dist'))).toBe(false);
    expect(readdirSync(join(root, key.slice(0, 2)))).toContain(key);
    expect(docs[0]!.sha256).toMatch(/^[a-f0-9]{64}$/);
  });

  test('GET /api/kyc/status: own verifications only, newest first', async () => {
    const a = await registerUser(ctx);
    const b = await registerUser(ctx);
    const first = await submit(ctx, a.cookie, form({ documentType: 'passport' }));
    ctx.clock.advance(60_000);
    const second = await submit(ctx, a.cookie, form({ documentType: 'id_card' }));
    await submit(ctx, b.cookie, form());
    const res = await call(ctx, '/api/kyc/status', { cookie: a.cookie });
    expect(res.status).toBe(200);
    expect(res.body.verifications.map((v: { id: string }) => v.id)).toEqual([second.body.id, first.body.id]);
    expect(Object.keys(res.body.verifications[0]).sort()).toEqual(
      ['adminNotes', 'documentCountry', 'documentType', 'documents', 'errorMessage', 'id', 'riskScore', 'status', 'submittedAt', 'verificationType'].sort(),
    );
    expect((await call(ctx, '/api/kyc/status')).status).toBe(401);
  });

  test("GET /api/kyc/documents/:id: the owner's bytes with safe headers; anyone else 404", async () => {
    const a = await registerUser(ctx);
    const b = await registerUser(ctx);
    const made = await submit(ctx, a.cookie, form({}, [{ bytes: PDF, name: 'my "scan"\r\n.pdf', type: 'application/pdf' }]));
    const docId = made.body.documents[0].id;
    const res = await call(ctx, `/api/kyc/documents/${docId}`, { cookie: a.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const disposition = res.headers.get('content-disposition')!;
    expect(disposition.startsWith('attachment; filename="')).toBe(true);
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(disposition).not.toMatch(/[\r\n]/);
    expect(disposition.split('"').length).toBe(3);
    expect(res.text).toBe(new TextDecoder().decode(PDF));

    expectError(await call(ctx, `/api/kyc/documents/${docId}`, { cookie: b.cookie }), 404, 'resource_not_found');
    expectError(await call(ctx, '/api/kyc/documents/kycdoc_nope', { cookie: a.cookie }), 404, 'resource_not_found');
    expectError(await call(ctx, `/api/kyc/documents/${docId}`), 401, 'unauthenticated');
  });

  test('a valid PNG with HTML after its end is kept byte for byte as a .png and only ever served as an attachment', async () => {
    const u = await registerUser(ctx);
    const made = await submit(ctx, u.cookie, form({}, [{ bytes: PNG_WITH_TRAILER, name: 'selfie', type: 'image/png' }]));
    expect(made.status).toBe(201);
    expect(made.body.documents[0]).toMatchObject({ name: 'selfie.png', contentType: 'image/png', size: PNG_WITH_TRAILER.length });
    const res = await call(ctx, `/api/kyc/documents/${made.body.documents[0].id}`, { cookie: u.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="selfie.png"; filename*=UTF-8''selfie.png`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(res.headers.get('content-length')).toBe(String(PNG_WITH_TRAILER.length));
    const [doc] = await ctx.handle.db.select().from(schema.kycDocuments).where(eq(schema.kycDocuments.id, made.body.documents[0].id));
    expect(await ctx.deps.storage.get(doc!.storageKey)).toEqual(PNG_WITH_TRAILER);
  });

  test('a name stored before names took their type\'s extension is listed and served with it', async () => {
    const u = await registerUser(ctx);
    const made = await submit(ctx, u.cookie, form({}, [{ bytes: PNG, name: 'x.png' }]));
    const docId = made.body.documents[0].id;
    await ctx.handle.db.update(schema.kycDocuments).set({ originalName: 'x.html' }).where(eq(schema.kycDocuments.id, docId));
    const status = await call(ctx, '/api/kyc/status', { cookie: u.cookie });
    expect(status.body.verifications[0].documents[0].name).toBe('x.html.png');
    const res = await call(ctx, `/api/kyc/documents/${docId}`, { cookie: u.cookie });
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="x.html.png"; filename*=UTF-8''x.html.png`);
  });

  test(`at most ${MAX_OPEN_VERIFICATIONS} verifications waiting for review → 409; a decision frees a place`, async () => {
    const u = await registerUser(ctx);
    const ids: string[] = [];
    for (let i = 0; i < MAX_OPEN_VERIFICATIONS; i++) {
      const r = await submit(ctx, u.cookie, form());
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    expectError(await submit(ctx, u.cookie, form()), 409, 'kyc_pending_limit_reached');
    await applyKycDecision(ctx.deps, ids[0]!, { status: 'failed', errorMessage: 'Blurry photo' }, { type: 'admin', id: 'adm_test' });
    expect((await submit(ctx, u.cookie, form())).status).toBe(201);
  });
});

describe('applyKycDecision and the benefits of a verified account', () => {
  test('failed: the status view shows it with the message, and a new submission is accepted', async () => {
    const u = await registerUser(ctx);
    const made = await submit(ctx, u.cookie, form());
    const out = await applyKycDecision(
      ctx.deps,
      made.body.id,
      { status: 'failed', riskScore: 85, adminNotes: 'Document expired', errorMessage: 'The passport has expired.' },
      { type: 'admin', id: 'adm_test' },
    );
    expect(out.before.status).toBe('pending');
    expect(out.after.status).toBe('failed');
    const status = await call(ctx, '/api/kyc/status', { cookie: u.cookie });
    expect(status.body.verifications[0]).toMatchObject({
      status: 'failed',
      riskScore: 85,
      adminNotes: 'Document expired',
      errorMessage: 'The passport has expired.',
    });
    ctx.clock.advance(1000);
    const again = await submit(ctx, u.cookie, form());
    expect(again.status).toBe(201);
    const after = await call(ctx, '/api/kyc/status', { cookie: u.cookie });
    expect(after.body.verifications[0].id).toBe(again.body.id);
    expect(after.body.verifications[0].status).toBe('pending');
  });

  test('riskScore outside 0–100 or fractional is refused; an unknown id is not found', async () => {
    const u = await registerUser(ctx);
    const made = await submit(ctx, u.cookie, form());
    const actor = { type: 'admin' as const, id: 'adm_test' };
    for (const riskScore of [-1, 101, 20.5]) {
      await expect(applyKycDecision(ctx.deps, made.body.id, { status: 'verified', riskScore }, actor)).rejects.toMatchObject({
        code: 'validation_error',
        param: 'riskScore',
      });
    }
    await expect(applyKycDecision(ctx.deps, 'kyc_nope', { status: 'verified' }, actor)).rejects.toMatchObject({ code: 'resource_not_found' });
  });

  test('verified: users.kyc_status follows, the free plan allows 3 sources, and a card in another name', async () => {
    const u = await registerUser(ctx);
    const made = await submit(ctx, u.cookie, form());
    await addCard(ctx, u.cookie, CARDS_OK[0]);
    await addCard(ctx, u.cookie, CARDS_OK[1]);
    // Before verification: the third card and another name are both refused.
    const refused = await call(ctx, '/api/funding-sources', {
      method: 'POST',
      cookie: u.cookie,
      body: { cardNumber: CARDS_OK[2], expiryMonth: '12', expiryYear: '2030', cvv: '123', name: 'Grace Hopper', defaultSplitPercentage: 50 },
    });
    expect(refused.status).toBe(403);

    await applyKycDecision(ctx.deps, made.body.id, { status: 'verified', riskScore: 20, adminNotes: 'All good' }, { type: 'admin', id: 'adm_test' });
    const [user] = await ctx.handle.db.select().from(schema.users).where(eq(schema.users.id, u.user.id));
    expect(user!.kycStatus).toBe('verified');

    const third = await addCard(ctx, u.cookie, CARDS_OK[2], { name: 'Grace Hopper' });
    expect(third.name).toBe('Grace Hopper');
    const list = await call(ctx, '/api/funding-sources', { cookie: u.cookie });
    expect(list.body).toHaveLength(3);
    const fourth = await call(ctx, '/api/funding-sources', {
      method: 'POST',
      cookie: u.cookie,
      body: { cardNumber: CARDS_OK[3], expiryMonth: '12', expiryYear: '2030', cvv: '123', name: 'Ada Lovelace', defaultSplitPercentage: 50 },
    });
    expectError(fourth, 403, 'funding_source_limit_reached');

    // Reversing the decision takes the status back, since no other verification is verified.
    await applyKycDecision(ctx.deps, made.body.id, { status: 'failed' }, { type: 'admin', id: 'adm_test' });
    const [again] = await ctx.handle.db.select().from(schema.users).where(eq(schema.users.id, u.user.id));
    expect(again!.kycStatus).toBe('unverified');
  });
});
