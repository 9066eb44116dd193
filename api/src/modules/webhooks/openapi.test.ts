import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';

/* The webhook and event routes are in the OpenAPI document with their bodies, answers, errors and auth. */

interface Operation {
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content?: Record<string, { schema?: { type?: string; properties?: Record<string, unknown> } }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  security?: Array<Record<string, unknown>>;
}

const ROUTES: Array<{ method: string; path: string; errors: string[]; body?: string[]; query?: string[]; bearer?: boolean }> = [
  { method: 'post', path: '/api/v1/webhook_endpoints', errors: ['400', '401', '409', '415', '429'], body: ['url', 'enabled_events', 'description'], bearer: true },
  { method: 'get', path: '/api/v1/webhook_endpoints', errors: ['400', '401', '429'], query: ['limit', 'starting_after'], bearer: true },
  { method: 'get', path: '/api/v1/webhook_endpoints/{id}', errors: ['401', '404'], bearer: true },
  { method: 'patch', path: '/api/v1/webhook_endpoints/{id}', errors: ['400', '401', '404'], body: ['url', 'enabled_events', 'description', 'disabled'], bearer: true },
  { method: 'delete', path: '/api/v1/webhook_endpoints/{id}', errors: ['401', '404'], bearer: true },
  { method: 'post', path: '/api/v1/webhook_endpoints/{id}/roll_secret', errors: ['401', '404'], bearer: true },
  { method: 'get', path: '/api/v1/events', errors: ['400', '401'], query: ['limit', 'starting_after', 'type'], bearer: true },
  { method: 'get', path: '/api/v1/events/{id}', errors: ['401', '404'], bearer: true },
  { method: 'post', path: '/api/v1/events/{id}/resend', errors: ['400', '401', '404'], body: ['endpoint_id'], bearer: true },
  { method: 'get', path: '/api/merchants/{id}/webhook_endpoints', errors: ['401', '404'] },
  { method: 'post', path: '/api/merchants/{id}/webhook_endpoints', errors: ['400', '401', '403', '404'], body: ['url', 'enabled_events', 'description'] },
  { method: 'patch', path: '/api/merchants/{id}/webhook_endpoints/{endpointId}', errors: ['400', '401', '404'], body: ['disabled'] },
  { method: 'delete', path: '/api/merchants/{id}/webhook_endpoints/{endpointId}', errors: ['401', '404'] },
  { method: 'post', path: '/api/merchants/{id}/webhook_endpoints/{endpointId}/roll_secret', errors: ['401', '404'] },
  { method: 'post', path: '/api/merchants/{id}/webhook_endpoints/{endpointId}/test', errors: ['400', '401', '404'] },
  { method: 'get', path: '/api/merchants/{id}/webhook_deliveries', errors: ['400', '401', '404'], query: ['endpoint_id', 'limit'] },
  { method: 'get', path: '/api/merchants/{id}/events', errors: ['400', '401', '404'], query: ['limit', 'starting_after', 'type'] },
];

let ctx: TestContext;
let paths: Record<string, Record<string, Operation>>;
beforeAll(async () => {
  ctx = await makeTestApp();
  paths = (await call(ctx, '/swagger/json')).body.paths;
});
afterAll(() => ctx.close());

describe('OpenAPI', () => {
  test.each(ROUTES)('$method $path', ({ method, path, errors, body, query, bearer }) => {
    const op = paths[path]?.[method];
    expect(op).toBeDefined();
    const statuses = Object.keys(op!.responses ?? {});
    expect(statuses.some((s) => /^2\d\d$/.test(s))).toBe(true);
    expect(statuses).toEqual(expect.arrayContaining(errors));
    for (const s of statuses.filter((x) => !/^2/.test(x))) {
      expect(op!.responses![s]?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
    const ok = statuses.find((s) => /^2/.test(s))!;
    expect(op!.responses![ok]?.content?.['application/json']?.schema).toBeDefined();
    if (body) {
      const content = op!.requestBody?.content ?? {};
      expect(Object.keys(content)).toEqual(['application/json']);
      expect(Object.keys(content['application/json']?.schema?.properties ?? {})).toEqual(expect.arrayContaining(body));
    }
    if (query) {
      const names = (op!.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      expect(names).toEqual(expect.arrayContaining(query));
    }
    if (bearer) expect(op!.security).toEqual([{ secretKey: [] }]);
  });
});
