import { randomBytes } from 'node:crypto';

/** Prefixed, unguessable ids in the Stripe style: `usr_4f9c...`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** A 256-bit random token, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}
