import { describe, expect, test } from 'bun:test';
import { homeFor, isAdminPath } from './not-found';

describe('the 404 page: a way home that fits the visitor', () => {
  test('paths of the back office lead to the admin panel, signed in or not', () => {
    for (const p of ['/admin', '/admin/', '/admin/users', '/ADMIN-panel/x', '/admin-settings']) {
      expect(isAdminPath(p)).toBe(true);
      expect(homeFor(p, { signedIn: false, lang: 'en' })).toEqual({ href: '/admin-panel', label: 'notFound.home.admin' });
      expect(homeFor(p, { signedIn: true, lang: 'ar' }).href).toBe('/admin-panel');
    }
    for (const p of ['/administrator', '/adminx', '/x/admin', '/']) expect(isAdminPath(p)).toBe(false);
  });
  test('a signed-in user goes back to the dashboard; a visitor to the landing page in the page language', () => {
    expect(homeFor('/nope', { signedIn: true, lang: 'en' })).toEqual({ href: '/', label: 'notFound.home.dashboard' });
    expect(homeFor('/nope', { signedIn: true, lang: 'ar' })).toEqual({ href: '/', label: 'notFound.home.dashboard' });
    expect(homeFor('/nope', { signedIn: false, lang: 'en' })).toEqual({ href: '/', label: 'notFound.home.landing' });
    expect(homeFor('/ar/nope', { signedIn: false, lang: 'ar' })).toEqual({ href: '/ar', label: 'notFound.home.landing' });
  });
});
