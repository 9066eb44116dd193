import { readFileSync } from 'node:fs';
import { privateUmask } from '@bpay/db/file-modes';
import { dirname, join, resolve } from 'node:path';
import { boot } from './boot';
import { EnvError, parseEnv } from './env';
import { createLogger } from './lib/logger';
import { requestIdOf, setPeerAddress } from './lib/request-context';
import { generatedFile, serveGenerated, serveWebApp, type GeneratedFile } from './static-files';
import { robotsTxt, sitemapXml } from './site-files';
import { compressJsonResponse } from './http-encoding';
import { closeApiLeases } from './modules/merchants/usage';
import { errorBody, AppError } from './errors';
import { headerBytes, MAX_HEADER_BYTES, MAX_URL_BYTES, requestTargetBytes } from './plugins/http';
import { EVENT_STREAM_PATH } from './modules/events/stream';
import { isStripePath, MERCHANT_PREFIX, STRIPE_PREFIX } from './app';
import { readSessionToken } from './modules/auth/sessions';

/*
 * The process entry: one server on one port for the API, the API docs and the web app.
 * `--dev` serves web/index.html through Bun's bundler with hot reload instead of the production build.
 */
// Before anything is written (parseEnv may create the session-secret file): what bpay creates is 0600, folders 0700.
privateUmask();
let env;
try {
  env = parseEnv(process.env);
} catch (e) {
  if (e instanceof EnvError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
const dev = process.argv.includes('--dev');
const log = createLogger(env.logLevel);
// Several processes on one port share one database file: each must wait for the others' write lock with its event
// loop running, or the sleeping one stops serving (docs/SCALING.md, "Issue 29: the second core").
if (env.reusePort) process.env.BPAY_DB_ASYNC_LOCK_WAIT = '1';
const booted = await boot(env, log);
const { app } = booted;

const swaggerAssets = dirname(require.resolve('swagger-ui-dist/package.json'));
const webDist = resolve(env.webDist);
const SWAGGER_FILES: Record<string, string> = {
  '/swagger/assets/swagger-ui-bundle.js': 'swagger-ui-bundle.js',
  '/swagger/assets/swagger-ui.css': 'swagger-ui.css',
};

/** The docs' script and stylesheet (1.5 MB, shipped uncompressed), read and compressed on first use. */
const swaggerCache = new Map<string, GeneratedFile>();
function swaggerAsset(name: string): GeneratedFile {
  let file = swaggerCache.get(name);
  if (!file) {
    const type = name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    file = generatedFile(readFileSync(join(swaggerAssets, name)), type, 'public, max-age=86400');
    swaggerCache.set(name, file);
  }
  return file;
}

/** The app's paths: the API (with its Stripe-style /v1 twin, never the SPA's index.html) and its docs. */
function isApiPath(path: string): boolean {
  return isStripePath(path) || path === '/api' || path.startsWith('/api/') || path === '/swagger' || path.startsWith('/swagger/');
}

/** robots.txt and sitemap.xml name the site by its public URL, so the server makes them (once, at start). */
const SITE_FILES: Record<string, GeneratedFile> = {
  '/robots.txt': generatedFile(robotsTxt(env.publicUrl), 'text/plain; charset=utf-8'),
  '/sitemap.xml': generatedFile(sitemapXml(env.publicUrl), 'application/xml; charset=utf-8'),
};

/**
 * Bun answers oversized headers (over its --max-http-header-size) and bodies (over maxRequestBodySize) itself, with an
 * empty body. Its caps are set far above ours (start.sh passes --max-http-header-size=262144; bodies up to 1 GiB reach
 * us), so every realistic oversized request gets the catalogue's shape from the app instead: headers over 16 KB here
 * (web pages included), bodies over each route's limit in the http plugin.
 */
export const BUN_HEADER_CAP_FLAG = '--max-http-header-size=262144';
const MAX_REQUEST_BODY_BYTES = 1024 ** 3;

function errorResponse(req: Request, error: AppError, extra: Record<string, string> = {}): Response {
  const requestId = requestIdOf(req);
  return new Response(JSON.stringify(errorBody(error, requestId)), {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'request-id': requestId, 'x-content-type-options': 'nosniff', ...extra },
  });
}

const headersTooLarge = (req: Request) => errorResponse(req, new AppError('headers_too_large'), { connection: 'close' });

/** The long-lived streams: the merchant event stream (and its /v1 twin) and the consumer's notice stream. */
const STREAM_PATHS = new Set([EVENT_STREAM_PATH, EVENT_STREAM_PATH.replace(MERCHANT_PREFIX, STRIPE_PREFIX), '/api/notifications/stream']);

async function handle(req: Request, server: Bun.Server<unknown>): Promise<Response> {
  if (headerBytes(req) > MAX_HEADER_BYTES) return headersTooLarge(req);
  // Without a usable Host (HTTP/1.0 without one, or `Host: a b`) Bun's req.url is not a URL: 400, not a 500 and an
  // error log line per request.
  const target = requestTargetBytes(req);
  if (target === null) return errorResponse(req, new AppError('validation_error', 'The request has no valid Host header.', 'host'), { connection: 'close' });
  if (target > MAX_URL_BYTES) return errorResponse(req, new AppError('uri_too_long'), { connection: 'close' });
  const ip = server.requestIP(req);
  if (ip) setPeerAddress(req, ip.address);
  const path = new URL(req.url).pathname;
  // The docs page loads its spec by a relative URL, so it must be served without a trailing slash.
  if (path === '/swagger/') return Response.redirect('/swagger', 308);
  const asset = SWAGGER_FILES[path];
  if (asset) return serveGenerated(req, swaggerAsset(asset));
  // Bun closes a connection idle for 10 s by default; the event and notice streams ping only every 15 s and may wait
  // longer for a message, so they get no idle limit (they end when the client goes away).
  if (STREAM_PATHS.has(path)) server.timeout(req, 0);
  // JSON answers are compressed here, around the app, so in-process tests (app.handle) read plain bodies.
  if (isApiPath(path)) return compressJsonResponse(req, await app.handle(req));
  const siteFile = SITE_FILES[path];
  if (siteFile && (req.method === 'GET' || req.method === 'HEAD')) return serveGenerated(req, siteFile);
  if (dev) return app.handle(req);
  // Any session cookie, valid or not, counts as a hint only: it picks the shell over the landing's HTML for `/`.
  return serveWebApp(webDist, req, { hasSession: readSessionToken(req.headers.get('cookie')) !== null });
}

let server;
if (dev) {
  const { default: index } = await import('../../web/index.html');
  server = Bun.serve({
    port: env.port,
    hostname: env.host,
    development: { hmr: true, console: true },
    routes: { '/api/*': handle, '/v1': handle, '/v1/*': handle, '/swagger': handle, '/swagger/*': handle, '/*': index },
    fetch: handle,
  });
} else {
  server = Bun.serve({
    port: env.port,
    hostname: env.host,
    fetch: handle,
    reusePort: env.reusePort,
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    // Never Bun's development error page (an HTML page with the error's text): anything thrown outside the API's
    // own error handler is logged and answered as an opaque 500 in the error shape.
    development: false,
    error(error) {
      const requestId = `req_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`;
      log.error('unhandled error outside the API', { requestId, error });
      return new Response(
        JSON.stringify(errorBody(new AppError('internal_error', `Something went wrong on our side. Request id: ${requestId}.`), requestId)),
        { status: 500, headers: { 'content-type': 'application/json; charset=utf-8', 'request-id': requestId } },
      );
    },
  });
}
if (!process.execArgv.some((a) => a.startsWith('--max-http-header-size'))) {
  log.warn(`started without ${BUN_HEADER_CAP_FLAG}: requests with over 16 KB of headers get Bun's own empty 431`);
}

log.info('bpay is listening', { url: `http://localhost:${server.port}`, publicUrl: env.publicUrl.href, dev });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log.info('shutting down', { signal });
    server.stop();
    // The merchant API's unused leased calls go back to the plan's count (a crash would leave them counted as used);
    // requests still in flight lease only their own call from here on.
    void closeApiLeases(booted.deps.db)
      .catch((error) => log.warn('unused API calls could not be given back; they stay counted as used', { error }))
      .finally(() => {
        booted.stop();
        process.exit(0);
      });
  });
}
