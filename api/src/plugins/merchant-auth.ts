import { eq } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { schema, type Db, firstRow } from '@bpay/db';
import type { AppDeps } from '../deps';
import { AppError } from '../errors';
import { hmacHex } from '../lib/crypto';
import { recordApiRequest } from '../modules/merchants/usage';

type MerchantRow = typeof schema.merchants.$inferSelect;

/** Secret keys are stored only as this HMAC (keyed by the session secret): a leaked table authenticates no one. */
export function secretKeyHash(secret: string, key: string): string {
  return hmacHex(secret, `merchant-secret-key:${key}`);
}

const SECRET_KEY_RE = /^sk_(test|live)_[A-Za-z0-9]{24,99}$/;

export async function merchantForSecretKey(db: Db, secret: string, key: string): Promise<MerchantRow | null> {
  if (!SECRET_KEY_RE.test(key)) return null;
  const m = await firstRow(db, schema.merchants, eq(schema.merchants.secretKeyHash, secretKeyHash(secret, key)));
  // The key's mode must match the merchant's environment (it always does for keys bpay made; belt and braces).
  if (!m || (key.startsWith('sk_live_') ? 'production' : 'sandbox') !== m.environment) return null;
  return m;
}

/** The merchant authenticated for a request (set before validation, read when the handler's context is built). */
const authenticated = new WeakMap<Request, MerchantRow>();

/**
 * `{ merchant: true }` on a route authenticates `Authorization: Bearer sk_…` and resolves the merchant and its
 * mode (livemode = production). Every request is counted; the per-second limit and the owner's plan's monthly
 * allowance answer 429 rate_limit_error with Retry-After. Session cookies mean nothing here.
 *
 * This happens in the transform stage, before the body and query are validated, as Stripe does: a request without
 * a valid key learns nothing about the API's parameters (401, not a validation error), and a malformed request
 * still counts against the merchant's limits.
 */
export function merchantAuthPlugin(deps: AppDeps) {
  return new Elysia({ name: 'bpay-merchant-auth' }).macro({
    merchant: {
      async transform({ request }) {
        const header = request.headers.get('authorization') ?? '';
        const m = /^Bearer\s+(\S+)$/i.exec(header);
        const merchant = m?.[1] ? await merchantForSecretKey(deps.db, deps.session.secret, m[1]) : null;
        if (!merchant) throw new AppError('invalid_api_key');
        if (!merchant.isActive) throw new AppError('merchant_inactive');
        await recordApiRequest(deps, merchant);
        authenticated.set(request, merchant);
      },
      resolve({ request }) {
        const merchant = authenticated.get(request);
        // Unreachable: transform ran for this route and threw or set it.
        if (!merchant) throw new AppError('invalid_api_key');
        return { merchant, livemode: merchant.environment === 'production' };
      },
    },
  });
}
