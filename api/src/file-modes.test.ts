/**
 * Issue 27 §1: nothing bpay keeps is readable by other users of the machine. A server started the real way (its
 * process entry, as start.sh starts it) on a folder that does not exist yet, given a KYC document and a backup, leaves
 * every folder 0700 and every file 0600; an install an older version left readable is tightened at start, once, with
 * a log line; a folder shared with other things is left as it is (with a warning), and a remote database has no file.
 * The boot-time fixing is tested in this process without touching its umask (bun runs every test file in one
 * process); the umask itself is read from the server process.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { boot, tightenDataModes } from './boot';
import { parseEnv } from './env';
import { createLogger } from './lib/logger';
import { TEST_ORIGIN, type TestContext } from '../test-support/app';
import { submitKyc } from '../test-support/modules/kyc';
import { registerUser } from '../test-support/world';

const ROOT = resolve(import.meta.dir, '../..');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bpay-modes-'));
  made.push(dir);
  return dir;
}

const mode = (path: string) => (statSync(path).mode & 0o7777).toString(8);

/** Every folder and file under `dir` (itself included) with its mode, as `relative/path 700`. */
function modes(dir: string): string[] {
  const out = [`${relative(dir, dir) || '.'} ${mode(dir)}`];
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) out.push(`${entry} ${mode(join(dir, entry))}`);
  return out.sort();
}

/** The entries of modes() that are not private: folders other than 0700, files other than 0600. */
function notPrivate(dir: string): string[] {
  return modes(dir).filter((line) => {
    const [path, m] = line.split(' ');
    return m !== (statSync(join(dir, path!)).isDirectory() ? '700' : '600');
  });
}

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

describe('a server started on a new folder', () => {
  test('runs with umask 077, and every folder it made is 0700 and every file 0600, KYC uploads and a backup included', async () => {
    const top = tempDir();
    const data = join(top, 'data');
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      BPAY_DATABASE_URL: `file:${join(data, 'bpay.db')}`,
      BPAY_UPLOADS_DIR: join(data, 'uploads'),
      // No BPAY_SESSION_SECRET: the server makes its secret file, in the new folder.
      BPAY_SESSION_SECRET_FILE: join(data, 'session-secret'),
      BPAY_WEB_DIST: join(top, 'no-web-build'),
      // The test kit's requests say they come from here (the cross-site check compares Origin with it).
      BPAY_PUBLIC_URL: TEST_ORIGIN,
      BPAY_RATE_LIMITS: 'off',
      BPAY_LOG_LEVEL: 'error',
      BPAY_ADMIN_USERNAME: 'modes-admin',
      BPAY_ADMIN_PASSWORD: 'file modes admin password, throwaway',
      BPAY_ADMIN_TOTP_SECRET: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    };
    const proc = Bun.spawn([process.execPath, '--max-http-header-size=262144', join(ROOT, 'api/src/server.ts')], {
      cwd: ROOT,
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
      env,
    });
    try {
      for (let t = 0; !(await fetch(`${base}/api/subscription/tiers`).then((r) => r.ok, () => false)); t++) {
        if (proc.exitCode !== null || t > 300) throw new Error(`the server did not start: ${await new Response(proc.stderr).text()}`);
        await Bun.sleep(100);
      }
      // Linux says a process's umask in /proc/<pid>/status.
      expect(/^Umask:\s*(\d+)$/m.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))?.[1]).toBe('0077');

      // The test kit's helpers, over HTTP to the server process.
      const remote = {
        app: { handle: (req: Request) => fetch(new Request(req.url.replace(TEST_ORIGIN, base), req)) },
      } as unknown as TestContext;
      const user = await registerUser(remote);
      await submitKyc(remote, user.cookie);
      const backup = Bun.spawn([process.execPath, join(ROOT, 'scripts/db-backup.ts'), join(data, 'backup-1.db')], {
        cwd: ROOT,
        stdin: 'ignore',
        stdout: 'ignore',
        stderr: 'pipe',
        env: { PATH: env.PATH, BPAY_DATABASE_URL: env.BPAY_DATABASE_URL, BPAY_UPLOADS_DIR: env.BPAY_UPLOADS_DIR },
      });
      expect(await backup.exited).toBe(0);

      // While the server runs (its -wal and -shm are there): the walk finds everything the test expects, all private.
      const names = modes(data).map((l) => l.split(' ')[0]!);
      for (const name of ['bpay.db', 'bpay.db-wal', 'bpay.db-shm', 'session-secret', 'uploads', 'backup-1.db', 'backup-1.db.uploads']) {
        expect(names).toContain(name);
      }
      const documents = (dir: string) => names.filter((n) => n.startsWith(`${dir}/`) && /\/[0-9a-f]{32}$/.test(n));
      expect(documents('uploads').length).toBeGreaterThan(0);
      expect(documents('backup-1.db.uploads').length).toBe(documents('uploads').length);
      expect(notPrivate(top)).toEqual([]);
    } finally {
      proc.kill();
      await proc.exited;
    }
    expect(notPrivate(top)).toEqual([]);
  }, 60_000);
});

