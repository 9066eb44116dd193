import type { Db } from '@bpay/db';
import type { Clock } from './lib/clock';
import { deriveKey } from './lib/crypto';
import type { Logger } from './lib/logger';
import type { SessionConfig } from './modules/auth/sessions';

/** Everything the app needs from outside, passed in explicitly so tests can build an app on a temporary database. */
export interface AppDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  session: SessionConfig;
  publicUrl: URL;
  trustProxy: boolean;
  /** AES key sealing TOTP secrets at rest, derived from the session secret. */
  totpKey: Buffer;
}

export function buildDeps(input: {
  db: Db;
  clock: Clock;
  log: Logger;
  sessionSecret: string;
  sessionTtlMs: number;
  publicUrl: URL;
  trustProxy: boolean;
}): AppDeps {
  return {
    db: input.db,
    clock: input.clock,
    log: input.log,
    session: {
      secret: input.sessionSecret,
      ttlMs: input.sessionTtlMs,
      secure: input.publicUrl.protocol === 'https:',
    },
    publicUrl: input.publicUrl,
    trustProxy: input.trustProxy,
    totpKey: deriveKey(input.sessionSecret, 'totp-secrets'),
  };
}
