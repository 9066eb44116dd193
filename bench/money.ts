/*
 * How fast the money paths are, in-process on a temporary embedded database (the default deployment):
 *   1. POST /api/virtual-cards, a 60/40 split over two cards (verify plan, hold both shares, capture, issue, ledger);
 *   2. the same, 8 requests at a time (writes are serialised per database file, so this shows the queueing);
 *   3. POST /api/v1/payment_intents then …/confirm with a fresh sandbox bcard (the merchant path).
 * Run: bun bench/money.ts [iterations=200]. Prints p50/p95/p99 latency and throughput per scenario.
 * No targets are asserted: this is a measurement to compare before and after a change, on the same machine.
 * Over HTTP against a real server process, with references and the issue 14 targets: bench/throughput.ts.
 */
import { call, makeTestApp } from '../api/test-support/app';
import { addCard, CARDS_OK, createMerchant, makePremium, registerUser } from '../api/test-support/world';
import { resetRateWindows } from '../api/src/modules/merchants/usage';

const N = Number(process.argv[2] ?? 200);

function report(name: string, samples: number[], wallMs: number) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(1);
  console.log(
    `${name.padEnd(44)} n=${s.length}  p50 ${at(50)} ms  p95 ${at(95)} ms  p99 ${at(99)} ms  ` +
      `${((s.length / wallMs) * 1000).toFixed(0)}/s`,
  );
}

async function timed(work: () => Promise<{ status: number; text: string }>, ok: number, into: number[]) {
  const t0 = performance.now();
  const res = await work();
  into.push(performance.now() - t0);
  if (res.status !== ok) throw new Error(`expected ${ok}, got ${res.status}: ${res.text}`);
}

const ctx = await makeTestApp();
try {
  const user = await registerUser(ctx);
  await makePremium(ctx, user.user.id);
  const a = await addCard(ctx, user.cookie, CARDS_OK[0]);
  const b = await addCard(ctx, user.cookie, CARDS_OK[1]);
  const bcard = (i: number) => () =>
    call(ctx, '/api/virtual-cards', {
      method: 'POST',
      cookie: user.cookie,
      headers: { 'idempotency-key': `bench-${i}-${crypto.randomUUID()}` },
      body: {
        name: `Bench ${i}`,
        balance: '10.00',
        fundingSources: [
          { fundingSourceId: a.id, percentage: 60 },
          { fundingSourceId: b.id, percentage: 40 },
        ],
      },
    });

  // Warm up the JIT and the statement caches.
  for (let i = 0; i < 10; i++) await bcard(-i)();

  let samples: number[] = [];
  let t0 = performance.now();
  for (let i = 0; i < N; i++) await timed(bcard(i), 201, samples);
  report('split bcard, sequential', samples, performance.now() - t0);

  samples = [];
  t0 = performance.now();
  for (let i = 0; i < N; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, N - i) }, (_, j) => timed(bcard(N + i + j), 201, samples)));
  }
  report('split bcard, 8 concurrent', samples, performance.now() - t0);

  const merchant = await createMerchant(ctx, user.cookie, 'sandbox');
  const v1 = (path: string, body: unknown) => {
    resetRateWindows(); // the per-second limit is not what is measured here
    return call(ctx, `/api/v1${path}`, {
      method: 'POST',
      body,
      origin: null,
      headers: { authorization: `Bearer ${merchant.secretKey}` },
    });
  };
  samples = [];
  t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const card = await v1('/test_helpers/bcards', { amount: 2500, currency: 'usd' });
    if (card.status !== 200) throw new Error(`test bcard: ${card.status} ${card.text}`);
    const pi = await v1('/payment_intents', { amount: 2500, currency: 'usd' });
    await timed(() => v1(`/payment_intents/${pi.body.id}/confirm`, { payment_method: card.body.id }), 200, samples);
  }
  report('payment intent confirm with a bcard', samples, performance.now() - t0);
} finally {
  ctx.close();
}
