/**
 * The one way the SPA talks to the API. Sends cookies, sends JSON, and turns a non-OK answer into an ApiError
 * whose message is `<status>: <body or status text>` (the spec's contract); `serverMessage` is the catalogue's
 * human message when the body is a bpay error.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
    /** Retry-After in whole seconds, when the answer had one (429s, 503s): how long to wait before trying again. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
  get serverMessage(): string | undefined {
    const e = (this.body as { error?: { message?: unknown } } | null)?.error;
    return typeof e?.message === 'string' ? e.message : undefined;
  }
  get code(): string | undefined {
    const e = (this.body as { error?: { code?: unknown } } | null)?.error;
    return typeof e?.code === 'string' ? e.code : undefined;
  }
  get errorType(): string | undefined {
    const e = (this.body as { error?: { type?: unknown } } | null)?.error;
    return typeof e?.type === 'string' ? e.type : undefined;
  }
}

async function throwIfNotOk(res: Response): Promise<void> {
  if (res.ok) return;
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  throw new ApiError(res.status, `${res.status}: ${text || res.statusText}`, body, retryAfterSeconds(res.headers.get('retry-after')));
}

/** Retry-After as seconds: a number of seconds, or an HTTP date from now; null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const v = header.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

export interface RequestOptions {
  /** The tiers call is made without credentials. */
  credentials?: RequestCredentials;
}

/** An answer's body together with its headers (for lists that page with a response header). */
export interface ApiResponse<T> {
  data: T;
  headers: Headers;
}

/**
 * Like apiRequest, but also gives the response headers. `headers` are extra request headers (for example an
 * `Idempotency-Key`); they cannot replace the JSON content headers.
 */
export async function apiRequestWithHeaders<T = unknown>(
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
  headers?: Record<string, string>,
): Promise<ApiResponse<T>> {
  const res = await fetch(path, {
    method,
    credentials: opts.credentials ?? 'include',
    headers: {
      ...headers,
      ...(body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json', accept: 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await throwIfNotOk(res);
  const text = await res.text();
  return { data: (text ? JSON.parse(text) : null) as T, headers: res.headers };
}

export async function apiRequest<T = unknown>(
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
  headers?: Record<string, string>,
): Promise<T> {
  return (await apiRequestWithHeaders<T>(method, path, body, opts, headers)).data;
}

/** Binary content (a document to preview): same error contract as apiRequest, without cookies unless asked. */
export async function apiBlob(path: string, headers?: Record<string, string>, opts: RequestOptions = {}): Promise<Blob> {
  const res = await fetch(path, { method: 'GET', credentials: opts.credentials ?? 'omit', headers });
  await throwIfNotOk(res);
  return res.blob();
}

/** The human message to show for a failure: the server's message when it sent one. */
export function messageOf(error: unknown): string | undefined {
  if (error instanceof ApiError) return error.serverMessage ?? error.message;
  if (error instanceof Error) return error.message;
  return undefined;
}
