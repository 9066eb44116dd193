import { describe, expect, test } from 'bun:test';
import { safeNextPath } from './next-path';

const origin = 'http://localhost:3100';

describe('safeNextPath', () => {
  test.each([
    ['/merchant-dashboard', '/merchant-dashboard'],
    ['/checkout/pay?client_secret=pi_1_secret_a&origin=http%3A%2F%2F127.0.0.1%3A5000', '/checkout/pay?client_secret=pi_1_secret_a&origin=http%3A%2F%2F127.0.0.1%3A5000'],
    ['/a/../b', '/b'],
  ])('keeps a same-site path: %s', (next, expected) => {
    expect(safeNextPath(next, origin)).toBe(expected);
  });

  test.each([
    [null],
    [''],
    ['https://evil.example/'],
    ['//evil.example/x'],
    ['/\\evil.example'],
    ['javascript:alert(1)'],
    ['merchant-dashboard'],
    ['/\tevil'],
    ['/auth'],
    ['/AUTH?next=/x'],
  ])('refuses %s', (next) => {
    expect(safeNextPath(next, origin)).toBeNull();
  });
});

test('a chosen plan survives as next: /plans?tier=<id>', () => {
  expect(safeNextPath('/plans?tier=3f1c2b7a-pro', origin)).toBe('/plans?tier=3f1c2b7a-pro');
});
