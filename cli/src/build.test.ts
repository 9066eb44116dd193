/* `bun run build:cli` makes one executable that runs without the repository. */
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, CLI_BUILD_FLAGS } from './build-support';

const root = join(import.meta.dir, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'bpay-cli-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('build:cli compiles cli/src/index.ts into a single executable that answers --help and usage errors', async () => {
  const pkg = (await Bun.file(join(root, 'package.json')).json()) as { scripts: Record<string, string> };
  // Minified and with bytecode (issue 28 §4: --help starts in about half the time); bytecode with the top-level
  // await of index.ts needs the ESM format.
  expect(pkg.scripts['build:cli']).toBe(`bun build ${CLI_BUILD_FLAGS.join(' ')} cli/src/index.ts --outfile dist/bpay`);

  // The same command, into a temporary folder instead of dist/.
  const out = join(dir, 'bpay');
  const build = buildCli(out);
  expect(build.exitCode).toBe(0);
  expect(statSync(out).mode & 0o111).not.toBe(0);

  // Run from elsewhere with an empty PATH: everything it needs is inside.
  const home = join(dir, 'home');
  const env = { PATH: home, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
  const help = Bun.spawnSync([out, '--help'], { cwd: dir, env, stdout: 'pipe', stderr: 'pipe' });
  expect(help.exitCode).toBe(0);
  expect(help.stdout.toString()).toContain('--api-key  >  BPAY_API_KEY');
  const noKey = Bun.spawnSync([out, 'usage'], { cwd: dir, env, stdout: 'pipe', stderr: 'pipe' });
  expect(noKey.exitCode).toBe(2);
  expect(noKey.stderr.toString()).toContain('No API key');
}, 60_000);
