import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerUser } from '../../api/test-support/world';
import { ADMIN_PASSWORD, adminCall, adminToken, codeNow, makeAdmin } from '../../api/test-support/modules/admin';
import { newMerchantAccount, startLiveServer, submitKyc, type LiveServer } from '../test-support/live-server';

/*
 * The README's examples are the files in sdk/examples/, embedded verbatim: each ```ts block of sdk/README.md is
 * preceded by `<!-- example: examples/<name>.ts -->` and must equal that file, and every example file must be in
 * the README. The files are type-checked with the rest of the repository (tsc) and run here, each as its own
 * `bun` process against the live test server, configured through the environment as a merchant's app would be.
 */

const sdkDir = join(import.meta.dir, '..');
const readme = readFileSync(join(sdkDir, 'README.md'), 'utf8');
const exampleFiles = readdirSync(join(sdkDir, 'examples')).filter((f) => f.endsWith('.ts')).sort();

let live: LiveServer;
let env: Record<string, string>;

beforeAll(async () => {
  live = await startLiveServer();
  await makeAdmin(live.ctx);
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    BPAY_BASE_URL: live.baseUrl,
    BPAY_SECRET_KEY: (await newMerchantAccount(live.ctx)).secretKey,
    BPAY_WEBHOOK_SECRET: 'whsec_readme_example',
    BPAY_ADMIN_USERNAME: 'root',
    BPAY_ADMIN_PASSWORD: ADMIN_PASSWORD,
  };
});
afterAll(() => live.close());

async function run(file: string, extraEnv: Record<string, string> = {}): Promise<string> {
  const proc = Bun.spawn([process.execPath, join(sdkDir, 'examples', file)], {
    cwd: sdkDir,
    env: { ...env, ...extraEnv },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${file} exited with ${code}\n${stdout}\n${stderr}`);
  return stdout;
}

describe('sdk/README.md', () => {
  test('every ```ts block is an example file, verbatim, and every example file is in the README', () => {
    const blocks = [...readme.matchAll(/(?:<!-- example: (examples\/[\w-]+\.ts) -->\n)?```ts\n([\s\S]*?)```/g)];
    expect(blocks.length).toBeGreaterThan(0);
    for (const [, marker, code] of blocks) {
      expect(marker, `a \`\`\`ts block without an example marker:\n${code!.slice(0, 200)}`).toBeDefined();
      expect(code).toBe(readFileSync(join(sdkDir, marker!), 'utf8'));
    }
    expect(blocks.map((b) => b[1]!.slice('examples/'.length)).sort()).toEqual(exampleFiles);
  });

  // What each example prints that shows it did its job.
  const expectations: Record<string, RegExp[]> = {
    'quickstart.ts': [/^succeeded$/m, /^2500$/m],
    'manual-capture.ts': [/^requires_capture$/m, /^4000$/m, /^canceled$/m],
    'refunds.ts': [/^succeeded 1000$/m, /^2000$/m, /^refunded 3000 of 3000$/m, /^re_\w+ 1000 requested_by_customer$/m],
    'pagination.ts': [/^received \d+ cents$/m],
    'webhook-endpoints.ts': [/^whsec_/m, /^disabled$/m],
    'events.ts': [/^payment_intent\.created pi_/m],
    'stream.ts': [/^evt_\w+ payment_intent\.created$/m],
    'errors.ts': [/^declined: card_declined \/ insufficient_funds$/m, /^402 card_error req_/m, /^pi_/m],
    'webhook-handler.ts': [/^fulfil order for pi_test_1$/m, /^200 400$/m],
  };

  for (const file of exampleFiles.filter((f) => f !== 'admin.ts')) {
    test(`examples/${file} runs against the live server`, async () => {
      const out = await run(file);
      for (const re of expectations[file] ?? []) expect(out).toMatch(re);
    }, 20_000);
  }

  test('examples/admin.ts signs in with a TOTP code and approves the pending verification', async () => {
    const user = await registerUser(live.ctx);
    const id = await submitKyc(live.ctx, user.cookie);
    live.ctx.clock.advance(30_000);
    const out = await run('admin.ts', { BPAY_ADMIN_CODE: codeNow(live.ctx) });
    expect(out).toMatch(/^root /m);
    const token = await adminToken(live.ctx);
    const after = await adminCall(live.ctx, token, `/api/admin/kyc/verifications/${id}`);
    expect(after.body).toMatchObject({ status: 'verified', adminNotes: 'Document checked' });
  }, 20_000);
});
