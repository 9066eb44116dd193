/*
 * How `bun run build:cli` compiles the CLI (package.json's script says the same; build.test.ts checks they agree),
 * for the tests that build it into a folder of their own and run the executable: build.test.ts and cli.test.ts.
 */
import { join } from 'node:path';

export const CLI_BUILD_FLAGS = ['--compile', '--minify', '--bytecode', '--format=esm'] as const;

const root = join(import.meta.dir, '..', '..');

/** Compiles cli/src/index.ts into the executable `out`. */
export function buildCli(out: string) {
  return Bun.spawnSync(['bun', 'build', ...CLI_BUILD_FLAGS, 'cli/src/index.ts', '--outfile', out], { cwd: root, stdout: 'pipe', stderr: 'pipe' });
}
