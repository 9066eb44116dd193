import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boot } from '../../boot';
import { EnvError, parseEnv } from '../../env';
import { TestClock } from '../../lib/clock';
import { memoryLogger } from '../../../test-support/app';
import { putVendorCredentials, updateVendorSettings } from './vendors';

const SECRET = 'boot-test-session-secret-boot-test-session-secret';

function envFor(dir: string, extra: Record<string, string> = {}) {
  return parseEnv({
    BPAY_DATABASE_URL: `file:${join(dir, 'bpay.db')}`,
    BPAY_SESSION_SECRET: SECRET,
    BPAY_UPLOADS_DIR: join(dir, 'uploads'),
    BPAY_WEBHOOK_WORKER: 'off',
    ...extra,
  });
}

describe('admin configuration', () => {
  test('defaults and validation', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bpay-env-'));
    try {
      const env = envFor(dir);
      expect(env.admin.tokenTtlMs).toBe(15 * 60_000);
      expect(env.vendorKey).toBeNull();
      const key = Buffer.alloc(32, 1).toString('base64');
      expect(envFor(dir, { BPAY_VENDOR_KEY: key }).vendorKey?.length).toBe(32);
      for (const bad of <Array<Record<string, string>>>[
        { BPAY_VENDOR_KEY: Buffer.alloc(16).toString('base64') },
        { BPAY_ADMIN_TOTP_SECRET: 'not base32!' },
        { BPAY_ADMIN_PASSWORD: 'short' },
        { BPAY_ADMIN_TOKEN_TTL_MINUTES: '0' },
      ]) {
        expect(() => envFor(dir, bad)).toThrow(EnvError);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('boot', () => {
  test('creates and prints the first admin once; uses the admin-configured Stripe key of the active mode at the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bpay-boot-'));
    const clock = new TestClock();
    try {
      const log = memoryLogger();
      const first = await boot(envFor(dir), log, clock);
      const printed = log.lines.filter((l) => l.msg.startsWith('first admin created'));
      expect(printed).toHaveLength(1);
      expect(String(printed[0]!.fields.otpauthUri)).toStartWith('otpauth://totp/');
      expect(first.deps.vendor.name).toBe('simulated');
      const actor = { adminId: 'adm_test', ip: null };
      await putVendorCredentials(first.deps.db, clock, first.deps.vendorKey, actor, 'live', {
        publishableKey: 'pk_live_abc',
        secretKey: 'sk_live_fromadminpanel1',
      });
      await updateVendorSettings(first.deps.db, clock, actor, { mode: 'live' });
      first.stop();

      const log2 = memoryLogger();
      const second = await boot(envFor(dir), log2, clock);
      try {
        expect(log2.lines.filter((l) => l.msg.startsWith('first admin created'))).toHaveLength(0);
        expect(second.deps.vendor.name).toBe('stripe');
        expect(second.deps.vendorInUse).toEqual({ vendor: 'stripe', mode: 'live', source: 'admin' });
        expect(log2.lines.find((l) => l.msg === 'payment vendor')?.fields).toMatchObject({ vendor: 'stripe', mode: 'live' });
      } finally {
        second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
