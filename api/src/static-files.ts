import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { isWebRoute } from '../../web/src/app/routes';
import { negotiateEncoding, varyOnAcceptEncoding, type Coding } from './http-encoding';

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

/*
 * How the web build is sent (issue 13):
 * - a `.br` or `.gz` copy written by the build (web/compress.ts) when Accept-Encoding allows it, with the original's
 *   Content-Type, `Content-Encoding` and the copy's length, and `Vary: Accept-Encoding` on every compressible type;
 * - hashed assets (/assets/name-<8 chars>.ext, a new name for new content) cached for a year as immutable;
 *   everything else (HTML, widget.js, robots.txt) `no-cache` with a strong ETag and 304 on If-None-Match;
 * - a prerendered public page (`pages/ar.html` for /ar, written by web/prerender-pages.ts) for its route, else the SPA's
 *   index.html, an empty shell the app renders into.
 */

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
};
/** Types the build compresses (web/compress.ts); their answers vary by Accept-Encoding. */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.webmanifest', '.svg', '.txt', '.xml']);

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

function contentTypeOf(file: string): string {
  return TYPES[extname(file).toLowerCase()] ?? (Bun.file(file).type || 'application/octet-stream');
}

/** A file the bundler named by its content: under /assets/, `name-<8 lowercase letters or digits>.ext` (or `.ext.map`). */
export function isHashedAsset(urlPath: string): boolean {
  return urlPath.startsWith('/assets/') && /-[a-z0-9]{8}\.[a-z0-9]+(\.map)?$/.test(basename(urlPath));
}

/** A strong validator of the identity bytes; a compressed copy gets the same tag with its coding appended. */
function tagOf(bytes: Uint8Array | string): string {
  return `"${new Bun.CryptoHasher('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
}

const tagCache = new Map<string, { mtimeMs: number; size: number; etag: string }>();

/** The file's ETag, hashed once and kept until its modification time or size changes. */
function fileTag(file: string, mtimeMs: number, size: number): string {
  const cached = tagCache.get(file);
  if (cached && cached.mtimeMs === mtimeMs && cached.size === size) return cached.etag;
  const etag = tagOf(readFileSync(file));
  tagCache.set(file, { mtimeMs, size, etag });
  return etag;
}

/** One thing to send in its identity form and possibly compressed copies. */
interface Entity {
  type: string;
  etag: string;
  cacheControl: string;
  compressible: boolean;
  identity: Blob;
  copies: Partial<Record<Coding, Blob>>;
}

/** Whether If-None-Match names this entity (weak comparison, any coding of the same bytes, or `*`). */
function matches(ifNoneMatch: string, etag: string): boolean {
  const base = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag.replace(/^W\//, '').replace(/-(br|gzip)"$/, '"') === base;
  });
}

/** `status` other than 200 (the SPA's shell for an unknown path, a 404) is never answered 304: the client must see it. */
function respond(request: Request, entity: Entity, status = 200): Response {
  const headers = new Headers({ 'cache-control': entity.cacheControl, 'x-content-type-options': 'nosniff' });
  if (entity.compressible) varyOnAcceptEncoding(headers);
  const available = (Object.keys(entity.copies) as Coding[]).filter((c) => entity.copies[c]);
  const coding = negotiateEncoding(request.headers.get('accept-encoding'), available);
  headers.set('etag', coding ? entity.etag.replace(/"$/, `-${coding}"`) : entity.etag);
  const ifNoneMatch = request.headers.get('if-none-match');
  if (status === 200 && ifNoneMatch !== null && matches(ifNoneMatch, entity.etag)) return new Response(null, { status: 304, headers });
  const body = (coding && entity.copies[coding]) || entity.identity;
  headers.set('content-type', entity.type);
  if (coding) headers.set('content-encoding', coding);
  headers.set('content-length', String(body.size));
  return new Response(request.method === 'HEAD' ? null : body, { status, headers });
}

/** A build-time copy (`x.js.br`) that is a file no older than the original; anything else is not used. */
function copyOf(file: string, suffix: string, originalMtime: number): Blob | undefined {
  try {
    const st = statSync(file + suffix);
    return st.isFile() && st.mtimeMs >= originalMtime ? Bun.file(file + suffix) : undefined;
  } catch {
    return undefined;
  }
}

function fileEntity(file: string, urlPath: string): Entity {
  const st = statSync(file);
  const ext = extname(file).toLowerCase();
  const compressible = COMPRESSIBLE.has(ext);
  const br = compressible ? copyOf(file, '.br', st.mtimeMs) : undefined;
  const gzip = compressible ? copyOf(file, '.gz', st.mtimeMs) : undefined;
  return {
    type: contentTypeOf(file),
    etag: fileTag(file, st.mtimeMs, st.size),
    cacheControl: isHashedAsset(urlPath) && ext !== '.html' ? IMMUTABLE : REVALIDATE,
    compressible,
    identity: Bun.file(file),
    copies: { ...(br && { br }), ...(gzip && { gzip }) },
  };
}

