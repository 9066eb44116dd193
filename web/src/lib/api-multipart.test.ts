import { afterEach, describe, expect, test } from 'bun:test';
import { api, ApiError, unwrap } from './api';
import { formDataOf, multipart, type MultipartBody, type Parts } from './api-multipart';
import { answering, restoreFetch } from '../../test-support/fetch-mock';

afterEach(restoreFetch);

type KycBody = MultipartBody<'/api/kyc/submit'>;
const a = new File(['a'], 'a.png', { type: 'image/png' });
const b = new File(['bb'], 'b.pdf', { type: 'application/pdf' });
const parts: Parts<KycBody> = {
  verificationType: 'identity_document',
  documentType: 'passport',
  documentCountry: 'US',
  firstName: 'Ada',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  documents: [a, b],
};

describe('multipart bodies', () => {
  test('FormData in the parts’ order: one entry per array item, undefined left out, files keep their names', () => {
    const form = formDataOf({ ...parts, documentNumber: undefined, count: 2 });
    expect([...form.keys()]).toEqual(['verificationType', 'documentType', 'documentCountry', 'firstName', 'lastName', 'dateOfBirth', 'documents', 'documents', 'count']);
    expect(form.get('firstName')).toBe('Ada');
    expect(form.get('count')).toBe('2');
    expect(form.has('documentNumber')).toBe(false);
    expect((form.getAll('documents') as File[]).map((f) => f.name)).toEqual(['a.png', 'b.pdf']);
  });

  test('a call sends the form as multipart/form-data with its boundary and the JSON accept header', async () => {
    const seen = answering(() => Response.json({ id: 'kyc_1' }, { status: 201 }));
    const answer = await unwrap(api.POST('/api/kyc/submit', multipart<KycBody>(parts)));
    expect(answer.id).toBe('kyc_1');
    const req = seen[0]!;
    expect(new URL(req.url).pathname).toBe('/api/kyc/submit');
    expect(req.method).toBe('POST');
    expect(req.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(req.headers.get('accept')).toBe('application/json');
    const sent = await req.formData();
    expect(sent.get('documentCountry')).toBe('US');
    expect((sent.getAll('documents') as File[]).map((f) => f.name)).toEqual(['a.png', 'b.pdf']);
    expect(await (sent.getAll('documents')[1] as File).text()).toBe('bb');
  });

  test('a non-OK answer throws the usual ApiError, "<status>: <body>"', async () => {
    const body = JSON.stringify({ error: { type: 'invalid_request_error', code: 'unsupported_media_type', message: 'No' } });
    answering(() => new Response(body, { status: 415, headers: { 'content-type': 'application/json' } }));
    const e = await unwrap(api.POST('/api/kyc/submit', multipart<KycBody>(parts))).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).message).toBe(`415: ${body}`);
    expect((e as ApiError).code).toBe('unsupported_media_type');
  });
});
