import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';

/*
 * The CLI's settings file: `$XDG_CONFIG_HOME/bpay/config.json` (else `~/.config/bpay/config.json`), one entry per
 * profile. It holds secret keys and admin tokens, so the folder is 0700 and the file 0600 — re-applied on every
 * write, even when the file existed with a wider mode — and it is replaced atomically (write a temporary file in
 * the same folder, fsync, rename), so a crash never leaves half a file.
 */

export const DEFAULT_BASE_URL = 'http://localhost:3000';
export const DEFAULT_PROFILE = 'default';

export interface Profile {
  apiKey?: string;
  baseUrl?: string;
  adminToken?: string;
  adminUsername?: string;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

/** The environment variables the CLI reads (passed in, so tests and the resolver stay pure). */
export type Env = Record<string, string | undefined>;

export function configPath(env: Env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || env.USERPROFILE || '.', '.config');
  return join(base, 'bpay', 'config.json');
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function toProfile(v: unknown): Profile {
  if (!isRecord(v)) return {};
  const p: Profile = {};
  if (typeof v.apiKey === 'string') p.apiKey = v.apiKey;
  if (typeof v.baseUrl === 'string') p.baseUrl = v.baseUrl;
  if (typeof v.adminToken === 'string') p.adminToken = v.adminToken;
  if (typeof v.adminUsername === 'string') p.adminUsername = v.adminUsername;
  return p;
}

export class ConfigError extends Error {}

/** Reads the file; a missing file is an empty config, an unreadable or malformed one an error naming the path. */
export function readConfig(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new ConfigError(`Cannot read ${path}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`${path} is not valid JSON. Fix it or delete it and run \`bpay login\` again.`);
  }
  const profiles: Record<string, Profile> = {};
  if (isRecord(parsed) && isRecord(parsed.profiles)) {
    for (const [name, p] of Object.entries(parsed.profiles)) profiles[name] = toProfile(p);
  }
  return { profiles };
}

/** Writes the whole file atomically with mode 0600 inside a 0700 folder. */
export function writeConfig(path: string, config: ConfigFile): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const tmp = join(dir, `.config.json.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(config, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    // The umask could have narrowed it further, never widened it; make it exactly 0600 before it becomes visible.
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  chmodSync(path, 0o600);
}

/** Reads, changes one profile (a field set to undefined is removed), writes. Returns the profile as stored. */
export function updateProfile(path: string, name: string, change: Partial<Record<keyof Profile, string | undefined>>): Profile {
  const config = readConfig(path);
  const next: Profile = { ...(config.profiles[name] ?? {}) };
  for (const [k, v] of Object.entries(change) as Array<[keyof Profile, string | undefined]>) {
    if (v === undefined) delete next[k];
    else next[k] = v;
  }
  if (Object.keys(next).length === 0) delete config.profiles[name];
  else config.profiles[name] = next;
  writeConfig(path, config);
  return next;
}

export interface GlobalFlags {
  apiKey?: string;
  baseUrl?: string;
  profile?: string;
}

export type Source = 'flag' | 'env' | 'profile' | 'default' | 'none';

export interface Resolved {
  profile: string;
  profileSource: Source;
  apiKey: string | null;
  apiKeySource: Source;
  baseUrl: string;
  baseUrlSource: Source;
  adminToken: string | null;
}

/**
 * The precedence rules (documented in `bpay --help`):
 *   profile:  --profile  > BPAY_PROFILE  > "default"
 *   key:      --api-key  > BPAY_API_KEY  > the profile's key
 *   base URL: --base-url > BPAY_BASE_URL > the profile's baseUrl > http://localhost:3000
 * Empty strings count as not given.
 */
export function resolveSettings(flags: GlobalFlags, env: Env, config: ConfigFile): Resolved {
  const given = (v: string | undefined): v is string => typeof v === 'string' && v.length > 0;
  const [profile, profileSource]: [string, Source] = given(flags.profile)
    ? [flags.profile, 'flag']
    : given(env.BPAY_PROFILE)
      ? [env.BPAY_PROFILE, 'env']
      : [DEFAULT_PROFILE, 'default'];
  const stored = config.profiles[profile] ?? {};
  const [apiKey, apiKeySource]: [string | null, Source] = given(flags.apiKey)
    ? [flags.apiKey, 'flag']
    : given(env.BPAY_API_KEY)
      ? [env.BPAY_API_KEY, 'env']
      : given(stored.apiKey)
        ? [stored.apiKey, 'profile']
        : [null, 'none'];
  const [baseUrl, baseUrlSource]: [string, Source] = given(flags.baseUrl)
    ? [flags.baseUrl, 'flag']
    : given(env.BPAY_BASE_URL)
      ? [env.BPAY_BASE_URL, 'env']
      : given(stored.baseUrl)
        ? [stored.baseUrl, 'profile']
        : [DEFAULT_BASE_URL, 'default'];
  return {
    profile,
    profileSource,
    apiKey,
    apiKeySource,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    baseUrlSource,
    adminToken: given(stored.adminToken) ? stored.adminToken : null,
  };
}

/** `sk_test_…abcd`: enough to recognise a key without showing it. */
export function maskKey(key: string): string {
  const m = /^(sk_(?:test|live)_|pk_(?:test|live)_)/.exec(key);
  const prefix = m ? m[1]! : '';
  return `${prefix}…${key.slice(-4)}`;
}

export const isLiveKey = (key: string) => key.startsWith('sk_live_');