/** The answer for a file of the build the path names; null when there is none. GET and HEAD only. */
export function serveStatic(root: string, request: Request): Response | null {
  if (request.method !== 'GET' && request.method !== 'HEAD') return null;
  const path = new URL(request.url).pathname;
  const file = resolveStaticFile(root, path);
  return file ? respond(request, fileEntity(file, path)) : null;
}

/**
 * The prerendered HTML of a client route, if the build has it: `pages/index.html` for /, `pages/<name>.html` for
 * /<name>. Routes match case-insensitively and with a trailing slash, as the router does; only single-segment paths
 * of letters, digits and hyphens name a page.
 */
export function prerenderedPage(root: string, path: string): string | null {
  const route = (path.replace(/\/+$/, '') || '/').toLowerCase();
  // `/index` would name the landing's file: it is no route.
  if (!/^\/[a-z0-9-]*$/.test(route) || route === '/index') return null;
  return resolveStaticFile(root, `/pages/${route === '/' ? 'index' : route.slice(1)}.html`);
}

export interface WebAppOptions {
  /**
   * Whether the request carries a session cookie. `/` is the dashboard for a signed-in user: such a request gets the
   * shell rather than the landing page's HTML, which would flash before the dashboard.
   */
  hasSession?: boolean;
}

/**
 * The pages a mailed one-time link opens, its token in the query (a reset, a sign-in link, an e-mail change's confirm
 * and revert): answered with Referrer-Policy: no-referrer, so no request the page makes before its script takes the
 * token out of the address bar (its scripts, styles, a font, a link followed) names the URL. Only these pages: the
 * rest of the site keeps the browser's default (nothing of bpay's relies on Referer; CSRF checks read Origin).
 */
export const ONE_TIME_LINK_PAGES: ReadonlySet<string> = new Set(['/reset-password', '/sign-in-link', '/confirm-email', '/revert-email']);

/**
 * Everything outside the API: a file of the build (serveStatic), a prerendered page, else the SPA's index.html for
 * client-side routes: 200 for a path one of the router's routes matches (web/src/app/routes.ts), else 404 (issue 25
 * 6e) with the same HTML, so the SPA still renders its not-found page. A missing file under /assets/ is a 404, not the
 * SPA: a script tag given HTML fails obscurely; so is one under /downloads/ (the browser extension's zip): a download link must not save the app's HTML as a .zip.
 * Other methods than GET and HEAD get 405.
 */
export function serveWebApp(root: string, request: Request, options: WebAppOptions = {}): Response {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response('Method not allowed', { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' } });
  }
  const path = new URL(request.url).pathname;
  // The build's page files are sent only for their routes, never by their own paths (duplicates of the pages for
  // crawlers, with the wrong title for the app's 404); /index.html is the shell, which shows the 404 page.
  const internal = path === '/index.html' || /^\/pages(\/|$)/i.test(path);
  const found = internal ? null : serveStatic(root, request);
  if (found) return found;
  // `/` is the dashboard for a signed-in user: with a session cookie it gets the signed-in shell (when the build wrote
  // it) rather than the landing's HTML, which would flash before the dashboard; its answer varies by cookie.
  const landing = (path.replace(/\/+$/, '') || '/') === '/';
  const page =
    landing && options.hasSession ? resolveStaticFile(root, '/pages/_signed-in-home.html') : prerenderedPage(root, path);
  if (!page && (path.startsWith('/assets/') || path.startsWith('/downloads/'))) {
    return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': REVALIDATE } });
  }
  const index = join(resolve(root), 'index.html');
  if (!page && !existsSync(index)) {
    return new Response('The web app is not built. Run `bun run build:web` (the start command does it).', {
      status: 503,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  }
  const status = page || isWebRoute(path) ? 200 : 404;
  const response = respond(request, fileEntity(page ?? index, page ? path : '/index.html'), status);
  if (landing) response.headers.append('vary', 'Cookie');
  if (ONE_TIME_LINK_PAGES.has(path.replace(/\/+$/, ''))) response.headers.set('referrer-policy', 'no-referrer');
  return response;
}

/** Something the server sends from memory (robots.txt, sitemap.xml, the API docs' scripts): hashed and compressed once. */
export interface GeneratedFile {
  readonly entity: Entity;
}

/**
 * Prepares `body` for serveGenerated. Brotli at quality 11 up to 64 KB; larger bodies (a megabyte of docs script)
 * at quality 6, which takes a fraction of the time for nearly the same size.
 */
export function generatedFile(body: string | Uint8Array, type: string, cacheControl: string = REVALIDATE): GeneratedFile {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const copies: Partial<Record<Coding, Blob>> = {};
  if (bytes.byteLength >= 1024) {
    const quality = bytes.byteLength > 64 * 1024 ? 6 : 11;
    const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } });
    const gz = gzipSync(bytes, { level: 9 });
    if (br.byteLength <= bytes.byteLength * 0.9) copies.br = new Blob([br]);
    if (gz.byteLength <= bytes.byteLength * 0.9) copies.gzip = new Blob([gz]);
  }
  return { entity: { type, etag: tagOf(bytes), cacheControl, compressible: true, identity: new Blob([new Uint8Array(bytes)]), copies } };
}

export function serveGenerated(request: Request, file: GeneratedFile): Response {
  return respond(request, file.entity);
}
