import { describe, expect, test } from 'bun:test';
import { safeNextPath } from '../features/auth/next-path';
import { authPath, plansPath, pricingCardHref, tierFromSearch } from './plan-links';

const origin = 'http://localhost:3100';
const pro = { id: 'a1b2c3d4-0000-4000-8000-000000000001', monthlyPrice: 9.99 };
const free = { id: 'free-tier', monthlyPrice: 0 };

describe('plansPath', () => {
  test('carries a tier id', () => {
    expect(plansPath(pro.id)).toBe(`/plans?tier=${pro.id}`);
  });
  test.each([[null], [undefined], [''], ['a b'], ['x/../y'], ['a'.repeat(101)]])('drops a missing or odd id: %p', (id) => {
    expect(plansPath(id)).toBe('/plans');
  });
});

describe('authPath', () => {
  test('sign-in with no next is the bare page', () => expect(authPath('signin')).toBe('/auth'));
  test('register opens the Register tab', () => expect(authPath('register')).toBe('/auth?tab=register'));
  test('next is encoded as one parameter', () => {
    expect(authPath('signin', '/plans?tier=p1&x=1')).toBe('/auth?next=%2Fplans%3Ftier%3Dp1%26x%3D1');
  });
});

describe('pricingCardHref', () => {
  test('signed out, Start Free opens Register with nowhere special to return', () => {
    expect(pricingCardHref(free, false)).toBe('/auth?tab=register');
  });
  test('signed out, Choose Plan opens Register returning to /plans with the tier', () => {
    const href = pricingCardHref(pro, false);
    const params = new URL(href, origin).searchParams;
    expect(new URL(href, origin).pathname).toBe('/auth');
    expect(params.get('tab')).toBe('register');
    // The auth page reads `next` through safeNextPath: the tier survives it.
    expect(safeNextPath(params.get('next'), origin)).toBe(`/plans?tier=${pro.id}`);
  });
  test('signed in, both go to /plans (with the tier for a paid one)', () => {
    expect(pricingCardHref(free, true)).toBe('/plans');
    expect(pricingCardHref(pro, true)).toBe(`/plans?tier=${pro.id}`);
  });
});

describe('tierFromSearch', () => {
  test('reads the tier', () => {
    expect(tierFromSearch(`?tier=${pro.id}`)).toBe(pro.id);
    expect(tierFromSearch('tier=pro&x=1')).toBe('pro');
  });
  test.each([[''], ['?x=1'], ['?tier='], ['?tier=%3Cscript%3E'], ['?tier=a%20b']])('ignores %p', (search) => {
    expect(tierFromSearch(search)).toBeNull();
  });
});
