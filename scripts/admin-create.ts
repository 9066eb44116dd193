/**
 * Adds an admin: `bun run admin:create --username alice [--password '...'] [--totp-secret BASE32]`.
 * Uses the server's configuration (BPAY_DATABASE_URL, BPAY_SESSION_SECRET / _FILE: the TOTP secret is sealed with
 * a key derived from the session secret, so it must be the server's). Without --password it asks for one on a
 * terminal (empty = generate) or generates one; a generated password and the TOTP secret and otpauth:// URI are
 * printed once.
 */
import { parseArgs } from 'node:util';
import { migrateDb, openDb } from '@bpay/db';
import { EnvError, parseEnv } from '../api/src/env';
import { systemClock } from '../api/src/lib/clock';
import { deriveKey } from '../api/src/lib/crypto';
import { createAdmin } from '../api/src/modules/admin/accounts';
import { AppError } from '../api/src/errors';
import { privateUmask } from '@bpay/db/file-modes';

// It may create the database and the session-secret file: 0600 (folders 0700), as the server would.
privateUmask();

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    username: { type: 'string' },
    password: { type: 'string' },
    'totp-secret': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
  strict: true,
});

if (values.help || !values.username) {
  console.log('Usage: bun run admin:create --username <name> [--password <password>] [--totp-secret <base32>]');
  process.exit(values.help ? 0 : 2);
}

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

let password = values.password;
if (password === undefined && process.stdin.isTTY) {
  const typed = prompt('Password (at least 12 characters; empty to generate one):');
  if (typed) password = typed;
}

const handle = openDb({ url: env.databaseUrl, authToken: env.databaseAuthToken });
try {
  await migrateDb(handle.db);
  const created = await createAdmin(
    { db: handle.db, clock: systemClock, totpKey: deriveKey(env.sessionSecret, 'totp-secrets') },
    { username: values.username, password, totpSecret: values['totp-secret'] },
  );
  console.log(`Admin "${created.username}" created.`);
  if (created.generatedPassword) console.log(`Password (shown once): ${created.generatedPassword}`);
  if (!values['totp-secret']) {
    console.log(`TOTP secret (shown once): ${created.totpSecret}`);
    console.log(`Authenticator URI: ${created.otpauthUri}`);
  }
} catch (e) {
  if (e instanceof AppError) {
    console.error(e.message);
    process.exitCode = 1;
  } else throw e;
} finally {
  handle.close();
}
