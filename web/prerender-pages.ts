import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRERENDERED_ATTRIBUTE } from './src/app/prerendered';

/*
 * Writes the prerendered public pages into the build (issue 13): for each page of PRERENDERED_PAGES, the built
 * index.html with the page's markup inside #root, its language and direction on <html>, and its own <title>.
 * The server sends `pages/<name>.html` for the page's route (api/src/static-files.ts); index.html stays the empty
 * shell every other route gets, and pages/_signed-in-home.html is the shell for `/` with a session.
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

/**
 * The stylesheet inside the page instead of linked: a first visit paints without waiting for another request
 * (Lighthouse's render-blocking resources). Only the prerendered pages get it; the shell keeps the cached file.
 */
function inlineStylesheet(html: string, outdir: string): string {
  const link = /<link rel="stylesheet"[^>]*href="(\/assets\/[^"]+\.css)"[^>]*>/.exec(html);
  if (!link) throw new Error('prerender: the built index.html links no stylesheet');
  const css = readFileSync(join(outdir, link[1]!), 'utf8');
  if (/<\/style/i.test(css)) return html; // cannot be inlined safely; stays linked
  return html.replace(link[0], () => `<style>${css}</style>`);
}

/**
 * The shell for `/` when the browser holds a session cookie (the dashboard, api/src/static-files.ts): index.html with
 * the session probe preloaded (as the app fetches it: with credentials), so its answer is there when the entry runs.
 * The dashboard's chunks are not preloaded: measured, they took bandwidth from the entry and delayed the first paint
 * (the dashboard's frame, web/src/app/dashboard-frame.tsx) by half a second on Lighthouse's slow 4G.
 */
function signedInShell(shell: string): string {
  const probe = '<link rel="preload" as="fetch" crossorigin="use-credentials" href="/api/auth/session">';
  return replaceOnce(shell, '</head>', `${probe}</head>`, '</head>');
}

/** The file of the signed-in shell in the build. */
export const SIGNED_IN_SHELL = 'pages/_signed-in-home.html';

/** Renders every page into `outdir/pages/`; returns the files written. Run after the bundle is in `outdir`. */
export async function prerenderPages(outdir: string): Promise<string[]> {
  const { PRERENDERED_PAGES, renderPage } = await import('./src/app/prerender');
  const shell = readFileSync(join(outdir, 'index.html'), 'utf8');
  mkdirSync(join(outdir, 'pages'), { recursive: true });
  const written: string[] = [join(outdir, SIGNED_IN_SHELL)];
  writeFileSync(written[0]!, signedInShell(shell));
  const styled = inlineStylesheet(shell, outdir);
  for (const path of PRERENDERED_PAGES) {
    const page = await renderPage(path);
    let html = replaceOnce(styled, /<html lang="en" dir="ltr">/, `<html lang="${page.lang}" dir="${page.lang === 'ar' ? 'rtl' : 'ltr'}">`, '<html lang="en" dir="ltr">');
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
  console.log(`web: prerendered ${files.length - 1} pages and the signed-in shell into ${join(outdir, 'pages')}`);
}
