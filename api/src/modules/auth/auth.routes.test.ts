import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { CATALOGUE, type ErrorCode } from '../../errors';
import { call, makeTestApp, memoryLogger, type CallResult, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';

/*
 * Route tables: every endpoint of the foundation with its bad inputs and its happy path. Each row states the
 * status and catalogue code it must get; every error must come in the one error shape with a request id that
 * matches the `request-id` header. The security rules (cookies, cross-site, rate limit, sessions, 2FA) are in
 * auth.security.test.ts.
 */

interface RouteCase {
  name: string;
  request: {
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
    path: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    /** Send the table user's session cookie. */
    auth?: boolean;
    cookie?: string;
  };
  expectStatus: number;
  expectCode?: ErrorCode;
  /** The field a validation error must name; null when it must name none. */
  expectParam?: string | null;
  check?: (res: CallResult) => void;
}

let ctx: TestContext;
let tableUser: { email: string; password: string; cookie: string };
let ipCounter = 0;

beforeAll(async () => {
  ctx = await makeTestApp();
  const u = await registerUser(ctx, { email: 'table.user@example.com', password: 'correct horse battery' });
  tableUser = { email: u.email, password: u.password, cookie: u.cookie };
});
afterAll(() => ctx.close());

function expectErrorShape(res: CallResult, code: ErrorCode, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/json');
  const requestId = res.headers.get('request-id');
  expect(requestId).toMatch(/^req_[0-9a-f]{20}$/);
  expect(res.body).toEqual({
    error: expect.objectContaining({
      type: CATALOGUE[code].type,
      code,
      message: expect.any(String),
      request_id: requestId,
    }),
  });
  expect(res.body.error.message.length).toBeGreaterThan(0);
  // details: weak_password's reason and suggestions (zxcvbn keys), for clients that translate them.
  const allowed = new Set(['type', 'code', 'message', 'param', 'request_id', ...(code === 'weak_password' ? ['details'] : [])]);
  for (const key of Object.keys(res.body.error)) expect(allowed.has(key)).toBe(true);
}

function runTable(cases: RouteCase[]): void {
  for (const c of cases) {
    test(`${c.request.method} ${c.request.path}: ${c.name} -> ${c.expectStatus}${c.expectCode ? ` ${c.expectCode}` : ''}`, async () => {
      const res = await call(ctx, c.request.path, {
        method: c.request.method,
        body: c.request.body,
        rawBody: c.request.rawBody,
        headers: c.request.headers,
        cookie: c.request.auth ? tableUser.cookie : (c.request.cookie ?? null),
        // Each row from its own address, so failed sign-ins in one row never rate-limit another.
        ip: `198.51.100.${++ipCounter}`,
      });
      if (c.expectStatus >= 400) {
        expect(c.expectCode).toBeDefined();
        expectErrorShape(res, c.expectCode!, c.expectStatus);
        if (c.expectParam !== undefined) expect(res.body.error.param).toBe(c.expectParam ?? undefined);
      } else {
        expect({ status: res.status, body: res.body }).toMatchObject({ status: c.expectStatus });
      }
      expect(res.headers.get('request-id')).toMatch(/^req_[0-9a-f]{20}$/);
      c.check?.(res);
    });
  }
}

const json = (path: string, method: RouteCase['request']['method'], body: unknown, auth = false) => ({
  method,
  path,
  body,
  auth,
});
const raw = (path: string, method: RouteCase['request']['method'], rawBody: string, contentType: string, auth = false) => ({
  method,
  path,
  rawBody,
  headers: { 'content-type': contentType },
  auth,
});

const R = '/api/auth/register';
const STRONG = 'violet kettle orbit';
const ok = { email: 'someone@example.com', password: STRONG };
/** 256 characters that are not easy to guess (a long phrase, repeated). */
const LONG_PASSWORD = 'correct horse battery staple '.repeat(9).slice(0, 256);
let n = 0;
const fresh = () => `new${++n}@example.com`;

describe('POST /api/auth/register', () => {
  runTable([
    { name: 'missing email', request: json(R, 'POST', { password: 'secret1' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'bad email format', request: json(R, 'POST', { ...ok, email: 'not-an-email' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'email with spaces inside', request: json(R, 'POST', { ...ok, email: 'a b@example.com' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'email over 254 characters', request: json(R, 'POST', { ...ok, email: `${'a'.repeat(250)}@example.com` }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'email is a number', request: json(R, 'POST', { ...ok, email: 42 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'email is null', request: json(R, 'POST', { ...ok, email: null }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'missing password', request: json(R, 'POST', { email: 'x@example.com' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'password of 5 characters', request: json(R, 'POST', { ...ok, password: '12345' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'password of 257 characters', request: json(R, 'POST', { ...ok, password: 'p'.repeat(257) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'password is a number', request: json(R, 'POST', { ...ok, password: 123456 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'password is an array', request: json(R, 'POST', { ...ok, password: ['secret1'] }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'firstName is a number', request: json(R, 'POST', { ...ok, firstName: 7 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'firstName' },
    { name: 'lastName over 100 characters', request: json(R, 'POST', { ...ok, lastName: 'L'.repeat(101) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'lastName' },
    { name: 'unknown extra field', request: json(R, 'POST', { ...ok, nickname: 'x' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'nickname' },
    { name: 'role cannot be chosen', request: json(R, 'POST', { ...ok, role: 'admin' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'role' },
    { name: 'body is an array', request: json(R, 'POST', [ok]), expectStatus: 400, expectCode: 'body_not_object', expectParam: null },
    { name: 'body is a string', request: json(R, 'POST', 'hello'), expectStatus: 400, expectCode: 'body_not_object', expectParam: null },
    { name: 'invalid JSON', request: raw(R, 'POST', '{"email": "x@example.com",', 'application/json'), expectStatus: 400, expectCode: 'invalid_json' },
    { name: 'text/plain body', request: raw(R, 'POST', JSON.stringify(ok), 'text/plain'), expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'form-encoded body', request: raw(R, 'POST', 'email=x%40example.com&password=secret1', 'application/x-www-form-urlencoded'), expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'multipart body', request: raw(R, 'POST', '--b\r\n\r\n--b--', 'multipart/form-data; boundary=b'), expectStatus: 415, expectCode: 'unsupported_media_type' },
    {
      name: 'valid, with charset in the content type',
      request: { ...json(R, 'POST', { email: fresh(), password: STRONG, firstName: ' Grace ' }), headers: { 'content-type': 'application/json; charset=utf-8' } },
      expectStatus: 201,
      check: (res) => {
        expect(res.body.firstName).toBe('Grace');
        expect(res.body.role).toBe('user');
        expect(res.body.isKycVerified).toBe(false);
        expect(res.body.twoFactorEnabled).toBe(false);
        expect(res.body).not.toHaveProperty('passwordHash');
        expect(res.text).not.toContain('argon2');
        expect(res.cookie).toMatch(/^bpay_session=[A-Za-z0-9_-]{20,}$/);
      },
    },
    { name: 'password of exactly 6 random characters', request: json(R, 'POST', { email: fresh(), password: 'k7#pQz' }), expectStatus: 201 },
    { name: 'password of exactly 256 characters', request: json(R, 'POST', { email: fresh(), password: LONG_PASSWORD }), expectStatus: 201 },
    ...['123456', 'password', 'qwerty', 'iloveyou', '12345678', 'Passw0rd', 'p4ssw0rd!!', 'Summer2024', 'secret123', 'p'.repeat(256)].map(
      (password): RouteCase => ({
        name: `common or breached-pattern password ${password.slice(0, 12)}`,
        request: json(R, 'POST', { email: fresh(), password }),
        expectStatus: 400,
        expectCode: 'weak_password',
        expectParam: 'password',
        check: (res) => expect(res.cookie).toBeNull(),
      }),
    ),
    {
      name: 'a password made of the e-mail address',
      request: json(R, 'POST', { email: 'grace.hopper@example.com', password: 'gracehopper1' }),
      expectStatus: 400,
      expectCode: 'weak_password',
      expectParam: 'password',
    },
    { name: 'e-mail already registered', request: json(R, 'POST', { email: 'table.user@example.com', password: STRONG }), expectStatus: 409, expectCode: 'email_taken', expectParam: 'email' },
  ]);
});

const L = '/api/auth/login';
describe('POST /api/auth/login', () => {
  runTable([
    { name: 'missing email', request: json(L, 'POST', { password: 'x' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'bad email format', request: json(L, 'POST', { email: 'nope', password: 'x' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'missing password', request: json(L, 'POST', { email: 'x@example.com' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'empty password', request: json(L, 'POST', { email: 'x@example.com', password: '' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'password of 257 characters', request: json(L, 'POST', { email: 'x@example.com', password: 'p'.repeat(257) }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'password is a boolean', request: json(L, 'POST', { email: 'x@example.com', password: true }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'totpCode of 5 digits', request: json(L, 'POST', { email: 'x@example.com', password: 'x', totpCode: '12345' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'totpCode' },
    { name: 'totpCode is a number', request: json(L, 'POST', { email: 'x@example.com', password: 'x', totpCode: 123456 }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'totpCode' },
    { name: 'unknown extra field', request: json(L, 'POST', { email: 'x@example.com', password: 'x', rememberMe: true }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'rememberMe' },
    { name: 'invalid JSON', request: raw(L, 'POST', '{email:', 'application/json'), expectStatus: 400, expectCode: 'invalid_json' },
    { name: 'text/plain body', request: raw(L, 'POST', '{"email":"x@example.com","password":"x"}', 'text/plain'), expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'body without a content type', request: { method: 'POST', path: L, rawBody: '{"email":"x@example.com","password":"x"}' }, expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'unknown e-mail', request: json(L, 'POST', { email: 'nobody@example.com', password: 'whatever' }), expectStatus: 401, expectCode: 'invalid_credentials', expectParam: null },
    { name: 'wrong password', request: json(L, 'POST', { email: 'table.user@example.com', password: 'wrong password' }), expectStatus: 401, expectCode: 'invalid_credentials', expectParam: null, check: (res) => expect(res.cookie).toBeNull() },
    { name: 'right password', request: json(L, 'POST', { email: 'table.user@example.com', password: 'correct horse battery' }), expectStatus: 200, check: (res) => { expect(res.body.email).toBe('table.user@example.com'); expect(res.cookie).not.toBeNull(); } },
    { name: 'e-mail with surrounding spaces', request: json(L, 'POST', { email: '  TABLE.User@Example.COM ', password: 'correct horse battery' }), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'e-mail in another letter case', request: json(L, 'POST', { email: 'TABLE.User@Example.COM', password: 'correct horse battery' }), expectStatus: 200 },
  ]);
});

const U = '/api/auth/user';
const address = { line1: '1 Market St', city: 'San Francisco', state: 'CA', postal_code: '94105' };
describe('GET /api/auth/user', () => {
  runTable([
    { name: 'no cookie', request: { method: 'GET', path: U }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'malformed cookie', request: { method: 'GET', path: U, cookie: 'bpay_session=not valid!' }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'well-formed but unknown token', request: { method: 'GET', path: U, cookie: `bpay_session=${'A'.repeat(43)}` }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'another cookie name', request: { method: 'GET', path: U, cookie: 'session=abc' }, expectStatus: 401, expectCode: 'unauthenticated' },
    {
      name: 'signed in',
      request: { method: 'GET', path: U, auth: true },
      expectStatus: 200,
      check: (res) => {
        expect(res.body.email).toBe('table.user@example.com');
        expect(Object.keys(res.body).sort()).toEqual(
          ['address', 'country', 'createdAt', 'email', 'firstName', 'id', 'isKycVerified', 'language', 'lastName', 'loginNotifications', 'phoneNumber', 'profileImageUrl', 'role', 'twoFactorEnabled'].sort(),
        );
      },
    },
  ]);
});

const SESSION = '/api/auth/session';
describe('GET /api/auth/session', () => {
  // "Nobody signed in" is an ordinary answer here (the web's probe on public pages), never a 401.
  const signedOut = (res: CallResult) => expect(res.body).toEqual({ user: null });
  runTable([
    { name: 'no cookie', request: { method: 'GET', path: SESSION }, expectStatus: 200, check: signedOut },
    { name: 'malformed cookie', request: { method: 'GET', path: SESSION, cookie: 'bpay_session=not valid!' }, expectStatus: 200, check: signedOut },
    { name: 'well-formed but unknown token', request: { method: 'GET', path: SESSION, cookie: `bpay_session=${'A'.repeat(43)}` }, expectStatus: 200, check: signedOut },
    { name: 'another cookie name', request: { method: 'GET', path: SESSION, cookie: 'session=abc' }, expectStatus: 200, check: signedOut },
    {
      name: 'signed in',
      request: { method: 'GET', path: SESSION, auth: true },
      expectStatus: 200,
      check: (res) => {
        expect(Object.keys(res.body)).toEqual(['user']);
        expect(res.body.user.email).toBe('table.user@example.com');
        expect(Object.keys(res.body.user).sort()).toEqual(
          ['address', 'country', 'createdAt', 'email', 'firstName', 'id', 'isKycVerified', 'language', 'lastName', 'loginNotifications', 'phoneNumber', 'profileImageUrl', 'role', 'twoFactorEnabled'].sort(),
        );
      },
    },
  ]);

  test('the same user as GET /api/auth/user, and null once signed out', async () => {
    const u = await registerUser(ctx, { email: 'session.probe@example.com', password: 'correct horse battery' });
    const session = await call(ctx, SESSION, { cookie: u.cookie });
    const user = await call(ctx, U, { cookie: u.cookie });
    expect(session.body.user).toEqual(user.body);
    await call(ctx, '/api/auth/logout', { method: 'POST', cookie: u.cookie });
    expect((await call(ctx, SESSION, { cookie: u.cookie })).body).toEqual({ user: null });
  });

  test('a cookie naming no session is cleared (the server picks the page for / by its presence); no cookie, no Set-Cookie', async () => {
    const u = await registerUser(ctx, { email: 'session.stale@example.com', password: 'correct horse battery' });
    await call(ctx, '/api/auth/logout', { method: 'POST', cookie: u.cookie });
    const stale = await call(ctx, SESSION, { cookie: u.cookie });
    expect(stale.headers.get('set-cookie')).toMatch(/^bpay_session=;.*Max-Age=0/i);
    expect((await call(ctx, SESSION)).headers.get('set-cookie')).toBe(null);
    const live = await registerUser(ctx, { email: 'session.live@example.com', password: 'correct horse battery' });
    expect((await call(ctx, SESSION, { cookie: live.cookie })).headers.get('set-cookie')).toBe(null);
  });
});

describe('PATCH /api/auth/user', () => {
  runTable([
    { name: 'no cookie', request: json(U, 'PATCH', { firstName: 'X' }), expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'unknown extra field', request: json(U, 'PATCH', { nickname: 'x' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'nickname' },
    { name: 'address.state of 3 letters', request: json(U, 'PATCH', { address: { ...address, state: 'CAL' } }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address.state' },
    { name: 'address.state with a digit', request: json(U, 'PATCH', { address: { ...address, state: 'C1' } }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address.state' },
    { name: 'blank address.line1', request: json(U, 'PATCH', { address: { ...address, line1: '   ' } }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address.line1' },
    { name: 'missing address.line1', request: json(U, 'PATCH', { address: { city: 'San Francisco' } }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address.line1' },
    { name: 'blank address.city', request: json(U, 'PATCH', { address: { ...address, city: '' } }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address.city' },
    { name: 'address.line1 over 200 characters', request: json(U, 'PATCH', { address: { ...address, line1: 'x'.repeat(201) } }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address.line1' },
    { name: 'address.country of 3 letters', request: json(U, 'PATCH', { address: { ...address, country: 'USA' } }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address.country' },
    { name: 'unknown field inside address', request: json(U, 'PATCH', { address: { ...address, line2: 'x' } }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address.line2' },
    { name: 'address is a string', request: json(U, 'PATCH', { address: '1 Market St' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address' },
    { name: 'bad phone: letters', request: json(U, 'PATCH', { phoneNumber: 'call me' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'phoneNumber' },
    { name: 'bad phone: too short', request: json(U, 'PATCH', { phoneNumber: '123' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'phoneNumber' },
    { name: 'bad phone: a number', request: json(U, 'PATCH', { phoneNumber: 4155550100 }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'phoneNumber' },
    { name: 'bad country: 3 letters', request: json(U, 'PATCH', { country: 'USA' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'country' },
    { name: 'bad country: digits', request: json(U, 'PATCH', { country: '12' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'country' },
    { name: 'country not in the list (ZZ)', request: json(U, 'PATCH', { country: 'ZZ' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'country' },
    { name: "address.country not in the list ('UK' is GB)", request: json(U, 'PATCH', { address: { ...address, country: 'UK' } }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'address.country' },
    { name: 'bad email', request: json(U, 'PATCH', { email: 'nope' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'email' },
    { name: 'firstName is a number', request: json(U, 'PATCH', { firstName: 1 }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'firstName' },
    { name: 'loginNotifications is a string', request: json(U, 'PATCH', { loginNotifications: 'yes' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'loginNotifications' },
    { name: 'unknown language code', request: json(U, 'PATCH', { language: 'fr' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'language' },
    { name: 'role', request: json(U, 'PATCH', { role: 'admin' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'role' },
    { name: 'invalid JSON', request: raw(U, 'PATCH', '{"firstName":', 'application/json', true), expectStatus: 400, expectCode: 'invalid_json' },
    { name: 'text/plain body', request: raw(U, 'PATCH', '{"firstName":"X"}', 'text/plain', true), expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'new e-mail without currentPassword', request: json(U, 'PATCH', { email: 'elsewhere@example.com' }, true), expectStatus: 400, expectCode: 'current_password_required', expectParam: 'currentPassword' },
    { name: 'new password without currentPassword', request: json(U, 'PATCH', { password: STRONG }, true), expectStatus: 400, expectCode: 'current_password_required', expectParam: 'currentPassword' },
    { name: 'new password of 5 characters', request: json(U, 'PATCH', { password: 'k7#pQ', currentPassword: 'correct horse battery' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'common new password', request: json(U, 'PATCH', { password: 'iloveyou', currentPassword: 'correct horse battery' }, true), expectStatus: 400, expectCode: 'weak_password', expectParam: 'password' },
    { name: 'empty currentPassword', request: json(U, 'PATCH', { email: 'elsewhere@example.com', currentPassword: '' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'currentPassword' },
    { name: 'wrong currentPassword', request: json(U, 'PATCH', { email: 'elsewhere@example.com', currentPassword: 'not it at all' }, true), expectStatus: 400, expectCode: 'invalid_current_password', expectParam: 'currentPassword' },
    { name: 'valid', request: json(U, 'PATCH', { loginNotifications: false }, true), expectStatus: 200, check: (res) => expect(res.body.loginNotifications).toBe(false) },
    { name: 'empty object changes nothing', request: json(U, 'PATCH', {}, true), expectStatus: 200, check: (res) => expect(res.body.email).toBe('table.user@example.com') },
  ]);
});

describe('POST /api/auth/logout', () => {
  runTable([
    { name: 'text/plain body', request: raw('/api/auth/logout', 'POST', 'x', 'text/plain'), expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'cross-site', request: { method: 'POST', path: '/api/auth/logout', headers: { origin: 'https://evil.example' } }, expectStatus: 403, expectCode: 'cross_site_request' },
    {
      name: 'without a cookie is still fine and clears it',
      request: { method: 'POST', path: '/api/auth/logout' },
      expectStatus: 200,
      check: (res) => {
        expect(res.body).toEqual({ success: true });
        expect(res.headers.get('set-cookie')).toContain('Max-Age=0');
      },
    },
  ]);
});

const S = '/api/auth/2fa/setup';
const C = '/api/auth/2fa/confirm';
const D = '/api/auth/2fa/disable';
describe('two-factor endpoints', () => {
  runTable([
    { name: 'setup without a cookie', request: { method: 'POST', path: S }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'setup cross-site', request: { method: 'POST', path: S, auth: true, headers: { origin: 'https://evil.example' } }, expectStatus: 403, expectCode: 'cross_site_request' },
    { name: 'confirm without a cookie', request: json(C, 'POST', { code: '123456' }), expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'confirm: missing code', request: json(C, 'POST', {}, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'code' },
    { name: 'confirm: code of 5 digits', request: json(C, 'POST', { code: '12345' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'code' },
    { name: 'confirm: code with letters', request: json(C, 'POST', { code: '12345a' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'code' },
    { name: 'confirm: code is a number', request: json(C, 'POST', { code: 123456 }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'code' },
    { name: 'confirm: unknown extra field', request: json(C, 'POST', { code: '123456', secret: 'x' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'secret' },
    { name: 'confirm: invalid JSON', request: raw(C, 'POST', '{', 'application/json', true), expectStatus: 400, expectCode: 'invalid_json' },
    { name: 'confirm: text/plain', request: raw(C, 'POST', '{"code":"123456"}', 'text/plain', true), expectStatus: 415, expectCode: 'unsupported_media_type' },
    { name: 'disable without a cookie', request: json(D, 'POST', { code: '123456', password: 'x' }), expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'disable: code of 7 digits', request: json(D, 'POST', { code: '1234567', password: 'x' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'code' },
    { name: 'disable: missing password', request: json(D, 'POST', { code: '123456' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'disable: empty password', request: json(D, 'POST', { code: '123456', password: '' }, true), expectStatus: 400, expectCode: 'validation_error', expectParam: 'password' },
    { name: 'disable when not enabled', request: json(D, 'POST', { code: '123456', password: 'x' }, true), expectStatus: 409, expectCode: 'two_factor_not_enabled' },
    {
      name: 'setup',
      request: { method: 'POST', path: S, auth: true },
      expectStatus: 200,
      check: (res) => {
        expect(res.body.secret).toMatch(/^[A-Z2-7]{32}$/);
        expect(res.body.otpauthUrl).toStartWith('otpauth://totp/');
        expect(res.body.otpauthUrl).toContain(`secret=${res.body.secret}`);
      },
    },
  ]);
});

const T = '/api/subscription/tiers';
const B = '/api/subscription/benefits';
describe('subscription endpoints', () => {
  runTable([
    { name: 'tiers without a cookie', request: { method: 'GET', path: T }, expectStatus: 200, check: (res) => expect(res.body.tiers).toHaveLength(3) },
    { name: 'tiers with a cookie', request: { method: 'GET', path: T, auth: true }, expectStatus: 200, check: (res) => expect(res.body.tiers).toHaveLength(3) },
    { name: 'tiers is read-only', request: json(T, 'POST', {}), expectStatus: 404, expectCode: 'route_not_found' },
    { name: 'benefits without a cookie', request: { method: 'GET', path: B }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'benefits with a bad cookie', request: { method: 'GET', path: B, cookie: `bpay_session=${'B'.repeat(43)}` }, expectStatus: 401, expectCode: 'unauthenticated' },
    { name: 'benefits signed in', request: { method: 'GET', path: B, auth: true }, expectStatus: 200, check: (res) => expect(res.body.currentTier).toBe('free') },
  ]);
});

describe('unknown routes', () => {
  runTable([
    { name: 'unknown path', request: { method: 'GET', path: '/api/nope' }, expectStatus: 404, expectCode: 'route_not_found' },
    { name: 'unknown nested path', request: { method: 'GET', path: '/api/auth/nope/deeper' }, expectStatus: 404, expectCode: 'route_not_found' },
    { name: 'unknown path, POST', request: json('/api/v9/things', 'POST', { a: 1 }), expectStatus: 404, expectCode: 'route_not_found' },
    { name: 'wrong method on a known path', request: { method: 'DELETE', path: U, auth: true }, expectStatus: 404, expectCode: 'route_not_found' },
    { name: 'GET on a POST route', request: { method: 'GET', path: L }, expectStatus: 404, expectCode: 'route_not_found' },
  ]);
});

describe('request ids', () => {
  test('every response carries a fresh request-id, and errors repeat it in the body', async () => {
    const a = await call(ctx, '/api/nope');
    const b = await call(ctx, '/api/nope');
    const okRes = await call(ctx, T);
    const ids = [a, b, okRes].map((r) => r.headers.get('request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{20}$/);
    expect(new Set(ids).size).toBe(3);
    expect(a.body.error.request_id).toBe(ids[0]);
    expect(b.body.error.request_id).toBe(ids[1]);
    expect(a.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('an unexpected error', () => {
  test('is an opaque 500 that names the request id and leaks nothing, and is logged with that id', async () => {
    const log = memoryLogger();
    const broken = await makeTestApp({ log });
    try {
      const { cookie } = await registerUser(broken);
      broken.handle.close(); // every query now fails inside the database client
      const res = await call(broken, U, { cookie });
      expect(res.status).toBe(500);
      const requestId = res.headers.get('request-id');
      expect(requestId).toMatch(/^req_[0-9a-f]{20}$/);
      expect(res.body).toEqual({
        error: { type: 'api_error', code: 'internal_error', message: expect.any(String), request_id: requestId },
      });
      expect(res.body.error.message).toContain(requestId!);
      for (const leak of ['SQL', 'sql', 'libsql', 'LibsqlError', 'CLIENT_CLOSED', 'closed', ' at ', '.ts', '/work/', 'node_modules', 'stack']) {
        expect(res.text).not.toContain(leak);
      }
      const logged = log.lines.find((l) => l.level === 'error');
      expect(logged?.fields.requestId).toBe(requestId);
      expect(logged?.fields.error).toBeInstanceOf(Error);
    } finally {
      broken.close();
    }
  });
});
