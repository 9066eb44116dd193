import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvError, parseEnv } from './env';
import { CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR } from './modules/funding-sources/attempts';

const SECRET = 'x'.repeat(32);
const dir = mkdtempSync(join(tmpdir(), 'bpay-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** parseEnv's failure, or a test failure when it does not fail. */
function envError(source: Record<string, string | undefined>): EnvError {
  try {
    parseEnv(source);
  } catch (e) {
    if (e instanceof EnvError) return e;
    throw e;
  }
  throw new Error('parseEnv accepted a bad environment');
}

describe('parseEnv defaults', () => {
  test('an almost empty environment gets the documented defaults', () => {
    const env = parseEnv({ BPAY_SESSION_SECRET: SECRET });
    expect(env.port).toBe(3000);
    expect(env.host).toBe('0.0.0.0');
    expect(env.databaseUrl).toBe('file:./data/bpay.db');
    expect(env.databaseAuthToken).toBeUndefined();
    expect(env.sessionSecret).toBe(SECRET);
    expect(env.publicUrl.href).toBe('http://localhost:3000/');
    expect(env.sessionTtlMs).toBe(14 * 24 * 3600_000);
    expect(env.trustProxy).toBe(false);
    expect(env.nodeEnv).toBe('production');
    expect(env.logLevel).toBe('info');
  });

  test('values are parsed and typed', () => {
    const env = parseEnv({
      BPAY_SESSION_SECRET: SECRET,
      PORT: '8080',
      BPAY_PUBLIC_URL: 'https://bpay.example',
      BPAY_DATABASE_URL: 'libsql://db.example',
      BPAY_TRUST_PROXY: 'true',
      BPAY_SESSION_TTL_HOURS: '2',
    });
    expect(env.port).toBe(8080);
    expect(env.publicUrl.origin).toBe('https://bpay.example');
    expect(env.databaseUrl).toBe('libsql://db.example');
    expect(env.trustProxy).toBe(true);
    expect(env.sessionTtlMs).toBe(2 * 3600_000);
  });

  test('sandbox webhooks to local addresses: on for a loopback public URL, off for any other, or as set', () => {
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET }).sandboxLocalWebhooks).toBe(true);
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_PUBLIC_URL: 'http://127.0.0.1:3000' }).sandboxLocalWebhooks).toBe(true);
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_PUBLIC_URL: 'https://pay.example.com' }).sandboxLocalWebhooks).toBe(false);
    expect(
      parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_PUBLIC_URL: 'https://pay.example.com', BPAY_SANDBOX_LOCAL_WEBHOOKS: 'on' }).sandboxLocalWebhooks,
    ).toBe(true);
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_SANDBOX_LOCAL_WEBHOOKS: 'off' }).sandboxLocalWebhooks).toBe(false);
  });

  test('the investor contact: defaults, configured values, and a bad e-mail or phone named', () => {
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET }).site).toEqual({ investorEmail: 'investors@bpay.example', investorPhone: '+1 (555) 010-2025' });
    expect(
      parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_INVESTOR_EMAIL: 'ir@example.com', BPAY_INVESTOR_PHONE: '+44 20 7946 0000' }).site,
    ).toEqual({ investorEmail: 'ir@example.com', investorPhone: '+44 20 7946 0000' });
    const e = envError({ BPAY_SESSION_SECRET: SECRET, BPAY_INVESTOR_EMAIL: 'not an address', BPAY_INVESTOR_PHONE: 'call us' });
    expect(e.problems.some((p) => p.startsWith('BPAY_INVESTOR_EMAIL'))).toBe(true);
    expect(e.problems.some((p) => p.startsWith('BPAY_INVESTOR_PHONE'))).toBe(true);
  });

  test('the default public URL follows PORT', () => {
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, PORT: '4321' }).publicUrl.origin).toBe('http://localhost:4321');
  });
});

describe('parseEnv refusals name the variable', () => {
  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '0'],
    ['PORT', '3000.5'],
    ['BPAY_SESSION_SECRET', 'tooshort10'],
    ['BPAY_PUBLIC_URL', 'notaurl'],
    ['BPAY_PUBLIC_URL', 'ftp://bpay.example'],
    ['BPAY_DATABASE_URL', 'postgres://x'],
    ['BPAY_TRUST_PROXY', 'yes'],
    ['BPAY_LOG_LEVEL', 'loud'],
    ['BPAY_SESSION_TTL_HOURS', '0'],
  ] as const)('%s=%p', (name, value) => {
    const e = envError({ BPAY_SESSION_SECRET: SECRET, [name]: value });
    expect(e).toBeInstanceOf(EnvError);
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]!.startsWith(`${name}:`)).toBe(true);
    expect(e.message).toContain(name);
  });

  test('every bad variable is listed at once', () => {
    const e = envError({
      PORT: 'abc',
      BPAY_SESSION_SECRET: 'short',
      BPAY_PUBLIC_URL: 'notaurl',
      BPAY_DATABASE_URL: 'postgres://x',
    });
    const named = e.problems.map((p) => p.split(':')[0]).sort();
    expect(named).toEqual(['BPAY_DATABASE_URL', 'BPAY_PUBLIC_URL', 'BPAY_SESSION_SECRET', 'PORT']);
    for (const name of named) expect(e.message).toContain(`- ${name}:`);
  });

  test('the message does not echo the secret', () => {
    const e = envError({ BPAY_SESSION_SECRET: 'hunter2-secret' });
    expect(e.message).not.toContain('hunter2-secret');
  });
});

