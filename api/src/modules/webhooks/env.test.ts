import { describe, expect, test } from 'bun:test';
import { buildDeps, DEFAULT_WEBHOOK_TIMEOUT_MS } from '../../deps';
import { EnvError, parseEnv } from '../../env';

/* The webhook knobs in the environment (README "Configuration"). */

const SECRET = 'x'.repeat(32);

describe('webhook configuration', () => {
  test('defaults: a 10 s timeout and the worker on', () => {
    const env = parseEnv({ BPAY_SESSION_SECRET: SECRET });
    expect(env.webhookTimeoutMs).toBe(10_000);
    expect(env.webhookWorker).toBe(true);
    expect(DEFAULT_WEBHOOK_TIMEOUT_MS).toBe(10_000);
  });

  test('values are parsed', () => {
    const env = parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_WEBHOOK_TIMEOUT_SECONDS: '3', BPAY_WEBHOOK_WORKER: 'off' });
    expect(env.webhookTimeoutMs).toBe(3000);
    expect(env.webhookWorker).toBe(false);
  });

  test.each([
    ['BPAY_WEBHOOK_TIMEOUT_SECONDS', '0'],
    ['BPAY_WEBHOOK_TIMEOUT_SECONDS', '31'],
    ['BPAY_WEBHOOK_TIMEOUT_SECONDS', 'ten'],
    ['BPAY_WEBHOOK_WORKER', 'yes'],
  ])('%s=%s is refused, naming the variable', (name, value) => {
    let error: unknown;
    try {
      parseEnv({ BPAY_SESSION_SECRET: SECRET, [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    expect((error as EnvError).problems.join('\n')).toContain(name);
  });

  test('the webhook sealing key is derived from the session secret, for this purpose only', () => {
    const deps = (secret: string) =>
      buildDeps({
        db: {} as never,
        clock: { now: () => new Date() },
        log: { debug() {}, info() {}, warn() {}, error() {} },
        sessionSecret: secret,
        sessionTtlMs: 1,
        publicUrl: new URL('http://localhost:3000'),
        trustProxy: false,
        vendors: { simulated: {} as never },
        bcardTtlMs: 1,
      });
    const a = deps(SECRET);
    expect(a.webhookKey).toHaveLength(32);
    expect(a.webhookKey.equals(deps(SECRET).webhookKey)).toBe(true);
    expect(a.webhookKey.equals(deps('y'.repeat(32)).webhookKey)).toBe(false);
    expect(a.webhookKey.equals(a.totpKey)).toBe(false);
    expect(a.webhooks.timeoutMs).toBe(DEFAULT_WEBHOOK_TIMEOUT_MS);
  });
});
