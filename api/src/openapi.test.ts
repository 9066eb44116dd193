import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { call, makeTestApp, type TestContext } from './testing';

/* The OpenAPI document is the one source of the SDK's types: every route must be in it, with its body and errors. */

interface Operation {
  requestBody?: { content?: Record<string, { schema?: { type?: string; properties?: Record<string, unknown> } }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const ROUTES: Array<{ method: 'get' | 'post' | 'patch'; path: string; body?: string[] }> = [
  { method: 'post', path: '/api/auth/register', body: ['email', 'password', 'firstName', 'lastName'] },
  { method: 'post', path: '/api/auth/login', body: ['email', 'password', 'totpCode'] },
  { method: 'post', path: '/api/auth/logout' },
  { method: 'get', path: '/api/auth/user' },
  { method: 'patch', path: '/api/auth/user', body: ['firstName', 'lastName', 'email', 'country', 'phoneNumber', 'address'] },
  { method: 'post', path: '/api/auth/2fa/setup' },
  { method: 'post', path: '/api/auth/2fa/confirm', body: ['code'] },
  { method: 'post', path: '/api/auth/2fa/disable', body: ['code'] },
  { method: 'get', path: '/api/subscription/tiers' },
  { method: 'get', path: '/api/subscription/benefits' },
];

let ctx: TestContext;
let spec: { openapi: string; info: { title: string; version: string }; paths: Record<string, Record<string, Operation>> };

beforeAll(async () => {
  ctx = await makeTestApp();
  const res = await call(ctx, '/swagger/json');
  expect(res.status).toBe(200);
  spec = res.body;
});
afterAll(() => ctx.close());

describe('GET /swagger/json', () => {
  test('is an OpenAPI 3 document for bpay', () => {
    expect(spec.openapi).toMatch(/^3\./);
    expect(spec.info.title).toBe('bpay API');
    expect(spec.info.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  test.each(ROUTES)('$method $path is listed with at least one error response', ({ method, path }) => {
    const op = spec.paths[path]?.[method];
    expect(op).toBeDefined();
    const statuses = Object.keys(op!.responses ?? {});
    expect(statuses.some((s) => /^2\d\d$/.test(s))).toBe(true);
    const errors = statuses.filter((s) => !/^2\d\d$/.test(s));
    expect(errors.length).toBeGreaterThan(0);
    // Error responses use the one error shape.
    for (const s of errors) {
      const schema = JSON.stringify(op!.responses![s]?.content?.['application/json']?.schema ?? {});
      expect(schema).toContain('request_id');
      expect(schema).toContain('"code"');
    }
  });

  test.each(ROUTES.filter((r) => r.body))('$method $path documents its JSON request body', ({ method, path, body }) => {
    const op = spec.paths[path]![method]!;
    const content = op.requestBody?.content ?? {};
    // JSON only: the API answers 415 to any other body, so the document must not offer forms.
    expect(Object.keys(content)).toEqual(['application/json']);
    const schema = content['application/json']?.schema;
    expect(schema?.type).toBe('object');
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(expect.arrayContaining([...body!].sort()));
  });

  test('mass-assignable fields are not in the profile body', () => {
    const props = Object.keys(spec.paths['/api/auth/user']!.patch!.requestBody!.content!['application/json']!.schema!.properties!);
    for (const forbidden of ['role', 'tierId', 'isKycVerified', 'kycStatus', 'id']) expect(props).not.toContain(forbidden);
  });

  test('the catch-all route for unknown /api paths is hidden', () => {
    expect(Object.keys(spec.paths).filter((p) => p.includes('*'))).toEqual([]);
  });

  test('the routes with documented error statuses include the expected ones', () => {
    const statuses = (path: string, method: string) => Object.keys(spec.paths[path]?.[method]?.responses ?? {});
    expect(statuses('/api/auth/login', 'post')).toEqual(expect.arrayContaining(['200', '400', '401', '403', '415', '429']));
    expect(statuses('/api/auth/register', 'post')).toEqual(expect.arrayContaining(['201', '400', '409']));
    expect(statuses('/api/subscription/benefits', 'get')).toEqual(expect.arrayContaining(['200', '401']));
  });
});

describe('GET /swagger', () => {
  test('is an HTML page that loads nothing from another host', async () => {
    const res = await call(ctx, '/swagger');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = res.text;
    const srcs = [...html.matchAll(/<script[^>]*\ssrc=["']([^"']+)["']/gi)].map((m) => m[1]!);
    const hrefs = [...html.matchAll(/<link[^>]*\shref=["']([^"']+)["']/gi)].map((m) => m[1]!);
    expect(srcs.length).toBeGreaterThan(0);
    expect(hrefs.length).toBeGreaterThan(0);
    for (const url of [...srcs, ...hrefs]) {
      expect(url).not.toMatch(/^(https?:)?\/\//i);
      expect(url.startsWith('/')).toBe(true);
    }
    expect(html).not.toMatch(/@import\s+(url\()?["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/(src|href)=["'](https?:)?\/\//i);
    // The assets it names exist in the bundled swagger-ui-dist (server.ts serves them from there).
    const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
    for (const url of [...srcs, ...hrefs]) {
      const file = url.replace(/^\/swagger\/assets\//, '');
      expect(existsSync(join(dist, file))).toBe(true);
    }
  });
});
