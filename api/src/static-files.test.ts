import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { compressFolder } from '../../web/compress';
import { generatedFile, isHashedAsset, resolveStaticFile, serveGenerated, serveStatic, serveWebApp } from './static-files';

let dir: string;
let web: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bpay-static-'));
  web = join(dir, 'web');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html>');
  writeFileSync(join(web, 'assets', 'app-abcdefgh.js'), '');
  // Siblings whose names start with the build folder's: a prefix check alone would serve them.
  mkdirSync(join(dir, 'web-private'));
  writeFileSync(join(dir, 'web-private', 's.txt'), 'TOPSECRET');
  writeFileSync(join(dir, 'web.db'), 'db');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('files of the build are found', () => {
  expect(resolveStaticFile(web, '/index.html')).toBe(join(web, 'index.html'));
  expect(resolveStaticFile(web, '/assets/app-abcdefgh.js')).toBe(join(web, 'assets', 'app-abcdefgh.js'));
  expect(resolveStaticFile(web, '/assets/../index.html')).toBe(join(web, 'index.html'));
});

test('nothing outside the build is ever named, however the path is spelt', () => {
  for (const path of [
    '/..%2fweb-private/s.txt',
    '/..%2Fweb.db',
    '/%2e%2e/web-private/s.txt',
    '/../web-private/s.txt',
    '/..\\web-private\\s.txt',
    '/..%5cweb-private%5cs.txt',
    '/%zz',
    '/index.html%00.js',
    '/',
    '/assets',
    '/missing.js',
  ]) {
    expect({ path, file: resolveStaticFile(web, path) }).toEqual({ path, file: null });
  }
});

/*
 * Serving (issue 13): a build folder as web/build.ts leaves it, compressed copies made by the build's own step.
 */
