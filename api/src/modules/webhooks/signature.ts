import { constantTimeEqual, hmacHex } from '../../lib/crypto';

/*
 * Webhook signatures, as Stripe's: `Bpay-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * The key is the whole `whsec_…` string. The timestamp is signed too, so a captured delivery cannot be replayed
 * later than the receiver's tolerance.
 */
/** The User-Agent of every delivery. */
export const USER_AGENT = 'bpay-webhooks/1';

export const SIGNATURE_HEADER = 'Bpay-Signature';
/**
 * The same value again under Stripe's name, on every delivery: a receiver written for Stripe reads
 * `stripe-signature` and verifies with `stripe.webhooks.constructEvent` unchanged (issue 28).
 */
export const STRIPE_SIGNATURE_HEADER = 'Stripe-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function computeSignature(secret: string, timestamp: number, rawBody: string): string {
  return hmacHex(secret, `${timestamp}.${rawBody}`);
}

/**
 * The header value for a body sent at `timestamp` (unix seconds). Several secrets (the new one first, then the one a
 * roll replaced, while its grace lasts) give one `v1=` each, as Stripe's header does during a roll: a receiver that
 * holds either secret finds its match, since verifiers accept any of the `v1` values.
 */
export function signatureHeader(secret: string | readonly string[], rawBody: string, timestamp: number): string {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${computeSignature(s, timestamp, rawBody)}`)].join(',');
}

export function parseSignatureHeader(header: string): { timestamp: number | null; signatures: string[] } {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && value) signatures.push(value);
  }
  return { timestamp, signatures };
}

/**
 * What a receiver does: true only when the header carries a timestamp within `toleranceSeconds` of now and a v1
 * signature equal (compared in constant time) to the HMAC of exactly these bytes.
 */
export function verifySignature(
  rawBody: string,
  header: string | null | undefined,
  secret: string,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): boolean {
  if (!header) return false;
  const { timestamp, signatures } = parseSignatureHeader(header);
  if (timestamp === null || signatures.length === 0) return false;
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = computeSignature(secret, timestamp, rawBody);
  // Check every candidate (no early exit) so the time taken says nothing about which one matched.
  let ok = false;
  for (const s of signatures) ok = constantTimeEqual(s, expected) || ok;
  return ok;
}
