import { refundDashboardRoutes, refundRoutes } from './modules/refunds/routes';
import { openapi } from '@elysiajs/openapi';
import { tidyOpenApi } from './openapi-tidy';
import { Elysia } from 'elysia';
import type { AppDeps } from './deps';
import { AppError } from './errors';
import { sharedModels } from './models';
import { authRoutes } from './modules/auth/routes';
import { subscriptionRoutes } from './modules/subscription/routes';
import { bcardRoutes } from './modules/bcards/routes';
import { fundingSourceRoutes } from './modules/funding-sources/routes';
import { transactionRoutes } from './modules/transactions/routes';
import { analyticsRoutes } from './modules/analytics/routes';
import { merchantRoutes } from './modules/merchants/routes';
import { paymentIntentRoutes } from './modules/payment-intents/routes';
import { customerRoutes } from './modules/customers/routes';
import { chargeDashboardRoutes } from './modules/charges/dashboard-routes';
import { chargeRoutes } from './modules/charges/routes';
import { checkoutRoutes } from './modules/checkout/routes';
import { demoRoutes } from './modules/demo/routes';
import { siteRoutes } from './modules/site/routes';
import { emailOutboxRoutes } from './modules/admin/outbox-routes';
import { eventRoutes } from './modules/webhooks/events-routes';
import { webhookDashboardRoutes } from './modules/webhooks/dashboard-routes';
import { webhookEndpointRoutes } from './modules/webhooks/routes';
import { kycRoutes } from './modules/kyc/routes';
import { testHelperRoutes } from './modules/test-helpers/routes';
import { adminAuthRoutes } from './modules/admin/auth-routes';
import { adminKycRoutes } from './modules/admin/kyc-routes';
import { adminRefundFailureRoutes } from './modules/admin/refund-failures-routes';
import { adminReceivableRoutes } from './modules/admin/receivables-routes';
import { receivableRoutes } from './modules/receivables/routes';
import { adminRoutes } from './modules/admin/routes';
import { httpPlugin, isFormBody } from './plugins/http';
import { coerceFormValues, type FormSchema } from './lib/form-body';
import { clientAddress, setPeerAddress } from './lib/request-context';
import { consumerRateLimitPlugin } from './plugins/consumer-rate-limit';
import { issuingNetworkRoutes } from './modules/issuing/routes';
import { stripeWebhookRoutes } from './modules/issuing/stripe-routes';
import { disputeSandboxRoutes } from './modules/disputes/routes';
import { extensionScopeGuard } from './plugins/extension-auth';
import { extensionRoutes } from './modules/extension/routes';
import { notificationRoutes } from './modules/notifications/routes';

export const API_VERSION = '0.1.0';

/**
 * The merchant API answers at Stripe's paths too (`/v1/payment_intents` beside `/api/v1/payment_intents`), so code
 * written for Stripe's libraries switches by changing the host. One set of routes: a /v1 request is handed to the
 * same app as its /api/v1 twin, before any hook has read it, and the twin's answer is the answer.
 */
export const STRIPE_PREFIX = '/v1';
export const MERCHANT_PREFIX = '/api/v1';

export const isStripePath = (path: string) => path === STRIPE_PREFIX || path.startsWith(`${STRIPE_PREFIX}/`);

/** The /api/v1 twin of a /v1 request: same method, headers, body stream, abort signal and peer address. */
export function merchantTwin(request: Request): Request {
  const url = new URL(request.url);
  url.pathname = MERCHANT_PREFIX + url.pathname.slice(STRIPE_PREFIX.length);
  const twin = new Request(url, request);
  const peer = clientAddress(request, false);
  if (peer !== 'unknown') setPeerAddress(twin, peer);
  return twin;
}

type BuiltApp = { handle(request: Request): Promise<Response>; routes: { method: string; path: string; hooks: { body?: unknown } }[]; definitions: { type: Record<string, unknown> } };

/** Each route's body schema by "METHOD path", read once from the built app (named models resolved). */
function bodySchemas(app: BuiltApp): Map<string, FormSchema> {
  const schemas = new Map<string, FormSchema>();
  for (const route of app.routes) {
    const body = typeof route.hooks.body === 'string' ? app.definitions.type[route.hooks.body] : route.hooks.body;
    if (body && typeof body === 'object') schemas.set(`${route.method} ${route.path}`, body as FormSchema);
  }
  return schemas;
}

