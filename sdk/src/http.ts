/*
 * What Bpay and BpayAdmin share: options, an openapi-fetch client whose every request goes through the
 * transport (idempotency, timeout, retries), and turning an answer into its data or a typed error.
 */
import createClient, { type Client } from 'openapi-fetch';
import { BpayAPIError, errorFromResponse } from './errors';
import type { paths } from './schema';
import { defaultSleep, send, type FetchLike, type RequestOptions, type Sleep, type TransportConfig } from './transport';

export const DEFAULT_BASE_URL = 'http://localhost:3000';
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;

export interface ClientOptions {
  /** The server's origin (default http://localhost:3000); paths such as /api/v1/… are appended. */
  baseUrl?: string;
  /** Per attempt (default 30000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Replaces the global fetch (tests, proxies, instrumentation). Called with a Request, once per attempt. */
  fetch?: FetchLike;
  /** Waits between retries (default setTimeout); tests inject one to assert delays without waiting. */
  sleep?: Sleep;
  /** The jitter source, in [0, 1) (default Math.random). */
  random?: () => number;
}

export interface Http {
  readonly baseUrl: string;
  readonly config: TransportConfig;
  readonly api: Client<paths>;
  /** The fetch option for one openapi-fetch call: the transport with this call's options. */
  via(opts?: RequestOptions): { fetch: FetchLike };
}

export function createHttp(authorization: string, options: ClientOptions): Http {
  const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const config: TransportConfig = {
    fetch: options.fetch ?? ((req) => fetch(req)),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
  };
  const api = createClient<paths>({ baseUrl, headers: { authorization, accept: 'application/json' } });
  return {
    baseUrl,
    config,
    api,
    via: (opts = {}) => ({ fetch: (req: Request) => send(config, req, opts) }),
  };
}

/** The data of a successful answer; a typed BpayError otherwise. */
export async function unwrap<D>(pending: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await pending;
  if (!response.ok) throw errorFromResponse(response.status, response.headers, error ?? null);
  if (data === undefined) {
    throw new BpayAPIError({
      message: `The API answered ${response.status} without a body`,
      type: 'api_error',
      statusCode: response.status,
      requestId: response.headers.get('request-id') ?? undefined,
      headers: response.headers,
    });
  }
  return data;
}
