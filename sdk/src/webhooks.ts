/*
 * Verifying webhook deliveries, as Stripe's: `Bpay-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
 * "<t>.<raw body>")>` (api/src/modules/webhooks/signature.ts). The key is the whole `whsec_…` string. Verify the
 * raw bytes you received, before any JSON parsing: a re-serialised body would not match.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BpayWebhookSignatureError } from './errors';
import type { BpayEvent } from './types';

export const SIGNATURE_HEADER = 'Bpay-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

const toText = (raw: string | Uint8Array): string => (typeof raw === 'string' ? raw : new TextDecoder().decode(raw));

function sign(secret: string, timestamp: number, payload: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
}

function parseHeader(header: string): { timestamp: number | null; signatures: string[] } {
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
 * Verifies a delivery and answers its event. Throws BpayWebhookSignatureError when the header is missing or
 * malformed, its timestamp is more than `toleranceSeconds` from now (a replay), no `v1` signature matches the HMAC
 * of exactly these bytes (compared in constant time; several `v1` are allowed), or the verified body is not JSON.
 */
function constructEvent(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
): BpayEvent {
  if (!secret) throw new BpayWebhookSignatureError('No webhook signing secret was given');
  if (!signatureHeader) throw new BpayWebhookSignatureError(`No ${SIGNATURE_HEADER} header`);
  const { timestamp, signatures } = parseHeader(signatureHeader);
  if (timestamp === null) throw new BpayWebhookSignatureError(`The ${SIGNATURE_HEADER} header has no timestamp (t=…)`);
  if (signatures.length === 0) throw new BpayWebhookSignatureError(`The ${SIGNATURE_HEADER} header has no v1 signature`);
  const payload = toText(rawBody);
  const expected = Buffer.from(sign(secret, timestamp, payload), 'utf8');
  // Check every candidate (no early exit), comparing equal-length buffers in constant time.
  let matched = false;
  for (const s of signatures) {
    const candidate = Buffer.from(s, 'utf8');
    const same = candidate.length === expected.length && timingSafeEqual(candidate, expected);
    matched = same || matched;
  }
  if (!matched) throw new BpayWebhookSignatureError('No signature matches the payload: is the secret right, and is this the raw body?');
  const age = Math.floor(Date.now() / 1000) - timestamp;
  if (Math.abs(age) > toleranceSeconds) {
    throw new BpayWebhookSignatureError(`The timestamp is outside the tolerance (${age} s old, tolerance ${toleranceSeconds} s)`);
  }
  let event: unknown;
  try {
    event = JSON.parse(payload);
  } catch {
    throw new BpayWebhookSignatureError('The signed payload is not JSON');
  }
  if (event === null || typeof event !== 'object' || (event as { object?: unknown }).object !== 'event') {
    throw new BpayWebhookSignatureError('The signed payload is not a bpay event');
  }
  return event as BpayEvent;
}

/** A valid header for `payload` (for your tests): `t=<timestamp>,v1=<signature>`; timestamp defaults to now. */
function generateTestHeader(args: { payload: string | Uint8Array; secret: string; timestamp?: number }): string {
  const timestamp = args.timestamp ?? Math.floor(Date.now() / 1000);
  return `t=${timestamp},v1=${sign(args.secret, timestamp, toText(args.payload))}`;
}

export const webhooks = { constructEvent, generateTestHeader, SIGNATURE_HEADER, DEFAULT_TOLERANCE_SECONDS } as const;
export type Webhooks = typeof webhooks;