/** Builds the whole HTTP API. The process entry (server.ts) adds static files; tests call app.handle directly. */
export function createApp(deps: AppDeps) {
  // The hooks below need the finished app (its handle, its routes); they only run once it is built and returned.
  let built: BuiltApp | undefined;
  let schemas: Map<string, FormSchema> | undefined;
  // normalize: false makes an unknown body field an error (400 naming it) instead of silently dropping it.
  const app = new Elysia({ name: 'bpay', normalize: false })
    // First of all hooks: the twin goes through every one of them (request id, size and rate limits) itself.
    .onRequest(({ request }) => {
      if (isStripePath(new URL(request.url).pathname)) return built!.handle(merchantTwin(request));
    })
    .use(
      httpPlugin(
        {
          allowedOrigins: [deps.publicUrl.origin],
          // The card network's calls (a shop's server, Stripe) carry no cookie either: no ambient credential to guard.
          bearerPrefixes: ['/api/v1/', '/api/admin/', '/api/simulator/', '/api/stripe/'],
          // The browser extension's token (plugins/extension-auth.ts) and its pairing exchange, from its own origin.
          bearerTokenPrefixes: ['bpx_'],
          credentialFreePaths: ['/api/extension/tokens'],
          // Stripe's libraries send form bodies (`metadata[order]=42`); only the bearer-key merchant API takes them.
          formPrefixes: ['/api/v1/'],
          multipartPaths: ['/api/kyc/submit'],
          // Stripe signs the exact bytes it sends: its route verifies the raw text, then parses it.
          rawBodyPaths: ['/api/stripe/webhook'],
          // The only answers a shared cache may keep: the same for everyone (cache-control.test.ts holds this list).
          cacheablePaths: ['/api/subscription/tiers', '/api/site/contact'],
          // A consumer or admin body is a form's worth of fields; the merchant API carries metadata (50 keys of up
          // to 500 characters, as Stripe allows) and webhook event lists.
          jsonBodyLimits: {
            defaultBytes: 32 * 1024,
            // Stripe's events are a few KB (an authorization with its card and cardholder); 64 KB leaves room.
            byPrefix: [['/api/v1/', 256 * 1024], ['/api/stripe/webhook', 64 * 1024]],
          },
        },
        deps.log,
      ),
    )
    // A browser extension token (bpx_) outside the extension's routes: 403 before anything else reads the request.
    .use(extensionScopeGuard())
    // A form body's values are strings; the route's schema says which are numbers and booleans (lib/form-body.ts).
    // Before validation, so a bad value gets the message a JSON body would.
    .onTransform({ as: 'global' }, (ctx) => {
      if (!isFormBody(ctx.request)) return;
      schemas ??= bodySchemas(built!);
      ctx.body = coerceFormValues(schemas.get(`${ctx.request.method} ${ctx.route}`), ctx.body);
    })
    // After the http plugin (request id, error rendering), before any body is read: see plugins/consumer-rate-limit.ts.
    .use(consumerRateLimitPlugin(deps))
    // Plain integers and booleans in the document (see openapi-tidy.ts), so the generated SDK types are exact.
    .onAfterHandle({ as: 'global' }, ({ path, response }) => (path === '/swagger/json' ? tidyOpenApi(response) : undefined))
    .use(
      openapi({
        path: '/swagger',
        specPath: '/swagger/json',
        provider: 'swagger-ui',
        // Document every route, /api/transactions/export.csv included (the default hides paths with a dot).
        exclude: { staticFile: false },
        // Served from our own origin (see server.ts): the docs work without internet access.
        swagger: {
          cdn: '/swagger/assets/swagger-ui-bundle.js',
          theme: '/swagger/assets/swagger-ui.css',
          version: 'bundled',
        } as never,
        documentation: {
          info: {
            title: 'bpay API',
            version: API_VERSION,
            description:
              'Split one purchase across several funding sources and pay with a single-use bcard. ' +
              'Every error is answered in one shape (components.schemas.Error): an error object with type, code, ' +
              'message and, for a bad field, param.',
          },
          tags: [
            { name: 'Auth', description: 'Accounts, sessions and two-factor authentication' },
            { name: 'Subscription', description: 'Plans and their benefits' },
            { name: 'Funding sources', description: 'Cards linked to your account (tokens only)' },
            { name: 'bcards', description: 'Split collection and single-use virtual cards' },
            { name: 'Transactions', description: 'Your history and its CSV export' },
            { name: 'Notifications', description: 'Notices of what touched your money or your account, their live stream, and which come by e-mail' },
            { name: 'Merchants', description: 'Merchant accounts and keys (session cookie)' },
            { name: 'Payment intents', description: 'The merchant API (Authorization: Bearer sk_…)' },
            { name: 'Webhook endpoints', description: 'Where bpay POSTs signed events (Authorization: Bearer sk_…)' },
            { name: 'Events', description: 'What happened to your objects, and their webhook deliveries (Authorization: Bearer sk_…)' },
            { name: 'Test helpers', description: 'Sandbox-only helpers that make test objects (Authorization: Bearer sk_test_…)' },
            { name: 'Checkout', description: "The checkout widget's calls" },
            { name: 'Card network', description: "bpay as the bcards' issuer: the simulated card network shops charge, and Stripe Issuing's webhook" },
            { name: 'Admin', description: 'The back office (Authorization: Bearer <admin token from /api/admin/auth/login>)' },
            { name: 'Identity verification', description: 'KYC submissions and their status (session cookie)' },
            {
              name: 'Browser extension',
              description:
                'Connecting the browser extension (session cookie) and its own calls (Authorization: Bearer bpx_…)',
            },
          ],
          components: {
            securitySchemes: {
              sessionCookie: {
                type: 'apiKey',
                in: 'cookie',
                name: 'bpay_session',
                description:
                  'Set by /api/auth/login and /api/auth/register. HttpOnly, SameSite=Lax. Named __Host-bpay_session ' +
                  '(Secure, Path=/, no Domain) when the public URL is https; bpay_session on a plain-http install.',
              },
              secretKey: {
                type: 'http',
                scheme: 'bearer',
                description:
                  "A merchant's secret key: Authorization: Bearer sk_test_… (sandbox) or sk_live_… (production). HTTP Basic " +
                  'with the key as the user name and an empty password (curl -u sk_test_…:) is taken alike. A publishable ' +
                  'key (pk_…) is answered 403 secret_key_required.',
              },
              adminToken: {
                type: 'http',
                scheme: 'bearer',
                bearerFormat: 'JWT',
                description: 'An admin token from POST /api/admin/auth/login (15 minutes by default, revocable). Cookies are ignored.',
              },
              extensionToken: {
                type: 'http',
                scheme: 'bearer',
                description:
                  "The browser extension's token (bpx_…), from POST /api/extension/tokens: 90 days, revocable from " +
                  "Settings. Cookies are ignored; the token works on the extension's routes only (elsewhere 403 insufficient_scope).",
              },
            },
            schemas: {},
          },
          security: [{ sessionCookie: [] }],
        },
      }),
    )
    .use(sharedModels)
    .use(authRoutes(deps))
    .use(subscriptionRoutes(deps))
    .use(fundingSourceRoutes(deps))
    .use(receivableRoutes(deps))
    .use(bcardRoutes(deps))
    .use(transactionRoutes(deps))
    .use(notificationRoutes(deps))
    .use(analyticsRoutes(deps))
    .use(merchantRoutes(deps))
    .use(paymentIntentRoutes(deps))
    .use(customerRoutes(deps))
    .use(chargeRoutes(deps))
    .use(chargeDashboardRoutes(deps))
    .use(refundRoutes(deps))
    .use(refundDashboardRoutes(deps))
    .use(checkoutRoutes(deps))
    .use(demoRoutes(deps))
    .use(siteRoutes(deps))
    .use(emailOutboxRoutes(deps))
    .use(webhookEndpointRoutes(deps))
    .use(eventRoutes(deps))
    .use(testHelperRoutes(deps))
    .use(webhookDashboardRoutes(deps))
    .use(adminAuthRoutes(deps))
    .use(adminRoutes(deps))
    .use(adminKycRoutes(deps))
    .use(adminRefundFailureRoutes(deps))
    .use(adminReceivableRoutes(deps))
    .use(kycRoutes(deps))
    .use(extensionRoutes(deps))
    .use(issuingNetworkRoutes(deps))
    .use(stripeWebhookRoutes(deps))
    .use(disputeSandboxRoutes(deps))
    .all('/api/*', () => {
      throw new AppError('route_not_found');
    }, { detail: { hide: true } });
  built = app as unknown as BuiltApp;
  return app;
}

export type App = ReturnType<typeof createApp>;
