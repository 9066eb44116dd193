// Starts the real server for the browser tests on a fresh database, keeping its log in data/e2e/server.log so
// scripts/scan-card-data.ts can check, after the run, that no card number or CVV reached the disk or the log.
import { appendFileSync, mkdirSync, rmSync } from 'node:fs';

const dir = process.env.E2E_DATA_DIR ?? './data/e2e';
rmSync(dir, { recursive: true, force: true });
// Private, as the server's own data folder is (server.ts sets umask 077 only once imported below).
mkdirSync(dir, { recursive: true, mode: 0o700 });
for (const method of ['log', 'error', 'warn', 'info'] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => {
    appendFileSync(`${dir}/server.log`, `${args.map(String).join(' ')}\n`);
    original(...args);
  };
}
await import('../api/src/server.ts');
