import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { totp } from '../api/src/lib/totp';
import { adminLoginCall } from '../api/test-support/modules/admin';
import { makeTestApp, TEST_SESSION_SECRET, type TestContext } from '../api/test-support/app';

/*
 * `bun run admin:create` (scripts/admin-create.ts), run as the operator would: a subprocess with the server's
 * configuration in its environment, against a temporary database that the app then opens to sign the admin in.
 */

const ROOT = resolve(import.meta.dir, '..');
const SCRIPT = join(ROOT, 'scripts', 'admin-create.ts');
const PASSWORD = 'a long admin password';

let dir: string;
let ctx: TestContext | null = null;

async function adminCreate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, SCRIPT, ...args], {
    cwd: ROOT,
    // Only what the script needs: the server's database and session secret, nothing from ./data.
    env: {
      PATH: process.env.PATH ?? '',
      TZ: 'UTC',
      BPAY_DATABASE_URL: `file:${join(dir, 'test.db')}`,
      BPAY_SESSION_SECRET: TEST_SESSION_SECRET,
      BPAY_SESSION_SECRET_FILE: join(dir, 'session-secret'),
      BPAY_UPLOADS_DIR: join(dir, 'uploads'),
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const printed = (stdout: string, label: string) => new RegExp(`^${label} \\(shown once\\): (\\S+)$`, 'm').exec(stdout)?.[1];

/** Signs in through the app on the same database, with the current code of `secret` on the test clock. */
async function signIn(c: TestContext, username: string, password: string, secret: string) {
  c.clock.advance(30_000);
  return adminLoginCall(c, { username, password, accessCode: totp(secret, c.clock.now().getTime()) });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-admin-create-'));
});
afterAll(() => (ctx ? ctx.close() : rmSync(dir, { recursive: true, force: true })));

describe('bun run admin:create', () => {
  test(
    'creates an admin who can then sign in with the printed TOTP secret',
    async () => {
      const run = await adminCreate('--username', 'Alice', '--password', PASSWORD);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Admin "Alice" created.');
      expect(run.stdout).not.toContain(PASSWORD);
      expect(run.stdout).toMatch(/^Authenticator URI: otpauth:\/\/totp\//m);
      const secret = printed(run.stdout, 'TOTP secret');
      expect(secret).toMatch(/^[A-Z2-7]{16,}$/);

      ctx = await makeTestApp({ dir });
      const res = await signIn(ctx, 'alice', PASSWORD, secret!);
      expect(res.status).toBe(200);
      expect(typeof res.body.token).toBe('string');
      const wrong = await signIn(ctx, 'alice', 'not the password!', secret!);
      expect(wrong.status).toBe(401);
    },
    30_000,
  );

  test(
    'without --password (no terminal) it generates one, printed once, that signs in',
    async () => {
      const run = await adminCreate('--username', 'bob');
      expect(run.code).toBe(0);
      const password = printed(run.stdout, 'Password');
      const secret = printed(run.stdout, 'TOTP secret');
      expect(password?.length).toBeGreaterThanOrEqual(12);
      const res = await signIn(ctx!, 'bob', password!, secret!);
      expect(res.status).toBe(200);
    },
    30_000,
  );

  test(
    'a username that exists (in any case) exits 1 with a clear message, and changes nothing',
    async () => {
      const run = await adminCreate('--username', 'ALICE', '--password', 'another long password');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('An admin with this username already exists.');
      expect(run.stdout).not.toContain('created');
      const rows = await ctx!.handle.client.execute('SELECT count(*) AS n FROM admins');
      expect(Number(rows.rows[0]?.n)).toBe(2);
    },
    30_000,
  );

  test(
    'a password shorter than 12 characters exits 1 with a clear message',
    async () => {
      const run = await adminCreate('--username', 'carol', '--password', 'short pw');
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('password must be at least 12 characters');
      expect(run.stdout).not.toContain('created');
    },
    30_000,
  );

  test(
    'no --username prints the usage and exits 2',
    async () => {
      const run = await adminCreate();
      expect(run.code).toBe(2);
      expect(run.stdout).toContain('Usage: bun run admin:create --username <name>');
    },
    30_000,
  );
});
