import { describe, expect, test } from 'bun:test';
import { intentIdFromClientSecret, openerOrigin } from './checkout-params';

describe('checkout URL parameters', () => {
  test('the intent id is the part of the client secret before _secret_', () => {
    expect(intentIdFromClientSecret('pi_0a1b2c_secret_Ab-9_z')).toBe('pi_0a1b2c');
    expect(intentIdFromClientSecret('pi_0a1b2c')).toBeNull();
    expect(intentIdFromClientSecret('ch_1_secret_x')).toBeNull();
    expect(intentIdFromClientSecret('pi_1_secret_x y')).toBeNull();
    expect(intentIdFromClientSecret(null)).toBeNull();
  });

  test('only an exact http(s) origin is posted to', () => {
    expect(openerOrigin('http://127.0.0.1:5123')).toBe('http://127.0.0.1:5123');
    expect(openerOrigin('https://shop.example')).toBe('https://shop.example');
    expect(openerOrigin('https://shop.example/')).toBeNull();
    expect(openerOrigin('https://shop.example/path')).toBeNull();
    expect(openerOrigin('*')).toBeNull();
    expect(openerOrigin('javascript:alert(1)')).toBeNull();
    expect(openerOrigin('null')).toBeNull();
    expect(openerOrigin(null)).toBeNull();
  });
});
