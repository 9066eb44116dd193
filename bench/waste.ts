/*
 * Per-request work that buys nothing (issue 29 §4), measured: what each item costs per request, beside the CPU a whole
 * request costs in the same run (bench:cpu's intent create through app.handle), so the table says what removing it
 * could save at most. Figures noise cannot move much: CPU microseconds over many calls (median of --runs), and counts.
 *
 *   - the Idempotency-Key's field digests: one HMAC per top-level body field (intent create, 3-source bcard);
 *   - the secret key's HMAC (once per merchant request);
 *   - a log line the level drops (createLogger checks the level before building anything);
 *   - schemas compiled at request time: TypeBox compilations (Elysia's validators) counted over 2,000 requests after
 *     warm-up. 0 means every validator and schema is built once, at start, not per request.
 *
 * Run: bun bench/waste.ts [--runs=5] [--requests=2000]
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { cpus, loadavg } from 'node:os';
import { hmacHex } from '../api/src/lib/crypto';
import { createLogger } from '../api/src/lib/logger';
import { digests } from '../api/src/plugins/idempotency';
import { makeTestApp, merchantCall } from '../api/test-support/app';
import { createMerchant, registerUser } from '../api/test-support/world';

const arg = (name: string, fallback: number) => Math.max(1, Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback));
const RUNS = arg('runs', 5);
const REQUESTS = arg('requests', 2000);
const load = loadavg()[0]!.toFixed(2);

let compiled = 0;
const compile = TypeCompiler.Compile.bind(TypeCompiler);
(TypeCompiler as { Compile: typeof TypeCompiler.Compile }).Compile = ((...a: Parameters<typeof compile>) => {
  compiled++;
  return compile(...a);
}) as typeof TypeCompiler.Compile;

/** CPU microseconds per call of `fn`, over `n` calls. */
function cpuPerCall(n: number, fn: () => unknown): number {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}
async function cpuPerRequest(n: number, fn: () => Promise<unknown>): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const ctx = await makeTestApp({ rateLimits: false });
const owner = await registerUser(ctx);
const merchant = await createMerchant(ctx, owner.cookie, 'sandbox');
const intentBody = { amount: 2000, currency: 'usd', description: 'Order 42', metadata: { order: '42' } };
const bcardBody = {
  name: 'Shoes',
  balance: '50.00',
  fundingSources: [
    { fundingSourceId: 'fs_a', percentage: 40 },
    { fundingSourceId: 'fs_b', percentage: 30 },
    { fundingSourceId: 'fs_c', percentage: 30 },
  ],
};
const secret = 'x'.repeat(64);
const quiet = createLogger('warn', () => undefined);
const createIntent = () => merchantCall(ctx, merchant.secretKey, '/payment_intents', { method: 'POST', body: intentBody, headers: { 'idempotency-key': crypto.randomUUID() } });

for (let i = 0; i < 300; i++) await createIntent();
const rows: Record<string, number[]> = { request: [], intentDigests: [], bcardDigests: [], keyHmac: [], droppedLog: [] };
const compiledBefore = compiled;
for (let run = 0; run < RUNS; run++) {
  rows.request!.push(await cpuPerRequest(Math.ceil(REQUESTS / RUNS), createIntent));
  rows.intentDigests!.push(cpuPerCall(20_000, () => digests(secret, intentBody)));
  rows.bcardDigests!.push(cpuPerCall(20_000, () => digests(secret, bcardBody)));
  rows.keyHmac!.push(cpuPerCall(20_000, () => hmacHex(secret, 'sk_test_0123456789abcdefghijklmnopqrstuv')));
  rows.droppedLog!.push(cpuPerCall(200_000, () => quiet.info('payment_intent.created', { id: 'pi_1', amount: 2000 })));
}
const compiledDuring = compiled - compiledBefore;
ctx.close();

const request = median(rows.request!);
const line = (name: string, us: number, per: string) =>
  `| ${name.padEnd(44)} | ${us.toFixed(3).padStart(9)} | ${((us / request) * 100).toFixed(2).padStart(6)} % | ${per} |`;
console.log(`bench:waste ${new Date().toISOString()} · ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'} · load ${load} at start · Bun ${Bun.version} · median of ${RUNS} runs\n`);
console.log('| item | CPU µs | of a request | what |');
console.log('|---|---:|---:|---|');
console.log(line('POST /v1/payment_intents (whole, app.handle)', request, 'the reference: one intent create'));
console.log(line('Idempotency-Key digests, intent body', median(rows.intentDigests!), `${Object.keys(intentBody).length} HMACs, once per keyed request`));
console.log(line('Idempotency-Key digests, 3-source bcard body', median(rows.bcardDigests!), `${Object.keys(bcardBody).length} HMACs`));
console.log(line('secret key HMAC', median(rows.keyHmac!), 'once per merchant request'));
console.log(line('a log line the level drops', median(rows.droppedLog!), 'nothing is built'));
console.log(`\nSchemas compiled while serving ${rows.request!.length * Math.ceil(REQUESTS / RUNS)} requests after warm-up: ${compiledDuring} (every validator is built at start).`);
