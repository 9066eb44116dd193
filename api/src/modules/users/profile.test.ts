import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, login, makeTestApp, me, registerUser, type TestContext } from '../../testing';

/* Updating your own profile through PATCH /api/auth/user. Refused fields are in ../auth/auth.security.test.ts. */

const PASSWORD = 'correct horse battery';

describe('profile updates', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await makeTestApp();
  });
  afterAll(() => ctx.close());

  test('phone and address: state upper-cased, country defaults to US', async () => {
    const u = await registerUser(ctx);
    const res = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie: u.cookie,
      body: { phoneNumber: '+1 (415) 555-0100', address: { line1: ' 1 Market St ', city: 'San Francisco', state: 'ca', postal_code: '94105' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.phoneNumber).toBe('+1 (415) 555-0100');
    expect(res.body.address).toEqual({ line1: '1 Market St', city: 'San Francisco', state: 'CA', postal_code: '94105', country: 'US' });
    const row = await ctx.handle.db.query.users.findFirst({ where: eq(schema.users.id, u.user.id) });
    expect(row?.addressState).toBe('CA');
    expect(row?.addressCountry).toBe('US');
    expect((await me(ctx, u.cookie)).body.address).toEqual(res.body.address);
  });

  test('names, e-mail and country change; the new e-mail signs in, the old one does not', async () => {
    const u = await registerUser(ctx, { password: PASSWORD });
    const res = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie: u.cookie,
      body: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', country: 'gb' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com', country: 'GB' });
    expect((await me(ctx, u.cookie)).body).toMatchObject({ firstName: 'Grace', email: 'grace@example.com', country: 'GB' });
    expect((await login(ctx, 'grace@example.com', PASSWORD, { ip: '198.51.100.9' })).status).toBe(200);
    expect((await login(ctx, u.email, PASSWORD, { ip: '198.51.100.9' })).status).toBe(401);
  });

  test('a blank name or phone clears it; an address with state omitted stores none', async () => {
    const u = await registerUser(ctx);
    const res = await call(ctx, '/api/auth/user', {
      method: 'PATCH',
      cookie: u.cookie,
      body: { firstName: '  ', phoneNumber: '', address: { line1: '5 Rue', city: 'Paris', country: 'fr' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.firstName).toBeNull();
    expect(res.body.phoneNumber).toBeNull();
    expect(res.body.address).toEqual({ line1: '5 Rue', city: 'Paris', state: null, postal_code: null, country: 'FR' });
  });
});
