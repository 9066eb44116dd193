import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

/**
 * The file of the web build a URL path names, or null (then the SPA's index.html answers). Never a file outside
 * `root`: the path is decoded once, and what it resolves to must be inside the folder, not merely start with its
 * name (a sibling folder such as `web-private` or the database beside the build would). Encoded slashes and
 * backslashes, NUL and malformed escapes name nothing.
 */
export function resolveStaticFile(root: string, urlPath: string): string | null {
  if (/%(2f|5c|00)/i.test(urlPath)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const base = resolve(root);
  const file = resolve(join(base, decoded));
  const rel = relative(base, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return existsSync(file) && statSync(file).isFile() ? file : null;
}
