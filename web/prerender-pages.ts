import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRERENDERED_ATTRIBUTE } from './src/app/prerendered';

/*
 * Writes the prerendered public pages into the build (issue 13): for each page of PRERENDERED_PAGES, the built
 * index.html with the page's markup inside #root, its language and direction on <html>, and its own <title>.
 * The server sends `pages/<name>.html` for the page's route (api/src/static-files.ts); index.html stays the empty
 * shell every other route gets.
 */

/** The file of a prerendered page in the build: `/` is pages/index.html, `/ar` pages/ar.html. */
export function pageFileName(path: string): string {
  return path === '/' ? 'index.html' : `${path.slice(1)}.html`;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function replaceOnce(html: string, find: RegExp | string, by: string, what: string): string {
  const found = typeof find === 'string' ? html.includes(find) : find.test(html);
  if (!found) throw new Error(`prerender: the built index.html has no ${what}`);
  return html.replace(find, () => by);
}

/** Renders every page into `outdir/pages/`; returns the files written. Run after the bundle is in `outdir`. */
export async function prerenderPages(outdir: string): Promise<string[]> {
  const { PRERENDERED_PAGES, renderPage } = await import('./src/app/prerender');
  const shell = readFileSync(join(outdir, 'index.html'), 'utf8');
  mkdirSync(join(outdir, 'pages'), { recursive: true });
  const written: string[] = [];
  for (const path of PRERENDERED_PAGES) {
    const page = await renderPage(path);
    let html = replaceOnce(shell, /<html lang="en" dir="ltr">/, `<html lang="${page.lang}" dir="${page.lang === 'ar' ? 'rtl' : 'ltr'}">`, '<html lang="en" dir="ltr">');
    if (page.title) html = replaceOnce(html, /<title>[^<]*<\/title>/, `<title>${escapeHtml(page.title)}</title>`, '<title>');
    html = replaceOnce(html, '<div id="root"></div>', `<div id="root" ${PRERENDERED_ATTRIBUTE}="${path}">${page.html}</div>`, 'empty #root');
    const file = join(outdir, 'pages', pageFileName(path));
    writeFileSync(file, html);
    written.push(file);
  }
  return written;
}

if (import.meta.main) {
  const outdir = process.argv[2];
  if (!outdir) throw new Error('usage: bun web/prerender-pages.ts <build folder>');
  const files = await prerenderPages(outdir);
  console.log(`web: prerendered ${files.length} pages into ${join(outdir, 'pages')}`);
}
