import { parseArgs } from 'node:util';

/**
 * The single <file> argument of db:backup and db:restore. Prints `usage` and exits 0 for --help, or 2 (wrong usage)
 * for anything but exactly one file.
 */
export function oneFileArgument(usage: string, argv: string[] = Bun.argv.slice(2)): string {
  let positionals: string[];
  let help = false;
  try {
    const parsed = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    positionals = parsed.positionals;
    help = parsed.values.help ?? false;
  } catch (e) {
    console.error(`${(e as Error).message}\n${usage}`);
    process.exit(2);
  }
  if (help) {
    console.log(usage);
    process.exit(0);
  }
  const [file] = positionals;
  if (positionals.length !== 1 || !file) {
    console.error(usage);
    process.exit(2);
  }
  return file;
}
