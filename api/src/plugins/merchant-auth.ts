import { eq, or, sql } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { schema, type Db, firstRow, prepared } from '@bpay/db';
import type { AppDeps } from '../deps';
import { AppError } from '../errors';
import { expandableAt, refuseExpand } from '../lib/expand';
import { secretKeyHash } from '../modules/merchants/service';
import { recordApiRequest } from '../modules/merchants/usage';

type MerchantRow = typeof schema.merchants.$inferSelect;

const SECRET_KEY_RE = /^sk_(test|live)_[A-Za-z0-9]{24,99}$/;
const PUBLISHABLE_KEY_RE = /^pk_(test|live)_[A-Za-z0-9]{24,99}$/;

/**
 * How a key is shown in an error: its mode prefix and last 4 characters, never more (Stripe shows the same). The
 * key may be anything a client sent (HTTP Basic's user name can hold any character): a last character that is not a
 * letter or digit is written as \uXXXX, so no control, line-break or bidi character reaches a message or a log.
 */
export function maskedKey(key: string): string {
  const m = /^(sk|pk)_(test|live)_/.exec(key);
  if (!m) return 'this key';
  // Per UTF-16 unit (no u flag): half of a surrogate pair is escaped too, never left dangling.
  const tail = key.slice(-4).replace(/[^A-Za-z0-9_]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
  return `${m[0]}••••${tail}`;
}

const AUTH_HELP =
  'Send your secret key as Authorization: Bearer sk_test_… (or sk_live_…), or as HTTP Basic with the key as the user ' +
  'name and an empty password (curl -u sk_test_…:).';

/**
 * The key a request authenticates with, from `Authorization: Bearer <key>` or `Authorization: Basic base64(<key>:)`
 * (Stripe's two forms: curl -u sk_…: sends the second). Anything else is answered 401 with what was wrong with it.
 */
export function keyFromAuthorization(header: string | null): string {
  if (header === null || header.trim() === '') throw new AppError('invalid_api_key', `No API key provided. ${AUTH_HELP}`);
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1]!;
  const scheme = /^(Bearer|Basic)\s+\S+\s+\S/i.exec(header)?.[1];
  if (scheme) {
    const form = scheme.toLowerCase() === 'bearer' ? 'Bearer <secret key>' : 'Basic <base64 of "<secret key>:">';
    throw new AppError('invalid_api_key', `The Authorization header must be ${form} with nothing after the key. ${AUTH_HELP}`);
  }
  const basic = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!basic) {
    const scheme = /^(\S+)\s/.exec(header)?.[1];
    throw new AppError(
      'invalid_api_key',
      scheme && /^[A-Za-z-]{1,20}$/.test(scheme)
        ? `The Authorization scheme ${scheme} is not supported. ${AUTH_HELP}`
        : `The Authorization header must name its scheme (Bearer or Basic) before the key. ${AUTH_HELP}`,
    );
  }
  const encoded = basic[1]!;
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0 ? Buffer.from(encoded, 'base64').toString('utf8') : null;
  const colon = decoded?.indexOf(':') ?? -1;
  if (decoded === null || colon < 0) {
    throw new AppError('invalid_api_key', `Malformed HTTP Basic credentials: expected base64 of "<secret key>:" (the key as the user name, then a colon and an empty password). ${AUTH_HELP}`);
  }
  const user = decoded.slice(0, colon);
  if (user === '') {
    throw new AppError('invalid_api_key', `HTTP Basic credentials with an empty user name: give your secret key as the user name and leave the password empty (curl -u sk_test_…:).`);
  }
  return user;
}

/**
 * Why merchant `m` (found by the key's hash, or by id) does not take the key at `now`, or null when it does: the key
 * must be its current one, or the one it replaced while that one's grace period after a roll lasts
 * (previous_secret_key_expires_at, strictly later than now), and of the merchant's mode.
 */
function keyRefusal(m: MerchantRow | undefined, key: string, hash: string, now: Date): AppError | null {
  // The key's mode must match the merchant's environment (it always does for keys bpay made; belt and braces).
  if (!m || (key.startsWith('sk_live_') ? 'production' : 'sandbox') !== m.environment || (m.secretKeyHash !== hash && m.previousSecretKeyHash !== hash)) {
    return new AppError('invalid_api_key', `Invalid API key provided: ${maskedKey(key)}. ${AUTH_HELP}`);
  }
  if (m.secretKeyHash === hash) return null;
  const until = m.previousSecretKeyExpiresAt;
  if (until && until.getTime() > now.getTime()) return null;
  return expiredKey(key, m.secretKeyRolledAt, until);
}

/** api_key_expired for a key a roll replaced: says so, and when (the roll, and the end of its grace). */
function expiredKey(key: string, replacedAt: Date | null, stoppedAt: Date | null): AppError {
  const when = [replacedAt ? ` at ${replacedAt.toISOString()}` : '', stoppedAt ? ` and stopped working at ${stoppedAt.toISOString()}` : ''].join('');
  return new AppError('api_key_expired', `Expired API key provided: ${maskedKey(key)}. It was replaced by a roll${when}; use the current secret key.`);
}