/** The configuration of an in-process boot on `data` (no workers: nothing runs after the test). */
function envOn(data: string, over: Record<string, string> = {}) {
  return parseEnv({
    NODE_ENV: 'test',
    BPAY_DATABASE_URL: `file:${join(data, 'bpay.db')}`,
    BPAY_UPLOADS_DIR: join(data, 'uploads'),
    BPAY_SESSION_SECRET_FILE: join(data, 'session-secret'),
    BPAY_WEB_DIST: join(data, '..', 'no-web-build'),
    BPAY_PUBLIC_URL: 'http://localhost:3000',
    BPAY_WEBHOOK_WORKER: 'off',
    BPAY_MONEY_SWEEP: 'off',
    BPAY_LOG_LEVEL: 'warn',
    BPAY_ADMIN_USERNAME: 'modes-admin',
    BPAY_ADMIN_PASSWORD: 'file modes admin password, throwaway',
    BPAY_ADMIN_TOTP_SECRET: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    ...over,
  });
}

function recordingLogger() {
  const lines: Array<{ level: string; msg: string; paths?: string[] }> = [];
  return { lines, log: createLogger('debug', (line) => lines.push(JSON.parse(line))) };
}

/** An install as an older version left it: folders 0755, files 0644 (set by chmod, whatever this process's umask). */
function looseInstall(top: string): { data: string; document: string } {
  const data = join(top, 'data');
  const folder = join(data, 'uploads', 'ab');
  mkdirSync(folder, { recursive: true });
  const document = join(folder, `ab${'0'.repeat(30)}`);
  writeFileSync(document, 'a scanned passport');
  // An empty file is an empty SQLite database: the boot migrates it.
  writeFileSync(join(data, 'bpay.db'), '');
  writeFileSync(join(data, 'session-secret'), `${'s'.repeat(64)}\n`);
  for (const dir of [data, join(data, 'uploads'), folder]) chmodSync(dir, 0o755);
  for (const file of [document, join(data, 'bpay.db'), join(data, 'session-secret')]) chmodSync(file, 0o644);
  return { data, document };
}

describe('at start, an install left readable by others', () => {
  test('is tightened with one log line naming what changed; the next start changes nothing and says nothing', async () => {
    const { data, document } = looseInstall(tempDir());
    const first = recordingLogger();
    const booted = await boot(envOn(data), first.log);
    // Open: the database's -wal and -shm exist now (SQLite made them with the loose database file's mode).
    expect(existsSync(join(data, 'bpay.db-wal'))).toBe(true);
    expect(notPrivate(data)).toEqual([]);
    booted.stop();
    const said = first.lines.filter((l) => l.msg === 'file modes tightened');
    expect(said.length).toBe(1);
    expect(said[0]!.level).toBe('warn');
    for (const path of [data, join(data, 'bpay.db'), join(data, 'session-secret'), join(data, 'uploads'), document]) {
      expect(said[0]!.paths).toContain(path);
    }
    expect(readFileSync(document, 'utf8')).toBe('a scanned passport');

    const second = recordingLogger();
    const again = await boot(envOn(data), second.log);
    expect(notPrivate(data)).toEqual([]);
    again.stop();
    expect(second.lines.filter((l) => l.msg === 'file modes tightened')).toEqual([]);
    expect(second.lines.filter((l) => l.level === 'warn' && /readable by other users/.test(l.msg))).toEqual([]);
  }, 30_000);

  test("a folder that also holds others' readable files keeps its mode (with a warning); bpay's own files in it are tightened", () => {
    const { data } = looseInstall(tempDir());
    writeFileSync(join(data, 'notes.txt'), 'not bpay\'s');
    chmodSync(join(data, 'notes.txt'), 0o644);
    const { lines, log } = recordingLogger();
    tightenDataModes(envOn(data), log);
    expect(mode(data)).toBe('755');
    expect(mode(join(data, 'notes.txt'))).toBe('644');
    expect(mode(join(data, 'bpay.db'))).toBe('600');
    expect(mode(join(data, 'uploads'))).toBe('700');
    expect(lines.find((l) => /readable by other users/.test(l.msg))?.paths).toEqual([data]);
  });

  test('a remote or in-memory database has no file to fix: the uploads tree alone is tightened', () => {
    for (const url of ['libsql://bpay-example.turso.io', 'file::memory:', 'http://127.0.0.1:8080']) {
      const { data, document } = looseInstall(tempDir());
      const { lines, log } = recordingLogger();
      tightenDataModes({ databaseUrl: url, uploadsDir: join(data, 'uploads') }, log);
      expect(mode(join(data, 'bpay.db'))).toBe('644');
      expect(mode(document)).toBe('600');
      expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    }
  });
});
