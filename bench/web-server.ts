import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dir, '..');

/**
 * The real server (api/src/server.ts, production mode) on `port`, serving the web build in `dist` from a fresh
 * database in `dataDir`, for the browser benches (bench:web, bench:tabs). Resolves once it answers; throws if it exits
 * or does not answer within 60 s.
 */
export async function startWebServer(o: { port: number; dist: string; dataDir: string; env?: Record<string, string> }): Promise<ChildProcess> {
  const base = `http://localhost:${o.port}`;
  const server = spawn('bun', ['--max-http-header-size=262144', 'api/src/server.ts'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(o.port),
      BPAY_DATABASE_URL: `file:${o.dataDir}/bpay.db`,
      BPAY_UPLOADS_DIR: `${o.dataDir}/uploads`,
      BPAY_WEB_DIST: o.dist,
      BPAY_SESSION_SECRET: 'bench-session-secret-bench-session-secret',
      BPAY_PUBLIC_URL: base,
      BPAY_LOG_LEVEL: 'warn',
      ...o.env,
    },
  });
  for (let i = 0; i < 300; i++) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
    const ok = await fetch(`${base}/api/subscription/tiers`).then((r) => r.ok, () => false);
    if (ok) return server;
    await Bun.sleep(200);
  }
  server.kill();
  throw new Error('the server did not answer within 60 s');
}
