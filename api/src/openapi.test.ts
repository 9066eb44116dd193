import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { call, makeTestApp, type TestContext } from '../test-support/app';

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
    // Error responses use the one error shape, registered once as components.schemas.Error.
    for (const s of errors) {
      expect(op!.responses![s]?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
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

/* Every route of the document, walked: tags, summary, a success answer with a schema, errors, and the right auth. */

interface WalkedOperation {
  tags?: string[];
  summary?: string;
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** Routes that need no credential. */
const PUBLIC_ROUTES = new Set([
  'post /api/auth/register',
  'post /api/auth/login',
  'get /api/subscription/tiers',
  'get /api/checkout/payment_intents/{id}',
  'get /api/site/contact',
  'post /api/admin/auth/login',
  'post /api/auth/password-reset',
  'post /api/auth/password-reset/check',
  'post /api/auth/password-reset/confirm',
  // The sign-in link mailed past an account's cap: the token (and the address that asked) is the credential.
  'post /api/auth/sign-in-link',
  // The e-mail change links: the token in the link is the credential (it may be opened on another device).
  'post /api/auth/email-change/confirm',
  'post /api/auth/email-change/revert',
  'post /api/extension/tokens',
  // Stripe's webhook: signed by Stripe (Stripe-Signature), no credential of bpay's.
  'post /api/stripe/webhook',
  // The simulated card network: what a shop's processor sends, with the card's own details; no credential of bpay's.
  'post /api/simulator/authorizations',
]);
/** Routes with their own security: the e-mail outbox takes an admin token, or nothing on a local install. */
const OWN_SECURITY: Record<string, Array<Record<string, string[]>>> = { 'get /api/email-outbox': [{ adminToken: [] }, {}] };
/** Routes no client input can make fail (no body, params, query or credential): a 4xx would be invented. */
const NO_CLIENT_ERROR = new Set(['get /api/subscription/tiers', 'get /api/site/contact']);

/** The security a path must declare, by its prefix (public routes aside). */
function expectedSecurity(path: string): Array<Record<string, string[]>> {
  if (path.startsWith('/api/v1/')) return [{ secretKey: [] }];
  if (path.startsWith('/api/admin/')) return [{ adminToken: [] }];
  // The browser extension's own routes take its bearer token; connecting one (pairings, tokens) is the web app's.
  if (path.startsWith('/api/extension/') && !/^\/api\/extension\/(pairings|tokens)/.test(path)) return [{ extensionToken: [] }];
  return [{ sessionCookie: [] }];
}

describe('every operation of /swagger/json', () => {
  const operations = () =>
    Object.entries(spec.paths as unknown as Record<string, Record<string, WalkedOperation>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ key: `${method} ${path}`, path, op })),
    );

  test("integers and booleans are plain (no string-coercion anyOf): the SDK's amount is a number, not number | string", () => {
    const text = JSON.stringify(spec);
    expect(text).not.toMatch(/"format":"(integer|numeric|boolean)"/);
    const pi = (spec as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas
      .PaymentIntent!;
    expect(pi.properties.amount).toMatchObject({ type: 'integer' });
  });

  test('the document lists the routes (sanity) and the three security schemes', () => {
    expect(operations().length).toBeGreaterThan(80);
    const schemes = (spec as unknown as { components: { securitySchemes: Record<string, { type: string; in?: string; scheme?: string }> } })
      .components.securitySchemes;
    expect(schemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'bpay_session' });
    expect(schemes.secretKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  test('every operation has tags, a summary, a 2xx with a schema, a 4xx, and the security its path needs', () => {
    const problems: string[] = [];
    for (const { key, path, op } of operations()) {
      if (!op.tags?.length) problems.push(`${key}: no tags`);
      if (!op.summary?.trim()) problems.push(`${key}: no summary`);
      const statuses = Object.keys(op.responses ?? {});
      const ok = statuses.filter((s) => /^2\d\d$/.test(s));
      const okWithSchema = ok.some((s) => Object.values(op.responses![s]?.content ?? {}).some((c) => c.schema !== undefined));
      if (!okWithSchema) problems.push(`${key}: no 2xx answer with a schema`);
      if (!NO_CLIENT_ERROR.has(key) && !statuses.some((s) => /^4\d\d$/.test(s))) problems.push(`${key}: no 4xx answer`);
      for (const s of statuses.filter((x) => /^[45]\d\d$/.test(x))) {
        const schema = op.responses![s]?.content?.['application/json']?.schema;
        if (JSON.stringify(schema) !== JSON.stringify({ $ref: '#/components/schemas/Error' })) problems.push(`${key}: ${s} is not the Error model`);
      }
      const want = OWN_SECURITY[key] ?? (PUBLIC_ROUTES.has(key) ? [] : expectedSecurity(path));
      if (JSON.stringify(op.security) !== JSON.stringify(want)) problems.push(`${key}: security ${JSON.stringify(op.security)}, want ${JSON.stringify(want)}`);
      if (path.length > 1 && path.endsWith('/')) problems.push(`${key}: trailing slash`);
    }
    expect(problems).toEqual([]);
  });

  // The summary is the one line a list shows; the description says what the call does, who may make it and what it
  // costs or changes (issue 28): Swagger UI and the SDK's doc comments show it.
  test('every operation has a description of its own, not only a summary', () => {
    const missing: string[] = [];
    for (const { key, op } of operations()) {
      const description = (op as { description?: string }).description?.trim() ?? '';
      if (!description || description === op.summary?.trim()) missing.push(key);
    }
    expect(missing).toEqual([]);
  });

  test('shared models are registered once and referenced; the error model keeps its shape', () => {
    const schemas = (spec as unknown as { components: { schemas: Record<string, { properties?: Record<string, { properties?: object }> }> } })
      .components.schemas;
    for (const name of ['Error', 'PaymentIntent', 'Event', 'WebhookEndpoint']) expect(schemas[name]).toBeDefined();
    expect(Object.keys(schemas.Error!.properties!.error!.properties!)).toEqual(expect.arrayContaining(['type', 'code', 'message', 'param', 'request_id']));
    const paths = spec.paths as unknown as Record<string, Record<string, WalkedOperation>>;
    const ok = (path: string, method: string) => paths[path]![method]!.responses!['200']!.content!['application/json']!.schema;
    expect(ok('/api/v1/payment_intents/{id}', 'get')).toEqual({ $ref: '#/components/schemas/PaymentIntent' });
    expect(JSON.stringify(ok('/api/v1/payment_intents', 'get'))).toContain('"$ref":"#/components/schemas/PaymentIntent"');
    expect(ok('/api/v1/events/{id}', 'get')).toEqual({ $ref: '#/components/schemas/Event' });
    expect(ok('/api/v1/webhook_endpoints/{id}', 'get')).toEqual({ $ref: '#/components/schemas/WebhookEndpoint' });
  });

  // Swagger UI (and any JSON Schema 2020-12 reader) takes an $id as a new base URI: a model that kept TypeBox's
  // '#/components/schemas/Refund' made its own $ref unresolvable there and the UI showed "string" (openapi-tidy.ts).
  test('no $id is left, every $ref resolves inside the document, and each shared model is one components entry', () => {
    const text = JSON.stringify(spec);
    expect(text).not.toContain('"$id"');
    const refs = [...text.matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(100);
    const unresolved = [...new Set(refs)].filter((ref) => {
      if (!ref.startsWith('#/')) return true;
      let node: unknown = spec;
      for (const part of ref.slice(2).split('/')) {
        const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
        node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
      }
      return typeof node !== 'object' || node === null;
    });
    expect(unresolved).toEqual([]);
    const schemas = (spec as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
    // Models a route names inline (not only the ones registered with .model()) are entries too, and referenced.
    for (const name of ['Refund', 'Error', 'User', 'Bcard', 'FundingSource', 'SubscriptionTier']) expect(schemas[name]).toBeDefined();
    const paths = spec.paths as unknown as Record<string, Record<string, WalkedOperation>>;
    expect(paths['/api/auth/user']!.get!.responses!['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/User' });
    // A route's nullable, described copy of a model keeps both beside the reference.
    const plan = schemas.Plan as { properties: Record<string, unknown> };
    expect(plan.properties.pendingTier).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/SubscriptionTier' }, { type: 'null' }] });
    expect((plan.properties.pendingTier as { description?: string }).description).toBeTruthy();
  });

  test('the document is tidied afresh on every request, and the same each time (Elysia\'s cached copy is left alone)', async () => {
    const again = await call(ctx, '/swagger/json');
    expect(again.body).toEqual(spec);
    const { tidyOpenApi } = await import('./openapi-tidy');
    expect(tidyOpenApi(structuredClone(spec))).toEqual(spec);
    const raw = { components: { schemas: {} }, paths: { '/a': { get: { responses: { 200: { content: { 'application/json': { schema: { $id: '#/components/schemas/A', type: 'object' } } } } } } } } };
    const before = JSON.stringify(raw);
    const tidied = tidyOpenApi(raw) as unknown as { components: { schemas: Record<string, unknown> } };
    expect(JSON.stringify(raw)).toBe(before);
    expect(tidied.components.schemas.A).toEqual({ type: 'object' });
  });

  test('binary and streaming answers are documented as such', () => {
    const paths = spec.paths as unknown as Record<string, Record<string, WalkedOperation>>;
    for (const path of ['/api/kyc/documents/{id}', '/api/admin/kyc/documents/{id}']) {
      const content = paths[path]!.get!.responses!['200']!.content!;
      expect(Object.keys(content).sort()).toEqual(['application/pdf', 'image/jpeg', 'image/png']);
      expect(content['image/png']!.schema).toEqual({ type: 'string', format: 'binary' });
    }
    expect(Object.keys(paths['/api/v1/events/stream']!.get!.responses!['200']!.content!)).toEqual(['text/event-stream']);
  });

  test('every request body carries an example, in every content type it accepts', () => {
    type Media = { schema?: { $ref?: string; examples?: unknown[] }; example?: unknown; examples?: unknown };
    const paths = spec.paths as unknown as Record<string, Record<string, { requestBody?: { content?: Record<string, Media> } }>>;
    const schemas = ((spec as { components?: { schemas?: object } }).components?.schemas ?? {}) as Record<string, { examples?: unknown[] }>;
    const missing: string[] = [];
    let bodies = 0;
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
          bodies++;
          const schema = media.schema?.$ref ? schemas[media.schema.$ref.split('/').pop()!] : media.schema;
          if ((schema?.examples?.length ?? 0) === 0 && media.example === undefined && media.examples === undefined) {
            missing.push(`${method.toUpperCase()} ${path} (${type})`);
          }
        }
      }
    }
    expect(bodies).toBeGreaterThan(25);
    expect(missing).toEqual([]);
  });

  test('paths without a trailing slash are what clients call, and the slash form still works', async () => {
    expect(spec.paths['/api/funding-sources']).toBeDefined();
    expect(spec.paths['/api/funding-sources/']).toBeUndefined();
    for (const path of ['/api/funding-sources', '/api/funding-sources/', '/api/transactions', '/api/merchants/']) {
      expect((await call(ctx, path)).status).toBe(401);
    }
  });
});
