import { expect } from 'bun:test';
import type { Client } from '@libsql/client';
import { join, resolve } from 'node:path';

/*
 * Real bpay server processes for the tests that run several on one database file (api/src/two-processes*.test.ts):
 * each started with `bun api/src/server.ts` on its own port (or a shared one with BPAY_REUSE_PORT=1), its output kept.
 */

const root = resolve(import.meta.dir, '../..');

export function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

export interface Server {
  proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
  base: string;
  /** What the process wrote to stdout and stderr so far (its JSON log lines). */
  output: string[];
}

/** Starts `bun api/src/server.ts` on a free port, on the database file `dbFile`, keeping what it prints. */
export function startServer(dbFile: string, over: Record<string, string> = {}, port = freePort()): Server {
  const base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, '--max-http-header-size=262144', join(root, 'api/src/server.ts')], {
    cwd: root,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      BPAY_DATABASE_URL: `file:${dbFile}`,
      BPAY_UPLOADS_DIR: join(dbFile, '..', 'uploads'),
      BPAY_WEB_DIST: join(dbFile, '..', 'no-web-build'),
      BPAY_SESSION_SECRET: 'two-processes-secret-two-processes-secret',
      BPAY_PUBLIC_URL: base,
      BPAY_RATE_LIMITS: 'off',
      BPAY_LOG_LEVEL: 'error',
      BPAY_ADMIN_USERNAME: 'two-proc-admin',
      BPAY_ADMIN_PASSWORD: 'two processes admin password, throwaway',
      BPAY_ADMIN_TOTP_SECRET: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
      ...over,
    },
  });
  return { proc, base, output: keepOutput(proc) };
}

/**
 * What a child process prints to stdout and stderr, kept as it comes. Read continuously: a pipe nobody empties would
 * stall the child once its buffer fills.
 */
export function keepOutput(proc: { stdout: ReadableStream<Uint8Array>; stderr: ReadableStream<Uint8Array> }): string[] {
  const output: string[] = [];
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      const reader = stream.getReader();
      const decoder = new TextDecoder();
      for (let r = await reader.read(); !r.done; r = await reader.read()) output.push(decoder.decode(r.value));
    })();
  }
  return output;
}

/** Resolves once the server answers: boot (migrations, first admin, the start-up money sweep) is then over. */
export async function answering(s: Server, name: string): Promise<void> {
  for (let t = 0; ; t++) {
    if (s.proc.exitCode !== null) throw new Error(`${name} exited: ${s.output.join('')}`);
    if (await fetch(`${s.base}/api/subscription/tiers`).then((r) => r.ok, () => false)) return;
    if (t > 300) throw new Error(`${name} did not answer`);
    await Bun.sleep(100);
  }
}

export async function stopServers(list: Array<{ kill(): void; exited: Promise<number> }>): Promise<void> {
  for (const s of list) s.kill();
  await Promise.all(list.map((s) => s.exited));
}

export const post = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base, ...headers }, body: JSON.stringify(body) });
/** Registers through `base` and moves the user to premium (1.9 % fee, no monthly limits), as makePremium does. */
export async function premiumUser(db: Client, base: string, email: string): Promise<string> {
  const reg = await post(base, '/api/auth/register', { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' });
  expect(reg.status).toBe(201);
  const cookie = /^([^=;]+=[^;]+)/.exec(reg.headers.get('set-cookie') ?? '')![1]!;
  await db.execute({
    sql: "UPDATE user_subscriptions SET tier_id = 'tier_premium' WHERE status = 'active' AND user_id = (SELECT id FROM users WHERE email = ?)",
    args: [email],
  });
  return cookie;
}
