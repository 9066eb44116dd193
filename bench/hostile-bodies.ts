/*
 * What a hostile body costs the server, against a normal request measured in the same run (issue 11). In-process on
 * a temporary database; each figure is the median of per-run medians over RUNS runs, with the spread (min–max of the
 * run medians) and the ratio to the reference: a small login body that fails validation. KYC uploads (issue 27) are
 * measured the same way against a normal upload (the wizard's 7 fields and one small PNG).
 * Run: bun bench/hostile-bodies.ts [runs=5] [requests per run=200]. No targets are asserted.
 */
import { setPeerAddress } from '../api/src/lib/request-context';
import { makeTestApp, TEST_ORIGIN } from '../api/test-support/app';
import { kycForm } from '../api/test-support/modules/kyc';
import { registerUser } from '../api/test-support/world';

const RUNS = Number(process.argv[2] ?? 5);
const N = Number(process.argv[3] ?? 200);

const ctx = await makeTestApp();
const send = (body: string, path = '/api/auth/login') => {
  const req = new Request(`${TEST_ORIGIN}${path}`, { method: 'POST', headers: { origin: TEST_ORIGIN, 'content-type': 'application/json' }, body });
  setPeerAddress(req, '198.51.100.1');
  return ctx.app.handle(req);
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const bodies: Record<string, string> = {
  'normal login body (reference)': '{"email":"a"}',
  'deep arrays, 20 KB (400 body_too_complex)': '['.repeat(10_000) + ']'.repeat(10_000),
  'deep arrays, 60 KB as reported (413)': '['.repeat(30_000) + ']'.repeat(30_000),
  'wide object at the limits, 31 KB (400 validation)': JSON.stringify(Object.fromEntries(Array.from({ length: 999 }, (_, i) => [`k${i}`, [1, 2, 3, 4, 5, 6, 7, 8]]))),
};

async function oneRun(body: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const res = await send(body);
    await res.arrayBuffer();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** A GET queued behind 50 requests of `body` at once. */
async function behind(body: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const others = Array.from({ length: 50 }, () => send(body));
    const t0 = performance.now();
    await (await ctx.app.handle(new Request(`${TEST_ORIGIN}/api/subscription/tiers`))).arrayBuffer();
    times.push(performance.now() - t0);
    await Promise.all(others);
  }
  return median(times);
}

// KYC uploads, from one signed-in sender: after 5 are stored the normal ones are parsed and refused 409 (pending limit).
const sender = await registerUser(ctx);
const other = await registerUser(ctx);
const KYC_BOUNDARY = 'hostileboundary';
const encode = (s: string) => new TextEncoder().encode(s);
const normalKyc = new Response(kycForm());
const uploads: Record<string, { body: Uint8Array<ArrayBuffer>; type: string }> = {
  'normal KYC upload (reference 3)': { type: normalKyc.headers.get('content-type')!, body: new Uint8Array(await normalKyc.arrayBuffer()) },
  'KYC, 10,000 one-byte fields, 0.7 MB (413)': {
    type: `multipart/form-data; boundary=${KYC_BOUNDARY}`,
    body: encode(Array.from({ length: 10_000 }, (_, i) => `--${KYC_BOUNDARY}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nx\r\n`).join('') + `--${KYC_BOUNDARY}--\r\n`),
  },
  'KYC, one part with 10,000 header lines (413)': {
    type: `multipart/form-data; boundary=${KYC_BOUNDARY}`,
    body: encode(`--${KYC_BOUNDARY}\r\nContent-Disposition: form-data; name="firstName"\r\n${'X-Pad: y\r\n'.repeat(10_000)}\r\nAda\r\n--${KYC_BOUNDARY}--\r\n`),
  },
};
const upload = ({ body, type }: { body: Uint8Array<ArrayBuffer>; type: string }) => {
  const req = new Request(`${TEST_ORIGIN}/api/kyc/submit`, { method: 'POST', headers: { origin: TEST_ORIGIN, cookie: sender.cookie, 'content-type': type }, body });
  setPeerAddress(req, '198.51.100.1');
  return ctx.app.handle(req);
};

async function oneUploadRun(u: { body: Uint8Array<ArrayBuffer>; type: string }): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < N / 4; i++) {
    const t0 = performance.now();
    await (await upload(u)).arrayBuffer();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** Another client's GET /api/auth/user queued behind 20 uploads at once. */
async function userBehind(u: { body: Uint8Array<ArrayBuffer>; type: string }): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const others = Array.from({ length: 20 }, () => upload(u));
    const req = new Request(`${TEST_ORIGIN}/api/auth/user`, { headers: { cookie: other.cookie } });
    setPeerAddress(req, '198.51.100.2');
    const t0 = performance.now();
    await (await ctx.app.handle(req)).arrayBuffer();
    times.push(performance.now() - t0);
    await Promise.all(others);
  }
  return median(times);
}

try {
  for (const b of Object.values(bodies)) await oneRun(b); // warm up
  for (const u of Object.values(uploads)) await oneUploadRun(u);
  const rows: Array<[string, number[]]> = [];
  for (const [name, body] of Object.entries(bodies)) {
    const meds: number[] = [];
    for (let r = 0; r < RUNS; r++) meds.push(await oneRun(body));
    rows.push([name, meds]);
  }
  const behindNormal: number[] = [];
  const behindDeep: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    behindNormal.push(await behind(bodies['normal login body (reference)']!));
    behindDeep.push(await behind(bodies['deep arrays, 20 KB (400 body_too_complex)']!));
  }
  const ref = median(rows[0]![1]);
  const line = (name: string, meds: number[], reference: number) =>
    `| ${name.padEnd(52)} | ${median(meds).toFixed(3).padStart(7)} ms | ${Math.min(...meds).toFixed(3)}–${Math.max(...meds).toFixed(3)} | ${(median(meds) / reference).toFixed(1).padStart(5)}× |`;
  console.log(`| request (median of ${RUNS} runs × ${N}) | median | spread | ratio |`);
  console.log('|---|---|---|---|');
  for (const [name, meds] of rows) console.log(line(name, meds, ref));
  const refBehind = median(behindNormal);
  console.log(line('GET tiers behind 50 normal bodies (reference 2)', behindNormal, refBehind));
  console.log(line('GET tiers behind 50 deep 20 KB bodies', behindDeep, refBehind));

  const uploadRows: Array<[string, number[]]> = [];
  for (const [name, u] of Object.entries(uploads)) {
    const meds: number[] = [];
    for (let r = 0; r < RUNS; r++) meds.push(await oneUploadRun(u));
    uploadRows.push([name, meds]);
  }
  const behindUploads: Array<[string, number[]]> = Object.keys(uploads).map((name) => [name, []]);
  for (let r = 0; r < RUNS; r++) {
    for (const [name, meds] of behindUploads) meds.push(await userBehind(uploads[name]!));
  }
  const refUpload = median(uploadRows[0]![1]);
  for (const [name, meds] of uploadRows) console.log(line(name, meds, refUpload));
  const refUserBehind = median(behindUploads[0]![1]);
  for (const [name, meds] of behindUploads) console.log(line(`GET user behind 20 × ${name.replace(' upload (reference 3)', ' uploads (reference 4)')}`, meds, refUserBehind));
} finally {
  ctx.close();
}