/**
 * A key that is neither a merchant's current nor its previous one may still be one a roll replaced earlier (pushed out
 * of the previous slot by a later roll): retired_secret_keys remembers its hash, and it is answered api_key_expired.
 */
async function retiredKeyRefusal(db: Db, key: string, hash: string): Promise<AppError | null> {
  const r = await firstRow(db, schema.retiredSecretKeys, eq(schema.retiredSecretKeys.keyHash, hash));
  return r ? expiredKey(key, r.replacedAt, r.stoppedAt) : null;
}

/** The merchant whose current or previous secret key has this hash (built once: db/prepared.ts). */
const merchantByKeyHash = prepared((db) =>
  db
    .select()
    .from(schema.merchants)
    .where(or(eq(schema.merchants.secretKeyHash, sql.placeholder('hash')), eq(schema.merchants.previousSecretKeyHash, sql.placeholder('hash'))))
    .limit(1)
    .prepare(),
);

/**
 * The merchant a secret key belongs to: its current key, or the key it replaced while that one's grace period after
 * a roll lasts (previous_secret_key_expires_at, strictly later than now). Fails with: invalid_api_key (no such key, or
 * a publishable key: 403 secret_key_required), api_key_expired (a rolled key whose grace is over, or that a later
 * roll replaced).
 */
export async function merchantForSecretKey(db: Db, secret: string, key: string, now: Date): Promise<MerchantRow> {
  if (PUBLISHABLE_KEY_RE.test(key)) {
    // A real publishable key (public by design) gets told what to use instead; an unknown one is just invalid.
    const pk = await firstRow(db, schema.merchants, eq(schema.merchants.publishableKey, key));
    if (pk) throw new AppError('secret_key_required');
  }
  if (!SECRET_KEY_RE.test(key)) throw new AppError('invalid_api_key', `Invalid API key provided: ${maskedKey(key)}. ${AUTH_HELP}`);
  const hash = secretKeyHash(secret, key);
  const m = await merchantByKeyHash(db).get({ hash });
  const refusal = keyRefusal(m, key, hash, now);
  if (refusal?.code === 'invalid_api_key') throw (await retiredKeyRefusal(db, key, hash)) ?? refusal;
  if (refusal || !m) throw refusal ?? new AppError('invalid_api_key');
  return m;
}

/**
 * For a request that stays open (the event stream, which authenticated once, at connect): a check to run again
 * while it lasts, that the key it came with still authenticates as merchantAuthPlugin would decide now: the merchant's
 * current key, or its previous one within the grace of a roll, and the merchant active. One primary-key lookup per
 * run. Resolves to the error a new request with the key would get (invalid_api_key after a second roll,
 * api_key_expired, merchant_inactive), or null while it still works.
 */
export function secretKeyRecheck(
  deps: Pick<AppDeps, 'db' | 'session' | 'clock'>,
  merchantId: string,
  request: Request,
): () => Promise<AppError | null> {
  // The header was accepted at connect (transform ran), so this parses; its hash is computed once.
  const key = keyFromAuthorization(request.headers.get('authorization'));
  const hash = secretKeyHash(deps.session.secret, key);
  return async () => {
    const m = await firstRow(deps.db, schema.merchants, eq(schema.merchants.id, merchantId));
    const refusal = keyRefusal(m, key, hash, deps.clock.now());
    if (refusal?.code === 'invalid_api_key') return (await retiredKeyRefusal(deps.db, key, hash)) ?? refusal;
    if (refusal) return refusal;
    return m?.isActive ? null : new AppError('merchant_inactive');
  };
}

/** The merchant authenticated for a request (set before validation, read when the handler's context is built). */
const authenticated = new WeakMap<Request, MerchantRow>();

/**
 * `{ merchant: true }` on a route authenticates the secret key (`Authorization: Bearer sk_…`, or HTTP Basic with the
 * key as the user name) and resolves the merchant and its mode (livemode = production). Every request is counted;
 * the per-second limit and the owner's plan's monthly allowance answer 429 rate_limit_error with Retry-After.
 * Session cookies mean nothing here.
 *
 * This happens in the transform stage, before the body and query are validated, as Stripe does: a request without
 * a valid key learns nothing about the API's parameters (401, not a validation error), and a malformed request
 * still counts against the merchant's limits. An `expand` is refused here too, with why (lib/expand.ts), before the
 * route's validation would refuse it by name only.
 */
export function merchantAuthPlugin(deps: AppDeps) {
  return new Elysia({ name: 'bpay-merchant-auth' }).macro({
    merchant: {
      async transform({ request, query, body }) {
        const key = keyFromAuthorization(request.headers.get('authorization'));
        const merchant = await merchantForSecretKey(deps.db, deps.session.secret, key, deps.clock.now());
        if (!merchant.isActive) throw new AppError('merchant_inactive');
        await recordApiRequest(deps, merchant);
        authenticated.set(request, merchant);
        refuseExpand(query, body, expandableAt(request.method, new URL(request.url).pathname));
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
