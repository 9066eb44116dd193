import { describe, expect, test } from 'bun:test';
import { displayName, initials } from './display-name';

const u = (firstName: string | null, lastName: string | null, email: string) => ({ firstName, lastName, email });

describe('displayName', () => {
  test.each([
    [u('Ada', 'Lovelace', 'ada@example.com'), 'Ada Lovelace'],
    [u('Ada', null, 'ada@example.com'), 'Ada'],
    [u(null, 'Lovelace', 'ada@example.com'), 'Lovelace'],
    [u('  Ada ', '  ', 'ada@example.com'), 'Ada'],
    [u(null, null, 'ada.l@example.com'), 'ada.l'],
    [u('', '', 'grace@example.com'), 'grace'],
    [u(null, null, ''), 'User'],
    [u(null, null, '@example.com'), 'User'],
  ])('%o -> %p', (user, expected) => {
    expect(displayName(user)).toBe(expected);
  });

  test('no user gives the fallback, which callers translate', () => {
    expect(displayName(null)).toBe('User');
    expect(displayName(undefined, 'مستخدم')).toBe('مستخدم');
    expect(displayName(u(null, null, ''), 'مستخدم')).toBe('مستخدم');
  });
});

describe('initials', () => {
  test('from the names, else from the displayed name', () => {
    expect(initials(u('ada', 'lovelace', 'x@y.z'))).toBe('AL');
    expect(initials(u('Ada', null, 'x@y.z'))).toBe('A');
    expect(initials(u(null, null, 'grace@example.com'))).toBe('G');
    expect(initials(null)).toBe('U');
    expect(initials(u('سارة', 'علي', 'x@y.z'))).toBe('سع');
  });
});