describe('serveStatic / serveWebApp', () => {
  let build: string;
  const appJs = `console.log(${JSON.stringify('bpay '.repeat(2000))});\n`;
  const indexHtml = `<!doctype html><html><head><title>bpay</title></head><body>${'<p>hello</p>'.repeat(200)}</body></html>`;
  const arHtml = `<!doctype html><html lang="ar" dir="rtl"><body>${'<p>مرحبا</p>'.repeat(200)}</body></html>`;
  const landingHtml = `<!doctype html><html lang="en"><body>${'<p>split</p>'.repeat(200)}</body></html>`;
  beforeAll(() => {
    build = join(dir, 'build');
    mkdirSync(join(build, 'assets'), { recursive: true });
    mkdirSync(join(build, 'pages'));
    writeFileSync(join(build, 'index.html'), indexHtml);
    // Prerendered pages, as web/prerender-pages.ts names them.
    writeFileSync(join(build, 'pages', 'index.html'), landingHtml);
    writeFileSync(join(build, 'pages', 'ar.html'), arHtml);
    writeFileSync(join(build, 'pages', 'auth.html'), '<!doctype html><title>sign in</title>');
    writeFileSync(join(build, 'assets', 'app-abcdefgh.js'), appJs);
    writeFileSync(join(build, 'assets', 'app-abcdefgh.js.map'), JSON.stringify({ mappings: 'AAAA;'.repeat(1000) }));
    writeFileSync(join(build, 'assets', 'index-0a1b2c3d.css'), 'body{color:red}\n'.repeat(200));
    writeFileSync(join(build, 'assets', 'logo-12345678.png'), new Uint8Array(3000));
    writeFileSync(join(build, 'widget.js'), '/* widget */\n'.repeat(200));
    compressFolder(build);
  });

  const req = (path: string, headers: Record<string, string> = {}, method = 'GET') => new Request(`http://bpay.test${path}`, { method, headers });
  const bytes = async (res: Response) => new Uint8Array(await res.arrayBuffer());

  test('brotli, then gzip, then the identity, by Accept-Encoding; original type, coding and the length sent', async () => {
    const br = serveStatic(build, req('/assets/app-abcdefgh.js', { 'accept-encoding': 'gzip, deflate, br' }))!;
    expect(br.status).toBe(200);
    expect(br.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    const brBody = await bytes(br);
    expect(Number(br.headers.get('content-length'))).toBe(brBody.byteLength);
    expect(brotliDecompressSync(brBody).toString()).toBe(appJs);

    const gz = serveStatic(build, req('/assets/app-abcdefgh.js', { 'accept-encoding': 'gzip' }))!;
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gz.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const gzBody = await bytes(gz);
    expect(Number(gz.headers.get('content-length'))).toBe(gzBody.byteLength);
    expect(gunzipSync(gzBody).toString()).toBe(appJs);

    for (const ae of [undefined, 'identity', 'br;q=0, gzip;q=0', '*;q=0', 'deflate']) {
      const plain = serveStatic(build, req('/assets/app-abcdefgh.js', ae ? { 'accept-encoding': ae } : {}))!;
      expect({ ae, coding: plain.headers.get('content-encoding'), vary: plain.headers.get('vary') }).toEqual({ ae, coding: null, vary: 'Accept-Encoding' });
      expect(Number(plain.headers.get('content-length'))).toBe(appJs.length);
      expect(await plain.text()).toBe(appJs);
    }
  });

  test('content types of the original file, never of its compressed copy', () => {
    const typeOf = (path: string) => serveStatic(build, req(path, { 'accept-encoding': 'br' }))!.headers.get('content-type');
    expect(typeOf('/assets/index-0a1b2c3d.css')).toBe('text/css; charset=utf-8');
    expect(typeOf('/assets/app-abcdefgh.js.map')).toBe('application/json; charset=utf-8');
    expect(typeOf('/assets/logo-12345678.png')).toBe('image/png');
    expect(typeOf('/index.html')).toBe('text/html; charset=utf-8');
    expect(typeOf('/widget.js')).toBe('text/javascript; charset=utf-8');
  });

  test('hashed assets are immutable for a year; HTML and unhashed files are revalidated with a strong ETag', () => {
    for (const path of ['/assets/app-abcdefgh.js', '/assets/app-abcdefgh.js.map', '/assets/index-0a1b2c3d.css', '/assets/logo-12345678.png']) {
      expect({ path, cc: serveStatic(build, req(path))!.headers.get('cache-control') }).toEqual({ path, cc: 'public, max-age=31536000, immutable' });
    }
    for (const path of ['/', '/index.html', '/widget.js', '/ar']) {
      const res = serveWebApp(build, req(path));
      expect({ path, cc: res.headers.get('cache-control'), etag: res.headers.get('etag') }).toEqual({
        path,
        cc: 'no-cache',
        etag: expect.stringMatching(/^"[A-Za-z0-9_-]{32}"$/),
      });
    }
    expect(isHashedAsset('/assets/app-abcdefgh.js')).toBe(true);
    expect(isHashedAsset('/assets/app.js')).toBe(false);
    expect(isHashedAsset('/widget-abcdefgh.js')).toBe(false);
  });

  test('the ETag is the hash of the bytes: the same for the same content, another for other content, per coding', () => {
    const tag = (path: string, ae?: string) => serveWebApp(build, req(path, ae ? { 'accept-encoding': ae } : {})).headers.get('etag')!;
    expect(tag('/index.html')).toBe(tag('/merchant-portal'));
    expect(tag('/index.html')).not.toBe(tag('/ar'));
    expect(tag('/index.html')).not.toBe(tag('/'));
    expect(tag('/index.html', 'br')).toBe(tag('/index.html').replace(/"$/, '-br"'));
    expect(tag('/index.html', 'gzip')).toBe(tag('/index.html').replace(/"$/, '-gzip"'));
  });

  test('304 Not Modified on a matching If-None-Match (its own tag, another coding of it, weak, in a list, or *)', async () => {
    const first = serveStatic(build, req('/index.html', { 'accept-encoding': 'br' }))!;
    const etag = first.headers.get('etag')!;
    const plainTag = etag.replace('-br"', '"');
    for (const inm of [etag, plainTag, plainTag.replace(/"$/, '-gzip"'), `W/${etag}`, `"nope", ${etag}`, '*']) {
      const res = serveStatic(build, req('/index.html', { 'accept-encoding': 'br', 'if-none-match': inm }))!;
      expect({ inm, status: res.status }).toEqual({ inm, status: 304 });
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('vary')).toBe('Accept-Encoding');
      expect(await res.text()).toBe('');
    }
    const changed = serveStatic(build, req('/index.html', { 'if-none-match': '"somethingelse"' }))!;
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe(indexHtml);
    // The SPA fallback for a client route answers 304 too.
    expect(serveWebApp(build, req('/merchant-portal', { 'if-none-match': plainTag })).status).toBe(304);
  });

  test('a changed file gets a new ETag (kept per modification time and size)', () => {
    writeFileSync(join(build, 'robots-like.txt'), 'one');
    const before = serveStatic(build, req('/robots-like.txt'))!.headers.get('etag');
    writeFileSync(join(build, 'robots-like.txt'), 'two, longer');
    expect(serveStatic(build, req('/robots-like.txt'))!.headers.get('etag')).not.toBe(before);
  });

  test('HEAD: the headers of GET, with no body', async () => {
    const res = serveStatic(build, req('/assets/app-abcdefgh.js', { 'accept-encoding': 'br' }, 'HEAD'))!;
    const get = serveStatic(build, req('/assets/app-abcdefgh.js', { 'accept-encoding': 'br' }))!;
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toEqual(Object.fromEntries(get.headers));
    expect(await res.text()).toBe('');
  });

  test('a prerendered page answers its route (any case, with or without the trailing slash); other routes get index.html', async () => {
    const ar = serveWebApp(build, req('/ar', { 'accept-encoding': 'br' }));
    expect(ar.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(ar.headers.get('content-encoding')).toBe('br');
    expect(ar.headers.get('cache-control')).toBe('no-cache');
    expect(brotliDecompressSync(await bytes(ar)).toString()).toBe(arHtml);
    expect(await serveWebApp(build, req('/ar/')).text()).toBe(arHtml);
    expect(await serveWebApp(build, req('/AR')).text()).toBe(arHtml);
    expect(await serveWebApp(build, req('/')).text()).toBe(landingHtml);
    // Too small to be worth compressing: sent as it is, still marked as varying.
    const auth = serveWebApp(build, req('/auth', { 'accept-encoding': 'br' }));
    expect(auth.headers.get('content-encoding')).toBe(null);
    expect(await auth.text()).toBe('<!doctype html><title>sign in</title>');
    // The router's other routes get the shell with 200.
    for (const path of ['/merchant-portal', '/checkout/pay', '/Checkout/Pay/', '/auth/logout', '/plans', '/extension/connect', '/confirm-email']) {
      const res = serveWebApp(build, req(path));
      expect({ path, status: res.status, type: res.headers.get('content-type'), body: await res.text() }).toEqual({
        path,
        status: 200,
        type: 'text/html; charset=utf-8',
        body: indexHtml,
      });
    }
  });

  test('a path no route matches gets the shell with 404 (the SPA shows its not-found page), never a 304', async () => {
    // The page files themselves are not pages: /index, /pages/… are unknown paths too.
    const known = serveWebApp(build, req('/plans'));
    for (const path of ['/nope', '/auth/nope', '/checkout', '/index.html', '/arabic', '/pages', '/ar.html', '/index', '/INDEX/', '/pages/ar.html', '/PAGES/index.html']) {
      const res = serveWebApp(build, req(path, { 'if-none-match': known.headers.get('etag')! }));
      expect({ path, status: res.status, type: res.headers.get('content-type'), body: await res.text() }).toEqual({
        path,
        status: 404,
        type: 'text/html; charset=utf-8',
        body: indexHtml,
      });
    }
    const head = serveWebApp(build, req('/nope', {}, 'HEAD'));
    expect(head.status).toBe(404);
    expect(await head.text()).toBe('');
  });

  test('/ with a session cookie gets the shell, not the landing page, and / varies by cookie', async () => {
    const signedIn = serveWebApp(build, req('/'), { hasSession: true });
    expect(await signedIn.text()).toBe(indexHtml);
    expect(signedIn.headers.get('vary')).toBe('Accept-Encoding, Cookie');
    const signedOut = serveWebApp(build, req('/'), { hasSession: false });
    expect(signedOut.headers.get('vary')).toBe('Accept-Encoding, Cookie');
    // With the build's signed-in shell (the dashboard's chunks preloaded), that one; never for its own path.
    writeFileSync(join(build, 'pages', '_signed-in-home.html'), '<!doctype html><link rel="modulepreload" href="/assets/d.js">');
    try {
      expect(await serveWebApp(build, req('/'), { hasSession: true }).text()).toContain('modulepreload');
      expect(await serveWebApp(build, req('/'), { hasSession: false }).text()).toBe(landingHtml);
      const own = serveWebApp(build, req('/_signed-in-home'));
      expect({ status: own.status, body: await own.text() }).toEqual({ status: 404, body: indexHtml });
    } finally {
      rmSync(join(build, 'pages', '_signed-in-home.html'));
    }
    // Only `/` depends on the session: other pages are the same for everyone.
    expect(await serveWebApp(build, req('/ar'), { hasSession: true }).text()).toBe(arHtml);
    expect(serveWebApp(build, req('/ar')).headers.get('vary')).toBe('Accept-Encoding');
  });

  test('traversal still names nothing outside the build: the SPA answers, with 404', async () => {
    for (const path of ['/..%2fweb-private/s.txt', '/%2e%2e/web-private/s.txt', '/../web.db', '/..%5cweb.db', '/%zz', '/..%2f/ar']) {
      const res = serveWebApp(build, req(path));
      expect({ path, status: res.status, body: await res.text() }).toEqual({ path, status: 404, body: indexHtml });
    }
  });

  test('a missing file under /assets/ is a 404, other methods a 405, and an unbuilt app a 503', async () => {
    expect(serveWebApp(build, req('/assets/gone-abcdefgh.js')).status).toBe(404);
    expect(serveStatic(build, req('/assets/gone-abcdefgh.js'))).toBe(null);
    const post = serveWebApp(build, req('/', {}, 'POST'));
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(serveWebApp(join(dir, 'nothing-built'), req('/')).status).toBe(503);
  });

  test('the browser extension zip under /downloads/ is sent as application/zip, revalidated; a missing one is a 404', async () => {
    mkdirSync(join(build, 'downloads'), { recursive: true });
    const zip = new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);
    writeFileSync(join(build, 'downloads', 'bpay-extension.zip'), zip);
    const res = serveWebApp(build, req('/downloads/bpay-extension.zip', { 'accept-encoding': 'br, gzip' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-encoding')).toBe(null);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('etag')).toMatch(/^"/);
    expect(await bytes(res)).toEqual(zip);
    const missing = serveWebApp(build, req('/downloads/other.zip'));
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  test('a compressed copy older than its original is not used', async () => {
    writeFileSync(join(build, 'stale.js'), 'let a = 1;\n'.repeat(500));
    compressFolder(build);
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(build, 'stale.js.br'), past, past);
    utimesSync(join(build, 'stale.js.gz'), past, past);
    const res = serveStatic(build, req('/stale.js', { 'accept-encoding': 'br, gzip' }))!;
    expect(res.headers.get('content-encoding')).toBe(null);
    expect(await res.text()).toBe('let a = 1;\n'.repeat(500));
  });

  test('generated files (robots.txt, sitemap.xml): compressed when worth it, ETag and 304', async () => {
    const body = '<urlset>' + '<url><loc>https://bpay.example/</loc></url>'.repeat(50) + '</urlset>';
    const file = generatedFile(body, 'application/xml; charset=utf-8');
    const res = serveGenerated(req('/sitemap.xml', { 'accept-encoding': 'gzip' }), file);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(gunzipSync(await bytes(res)).toString()).toBe(body);
    expect(serveGenerated(req('/sitemap.xml', { 'if-none-match': res.headers.get('etag')! }), file).status).toBe(304);
    const small = serveGenerated(req('/robots.txt', { 'accept-encoding': 'br' }), generatedFile('User-agent: *\n', 'text/plain; charset=utf-8'));
    expect(small.headers.get('content-encoding')).toBe(null);
    expect(small.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
  });
});
