import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, ApiError, MONEY_POSTS, sendsCookies, unwrap } from './api';
import { answering, restoreFetch } from '../../test-support/fetch-mock';

afterEach(restoreFetch);

describe('the typed client', () => {
  test('a non-OK answer throws an ApiError whose message is "<status>: <body>" (the spec contract)', async () => {
    const body = JSON.stringify({ error: { type: 'invalid_request_error', code: 'x', message: 'Nope' } });
    answering(() => new Response(body, { status: 400, headers: { 'content-type': 'application/json' } }));
    const e = await unwrap(api.GET('/api/subscription/plan')).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).message).toBe(`400: ${body}`);
    expect((e as ApiError).serverMessage).toBe('Nope');
    expect((e as ApiError).code).toBe('x');
    expect((e as ApiError).param).toBeUndefined();
  });

  test('an error naming a field gives it as param', () => {
    const e = new ApiError(400, '400: …', { error: { type: 'invalid_request_error', code: 'validation_error', message: 'm', param: 'amount' } });
    expect(e.param).toBe('amount');
    expect(new ApiError(400, '400: …', { error: { param: 7 } }).param).toBeUndefined();
    expect(new ApiError(502, '502: Bad Gateway', null).param).toBeUndefined();
  });

  test('an empty error body falls back to the status text, and Retry-After is read', async () => {
    answering(() => new Response('', { status: 429, statusText: 'Too Many Requests', headers: { 'retry-after': '7' } }));
    const e = (await unwrap(api.GET('/api/subscription/plan')).catch((err: unknown) => err)) as ApiError;
    expect(e.message).toBe('429: Too Many Requests');
    expect(e.retryAfterSeconds).toBe(7);
  });

  test('a money POST without a key gets a fresh Idempotency-Key; a caller key is kept; other POSTs get none', async () => {
    const seen = answering(() => Response.json({}));
    await unwrap(api.POST('/api/subscription/keep'));
    await unwrap(api.POST('/api/merchants/{id}/refunds', { params: { path: { id: 'm_1' } }, body: { payment_intent: 'pi_1' } }));
    await unwrap(api.POST('/api/merchants/{id}/refunds', { params: { path: { id: 'm_1' } }, body: { payment_intent: 'pi_1' } }));
    await unwrap(
      api.POST('/api/subscription/upgrade', { body: { tierId: 't', fundingSourceId: 'f' }, params: { header: { 'idempotency-key': 'mine' } } }),
    );
    const keys = seen.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toBeNull();
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).not.toBe(keys[1]);
    expect(keys[3]).toBe('mine');
  });

  test('calls go to the page origin with the path the schema names, as JSON', async () => {
    const seen = answering(() => Response.json([]));
    await unwrap(api.GET('/api/virtual-cards', { params: { query: { limit: 5 } } }));
    const url = new URL(seen[0]!.url);
    expect(url.pathname + url.search).toBe('/api/virtual-cards?limit=5');
    expect(seen[0]!.headers.get('accept')).toBe('application/json');
  });

  test('an OK answer without a body is null (a query function may not answer undefined)', async () => {
    answering(() => new Response(null, { status: 200 }));
    expect(await unwrap(api.GET('/api/subscription/plan'))).toBeNull();
    answering(() => new Response(null, { status: 204 }));
    expect(await unwrap(api.POST('/api/subscription/keep'))).toBeNull();
  });

  test('cookies go with every call but the public reads and the admin panel (its own Bearer token)', () => {
    expect(sendsCookies('/api/subscription/tiers')).toBe(false);
    expect(sendsCookies('/api/site/contact')).toBe(false);
    expect(sendsCookies('/api/admin/users')).toBe(false);
    expect(sendsCookies('/api/admin/auth/login')).toBe(false);
    expect(sendsCookies('/api/subscription/plan')).toBe(true);
    expect(sendsCookies('/api/virtual-cards')).toBe(true);
  });

  test('every money POST is a POST the API documents with an Idempotency-Key header', () => {
    const doc = JSON.parse(readFileSync(join(import.meta.dir, '../../../sdk/openapi.json'), 'utf8')) as {
      paths: Record<string, { post?: { parameters?: { in: string; name: string }[] } }>;
    };
    for (const path of MONEY_POSTS) {
      const post = doc.paths[path]?.post;
      expect({ path, documented: Boolean(post) }).toEqual({ path, documented: true });
      expect({ path, key: post?.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key') }).toEqual({
        path,
        key: true,
      });
    }
  });
});
