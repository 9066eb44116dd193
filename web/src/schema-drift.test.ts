import { expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The web app's API types are the server's: it reads every request and answer shape from the schema generated from
 * the routes (sdk/src/schema.d.ts), so a field the server renames must break the web's typecheck, never pass it
 * silently. This test renames answer fields in a copy of the schema, typechecks web/src against the copy, and expects
 * an error naming each renamed field in the feature that reads it.
 */

const root = join(import.meta.dir, '../..');

/** A field of an answer, and the web file that must stop compiling when the server renames it. */
const RENAMED: { field: string; readIn: string }[] = [
  { field: 'currentPeriodEnd', readIn: 'web/src/features/plans/' },
  { field: 'spendingLimit', readIn: 'web/src/features/bcards/' },
  { field: 'virtualCardName', readIn: 'web/src/features/dashboard/' },
  { field: 'businessName', readIn: 'web/src/features/checkout/' },
  { field: 'clientSecret', readIn: 'web/src/features/checkout-demos/' },
  { field: 'totalFees', readIn: 'web/src/features/payment-demo/' },
  { field: 'feesReturned', readIn: 'web/src/features/analytics/' },
  { field: 'riskScore', readIn: 'web/src/features/admin/' },
  { field: 'enabled_events', readIn: 'web/src/features/merchants/' },
  { field: 'twoFactorEnabled', readIn: 'web/src/features/settings/' },
  { field: 'last4', readIn: 'web/src/features/funding-sources/' },
  { field: 'monthlyPrice', readIn: 'web/src/features/landing/' },
  { field: 'verificationType', readIn: 'web/src/features/kyc/' },
];

test('renaming an answer field in the server breaks the web typecheck where the field is read', () => {
  // Inside the checkout, so the copied tsconfig finds the workspace's type packages (bun-types) as the real one does.
  const cache = join(root, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'schema-drift-'));
  try {
    let schema = readFileSync(join(root, 'sdk/src/schema.d.ts'), 'utf8');
    for (const { field } of RENAMED) {
      const declared = new RegExp(`^(\\s+)${field}(\\??):`, 'gm');
      expect({ field, declared: declared.test(schema) }).toEqual({ field, declared: true });
      schema = schema.replace(declared, `$1${field}Renamed$2:`);
    }
    writeFileSync(join(dir, 'schema.d.ts'), schema);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(root, 'tsconfig.json'),
        compilerOptions: { paths: { '@bpay/sdk/schema': [join(dir, 'schema.d.ts')] }, noEmit: true },
        include: [join(root, 'web/src')],
        exclude: [join(root, 'web/src/**/*.test.ts'), join(root, 'web/src/**/*.test.tsx')],
      }),
    );
    const tsc = Bun.spawnSync([process.execPath, join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
      cwd: root,
      env: { ...process.env, BUN_BE_BUN: '1' },
    });
    const out = tsc.stdout.toString() + tsc.stderr.toString();
    expect(tsc.exitCode).not.toBe(0);
    for (const { field, readIn } of RENAMED) {
      const hit = out.split('\n').some((line) => line.startsWith(readIn) && line.includes(`'${field}'`));
      expect({ field, readIn, broke: hit }).toEqual({ field, readIn, broke: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
