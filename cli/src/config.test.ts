import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configPath, DEFAULT_BASE_URL, maskKey, readConfig, resolveSettings, updateProfile, writeConfig, type ConfigFile } from './config';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'bpay-cli-config-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe('configPath', () => {
  test('XDG_CONFIG_HOME wins over HOME', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/bpay/config.json');
    expect(configPath({ HOME: '/h' })).toBe('/h/.config/bpay/config.json');
    expect(configPath({ XDG_CONFIG_HOME: '', HOME: '/h' })).toBe('/h/.config/bpay/config.json');
  });
});

describe('resolveSettings: precedence', () => {
  const config: ConfigFile = {
    profiles: {
      default: { apiKey: 'sk_test_default', baseUrl: 'http://default.example' },
      shop: { apiKey: 'sk_test_shop', baseUrl: 'http://shop.example/', adminToken: 'tok' },
      bare: {},
    },
  };
  const table: Array<{
    name: string;
    flags: { apiKey?: string; baseUrl?: string; profile?: string };
    env: Record<string, string>;
    expect: { profile: string; apiKey: string | null; apiKeySource: string; baseUrl: string; baseUrlSource: string };
  }> = [
    {
      name: 'nothing given: the default profile',
      flags: {},
      env: {},
      expect: { profile: 'default', apiKey: 'sk_test_default', apiKeySource: 'profile', baseUrl: 'http://default.example', baseUrlSource: 'profile' },
    },
    {
      name: 'BPAY_PROFILE picks the profile',
      flags: {},
      env: { BPAY_PROFILE: 'shop' },
      expect: { profile: 'shop', apiKey: 'sk_test_shop', apiKeySource: 'profile', baseUrl: 'http://shop.example', baseUrlSource: 'profile' },
    },
    {
      name: '--profile beats BPAY_PROFILE',
      flags: { profile: 'default' },
      env: { BPAY_PROFILE: 'shop' },
      expect: { profile: 'default', apiKey: 'sk_test_default', apiKeySource: 'profile', baseUrl: 'http://default.example', baseUrlSource: 'profile' },
    },
    {
      name: 'BPAY_API_KEY and BPAY_BASE_URL beat the profile',
      flags: { profile: 'shop' },
      env: { BPAY_API_KEY: 'sk_test_env', BPAY_BASE_URL: 'http://env.example' },
      expect: { profile: 'shop', apiKey: 'sk_test_env', apiKeySource: 'env', baseUrl: 'http://env.example', baseUrlSource: 'env' },
    },
    {
      name: 'flags beat the environment',
      flags: { apiKey: 'sk_test_flag', baseUrl: 'http://flag.example' },
      env: { BPAY_API_KEY: 'sk_test_env', BPAY_BASE_URL: 'http://env.example' },
      expect: { profile: 'default', apiKey: 'sk_test_flag', apiKeySource: 'flag', baseUrl: 'http://flag.example', baseUrlSource: 'flag' },
    },
    {
      name: 'a profile without settings: no key, the default URL',
      flags: { profile: 'bare' },
      env: {},
      expect: { profile: 'bare', apiKey: null, apiKeySource: 'none', baseUrl: DEFAULT_BASE_URL, baseUrlSource: 'default' },
    },
    {
      name: 'an unknown profile is empty; empty variables count as unset',
      flags: { profile: 'nope' },
      env: { BPAY_API_KEY: '', BPAY_BASE_URL: '' },
      expect: { profile: 'nope', apiKey: null, apiKeySource: 'none', baseUrl: DEFAULT_BASE_URL, baseUrlSource: 'default' },
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      expect(resolveSettings(row.flags, row.env, config)).toMatchObject(row.expect);
    });
  }
  test('the admin token comes from the chosen profile only', () => {
    expect(resolveSettings({ profile: 'shop' }, {}, config).adminToken).toBe('tok');
    expect(resolveSettings({}, {}, config).adminToken).toBeNull();
  });
});

describe('config file', () => {
  test('written 0600 in a 0700 folder, atomically, and read back', () => {
    const home = tempDir();
    const path = configPath({ XDG_CONFIG_HOME: join(home, 'xdg') });
    updateProfile(path, 'default', { apiKey: 'sk_test_abc', baseUrl: 'http://x' });
    expect(mode(path)).toBe(0o600);
    expect(mode(join(home, 'xdg', 'bpay'))).toBe(0o700);
    expect(readConfig(path)).toEqual({ profiles: { default: { apiKey: 'sk_test_abc', baseUrl: 'http://x' } } });
    // No temporary files left beside it.
    expect(readdirSync(join(home, 'xdg', 'bpay'))).toEqual(['config.json']);
  });

  test('an existing file with a wider mode becomes 0600 on the next write; other profiles are kept', () => {
    const dir = join(tempDir(), 'bpay');
    mkdirSync(dir, { mode: 0o755 });
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ profiles: { other: { apiKey: 'sk_test_other' } } }));
    chmodSync(path, 0o644);
    chmodSync(dir, 0o755);
    updateProfile(path, 'default', { apiKey: 'sk_test_new' });
    expect(mode(path)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(readConfig(path).profiles).toEqual({ other: { apiKey: 'sk_test_other' }, default: { apiKey: 'sk_test_new' } });
  });

  test('removing the last field removes the profile', () => {
    const path = join(tempDir(), 'bpay', 'config.json');
    updateProfile(path, 'p', { apiKey: 'sk_test_1' });
    updateProfile(path, 'p', { apiKey: undefined });
    expect(readConfig(path)).toEqual({ profiles: {} });
  });

  test('a missing file is empty; a malformed one is an error naming the path; unknown fields are dropped', () => {
    const dir = tempDir();
    expect(readConfig(join(dir, 'none.json'))).toEqual({ profiles: {} });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{nope');
    expect(() => readConfig(bad)).toThrow(bad);
    const odd = join(dir, 'odd.json');
    writeConfig(odd, { profiles: { a: { apiKey: 'k' } } });
    writeFileSync(odd, JSON.stringify({ profiles: { a: { apiKey: 'k', apiKeyx: 1, baseUrl: 5 } } }));
    expect(readConfig(odd)).toEqual({ profiles: { a: { apiKey: 'k' } } });
    expect(JSON.parse(readFileSync(odd, 'utf8')).profiles.a.apiKeyx).toBe(1);
  });
});

test('maskKey keeps the prefix and the last four characters', () => {
  expect(maskKey('sk_test_abcdefghij1234')).toBe('sk_test_…1234');
  expect(maskKey('sk_live_zz9876')).toBe('sk_live_…9876');
});
