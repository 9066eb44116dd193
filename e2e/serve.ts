// Starts the real server for the browser tests on a fresh database.
import { rmSync } from 'node:fs';

rmSync('./data/e2e', { recursive: true, force: true });
await import('../api/src/server.ts');
