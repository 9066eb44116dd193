import type { Command } from 'commander';
import { parseIntFlag } from '../output';

export interface ListFlags {
  limit?: string;
  all?: boolean;
}

export const listOptions = (cmd: Command) =>
  cmd.option('--limit <n>', 'How many to show, newest first (default 10)').option('--all', 'Every one, fetched page by page');

/**
 * Takes `--limit` items (10 by default) or, with `--all`, every item, from the SDK's auto-paginating list. The
 * page size asked for is the number wanted (at most 100, the API's maximum), so a plain `list` costs one request.
 * `more` says whether items were left.
 */
export async function collectList<T>(flags: ListFlags, open: (pageSize: number) => AsyncIterable<T>): Promise<{ items: T[]; more: boolean }> {
  const want = flags.all ? Infinity : flags.limit !== undefined ? parseIntFlag(flags.limit, '--limit', 1, 10_000) : 10;
  const items: T[] = [];
  if (want === 0) return { items, more: false };
  for await (const item of open(Math.min(want, 100))) {
    if (items.length >= want) return { items, more: true };
    items.push(item);
  }
  return { items, more: false };
}
