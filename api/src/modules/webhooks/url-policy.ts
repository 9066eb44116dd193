import { AppError, invalid } from '../../errors';
import { classifyAddress, isIpLiteral } from './address';

/** Resolves a host name to every address it has (dns.promises.lookup(host, { all: true }) by default). */
export type HostResolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

export const MAX_URL_LENGTH = 2048;
const RESOLVE_TIMEOUT_MS = 5000;

const refuse = (message: string) => new AppError('url_not_allowed', message, 'url');

async function resolveWithTimeout(resolve: HostResolver, host: string, timeoutMs: number): Promise<Array<{ address: string }>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('DNS lookup timed out')), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where a delivery goes: the URL, and the address its host was checked at. */
export interface WebhookTarget {
  /** The URL, normalised. */
  url: string;
  /**
   * Every address that passed the rules, in the resolver's order: the delivery connects to these and to nothing
   * else (never resolving the name again, so DNS that changes between the check and the connection cannot send it
   * elsewhere). Empty when no rule applies (sandbox with local targets allowed): the name is connected to as is.
   */
  addresses: string[];
}

/**
 * Parses a webhook URL and applies the mode's rules; returns it normalised. Any mode: an absolute http(s) URL
 * without user or password. Production: https only, and the host (a name is resolved; every address counts) must
 * be a public unicast address. Sandbox allows http, and local addresses too when `sandboxLocal` (the default: a
 * developer's own install); without it a sandbox host must be public as well.
 * Fails with: validation_error (not an http(s) URL), url_not_allowed (the mode's rules).
 */
export async function checkWebhookUrl(
  raw: string,
  opts: { production: boolean; sandboxLocal?: boolean; resolveHost: HostResolver; resolveTimeoutMs?: number },
): Promise<string> {
  return (await resolveWebhookTarget(raw, opts)).url;
}

/**
 * checkWebhookUrl, answering also the addresses it checked (WebhookTarget): what a delivery connects to.
 * Fails with: validation_error, url_not_allowed.
 */
export async function resolveWebhookTarget(
  raw: string,
  opts: { production: boolean; sandboxLocal?: boolean; resolveHost: HostResolver; resolveTimeoutMs?: number },
): Promise<WebhookTarget> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid('url', 'url must be an absolute http(s) URL such as https://shop.example/webhooks.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid('url', 'url must be an http(s) URL such as https://shop.example/webhooks.');
  }
  if (url.username || url.password) throw invalid('url', 'url must not carry a user name or password.');
  const normalised = url.toString();
  if (normalised.length > MAX_URL_LENGTH) throw invalid('url', `url must be at most ${MAX_URL_LENGTH} characters.`);
  if (!opts.production && (opts.sandboxLocal ?? true)) return { url: normalised, addresses: [] };

  const mode = opts.production ? 'in production' : 'on this server';
  if (opts.production && url.protocol !== 'https:') throw refuse('Webhook URLs in production must use https.');
  const host = url.hostname.replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) throw refuse(`The host ${host} is this machine.`);
  let addresses: string[];
  if (isIpLiteral(host)) addresses = [host.startsWith('[') ? host.slice(1, -1) : host];
  else {
    try {
      addresses = (await resolveWithTimeout(opts.resolveHost, host, opts.resolveTimeoutMs ?? RESOLVE_TIMEOUT_MS)).map((a) => a.address);
    } catch {
      throw refuse(`The host ${host} could not be resolved.`);
    }
    if (addresses.length === 0) throw refuse(`The host ${host} could not be resolved.`);
  }
  for (const a of addresses) {
    const kind = classifyAddress(a);
    if (kind !== 'public') {
      throw refuse(
        `Webhook URLs ${mode} may not point to loopback, private, link-local or reserved addresses ` +
          `(${host} is ${kind.replace('_', '-')}${a === host || `[${a}]` === host ? '' : `: ${a}`}).`,
      );
    }
  }
  return { url: normalised, addresses };
}