describe('BPAY_RATE_LIMITS', () => {
  test('on unless set; off is honoured on a loopback public URL (localhost, 127.0.0.0/8, [::1], or the default)', () => {
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET }).rateLimits).toBe(true);
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_RATE_LIMITS: 'on', BPAY_PUBLIC_URL: 'https://pay.example.com' }).rateLimits).toBe(true);
    for (const url of [undefined, 'http://localhost:3000', 'http://127.0.0.1:4100', 'http://127.8.9.10', 'http://[::1]:3000']) {
      expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_RATE_LIMITS: 'off', BPAY_PUBLIC_URL: url }).rateLimits).toBe(false);
    }
  });

  test.each(['https://pay.example.com', 'http://10.0.0.5:3000', 'http://127.example.com', 'http://[::2]:3000', 'http://0.0.0.0:3000'])(
    'off with BPAY_PUBLIC_URL=%s is refused, naming the variable and the URL',
    (url) => {
      const e = envError({ BPAY_SESSION_SECRET: SECRET, BPAY_RATE_LIMITS: 'off', BPAY_PUBLIC_URL: url });
      expect(e.problems).toHaveLength(1);
      expect(e.problems[0]!.startsWith('BPAY_RATE_LIMITS:')).toBe(true);
      expect(e.problems[0]).toContain(new URL(url).origin);
    },
  );

  test('only on or off', () => {
    const e = envError({ BPAY_SESSION_SECRET: SECRET, BPAY_RATE_LIMITS: 'false' });
    expect(e.problems.map((p) => p.split(':')[0])).toEqual(['BPAY_RATE_LIMITS']);
  });

  test('a non-loopback public URL no longer counts as local for sandbox webhooks just because its name starts with 127.', () => {
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_PUBLIC_URL: 'http://127.example.com' }).sandboxLocalWebhooks).toBe(false);
  });
});

describe('generated session secret', () => {
  test('is created with mode 0600 and reused on the next parse', () => {
    const file = join(dir, 'nested', 'session-secret');
    expect(existsSync(file)).toBe(false);
    const first = parseEnv({ BPAY_SESSION_SECRET_FILE: file });
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.sessionSecret.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.sessionSecret);

    const second = parseEnv({ BPAY_SESSION_SECRET_FILE: file });
    expect(second.sessionSecret).toBe(first.sessionSecret);
  });

  test('two installs get different secrets', () => {
    const a = parseEnv({ BPAY_SESSION_SECRET_FILE: join(dir, 'a', 'secret') });
    const b = parseEnv({ BPAY_SESSION_SECRET_FILE: join(dir, 'b', 'secret') });
    expect(a.sessionSecret).not.toBe(b.sessionSecret);
  });

  test('an explicit BPAY_SESSION_SECRET wins and writes no file', () => {
    const file = join(dir, 'unused', 'secret');
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_SESSION_SECRET_FILE: file }).sessionSecret).toBe(SECRET);
    expect(existsSync(file)).toBe(false);
  });

  test('a secret file holding too little is refused', () => {
    const file = join(dir, 'weak-secret');
    writeFileSync(file, 'short\n', { mode: 0o600 });
    const e = envError({ BPAY_SESSION_SECRET_FILE: file });
    expect(e.message).toContain('BPAY_SESSION_SECRET_FILE');
  });
});

describe('outgoing mail', () => {
  test('no SMTP server and the default From unless set', () => {
    const env = parseEnv({ BPAY_SESSION_SECRET: SECRET });
    expect(env.mail).toEqual({ smtpUrl: null, from: 'bpay <no-reply@localhost>' });
  });

  test('smtp:// and smtps:// URLs with credentials are taken as given', () => {
    for (const url of ['smtp://mail.example.com:587', 'smtps://user%40x:p%40ss@mail.example.com:465', 'smtp://127.0.0.1:2525/']) {
      expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_SMTP_URL: url }).mail.smtpUrl).toBe(url);
    }
  });

  test('anything else is refused, naming the variable and never echoing the value (it holds a password)', () => {
    for (const url of ['http://mail.example.com', 'mail.example.com:25', 'smtp://', 'smtp://user:hunter2@host/path', '']) {
      const e = envError({ BPAY_SESSION_SECRET: SECRET, BPAY_SMTP_URL: url });
      expect(e.message).toContain('BPAY_SMTP_URL');
      expect(e.message).not.toContain('hunter2');
    }
  });

  test('BPAY_MAIL_FROM: an address, with or without a display name', () => {
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_MAIL_FROM: 'Pay Team <pay@example.com>' }).mail.from).toBe('Pay Team <pay@example.com>');
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_MAIL_FROM: ' pay@example.com ' }).mail.from).toBe('pay@example.com');
    for (const bad of ['not an address', 'Pay <pay>', 'a@b\r\nBcc: x@y', '"Quoted" <a@b.c>', 'Pay <a@b.c']) {
      expect(envError({ BPAY_SESSION_SECRET: SECRET, BPAY_MAIL_FROM: bad }).message).toContain('BPAY_MAIL_FROM');
    }
  });
});

describe('BPAY_CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR', () => {
  test("defaults to the card-attempt limit's own figure, takes a whole number, refuses anything else naming the variable", () => {
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET }).cardAttemptsPerAddressPerHour).toBe(CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR);
    expect(parseEnv({ BPAY_SESSION_SECRET: SECRET, BPAY_CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR: '1000' }).cardAttemptsPerAddressPerHour).toBe(1000);
    for (const bad of ['0', '-1', '2.5', 'lots']) {
      expect(envError({ BPAY_SESSION_SECRET: SECRET, BPAY_CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR: bad }).message).toContain('BPAY_CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR');
    }
  });
});
