import { ApiError } from '../../../src/lib/api';
import {
  createExtensionClient,
  failureOf,
  type FetchLike,
  TOKEN_INVALID,
  type CollectionProgress,
  type CreateExtensionBcardBody,
  type ExtensionBcard,
  type FundingSource,
} from './api';
import { STORAGE } from './config';
import type { ApiFailure, Connection, FillCard, Result } from './protocol';

/*
 * The background's dealings with bpay: pairing, the Bearer token, and the calls the popup asks for. The token lives
 * in chrome.storage.local only (under STORAGE.pairing) and is read here alone: never sent to a page, a content
 * script or the popup, never logged. A 401 extension_token_invalid on any call forgets it and marks the browser
 * disconnected, which the popup explains.
 */

/** The part of chrome.storage.local this needs (a fake in tests). */
export interface KeyValueStore {
  get(keys: string | string[]): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string | string[]): Promise<void>;
}

export interface Pairing {
  token: string;
  id: string;
  label: string;
  expiresAt: string;
  /** The origin the token belongs to: a token is never sent to another. */
  origin: string;
}

function isPairing(v: unknown): v is Pairing {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  return ['token', 'id', 'label', 'expiresAt', 'origin'].every((k) => typeof p[k] === 'string');
}

/**
 * How long a call may take before it counts as unanswered (status 0): a slow or silent network must not leave the
 * popup waiting for ever. Creating a bcard holds every share at its issuer first, so it gets longer; resending it
 * after a timeout reuses its Idempotency-Key, so the server answers the first attempt's outcome.
 */
export const CALL_TIMEOUT_MS = 20_000;
export const CREATE_TIMEOUT_MS = 60_000;
export interface SessionDeps {
  store: KeyValueStore;
  origin(): Promise<string>;
  fetch?: FetchLike;
  /** Call and create timeouts (tests shorten them). */
  timeouts?: { call: number; create: number };
}

export function createSession({ store, origin, fetch: fetchImpl, timeouts = { call: CALL_TIMEOUT_MS, create: CREATE_TIMEOUT_MS } }: SessionDeps) {
  const timeout = (ms = timeouts.call) => AbortSignal.timeout(ms);

  /** The stored pairing, when it belongs to the origin in use. */
  async function pairing(): Promise<Pairing | null> {
    const got = await store.get(STORAGE.pairing);
    const p = got[STORAGE.pairing];
    return isPairing(p) && p.origin === (await origin()) ? p : null;
  }

  async function client() {
    return createExtensionClient(await origin(), async () => (await pairing())?.token ?? null, fetchImpl);
  }

  /** Runs a Bearer call; a 401 extension_token_invalid forgets the token (whichever call met it). */
  async function authed<T>(call: (c: Awaited<ReturnType<typeof client>>) => Promise<T>): Promise<Result<T>> {
    if (!(await pairing())) return { ok: false, error: notConnected() };
    try {
      return { ok: true, value: await call(await client()) };
    } catch (error) {
      if (error instanceof ApiError && error.status === 401 && error.code === TOKEN_INVALID) await forget(true);
      return { ok: false, error: failureOf(error) };
    }
  }

  async function forget(disconnected: boolean): Promise<void> {
    await store.remove(STORAGE.pairing);
    await store.set({ [STORAGE.disconnected]: disconnected });
  }

  return {
    pairing,
    forget,

    /**
     * Whether this browser is connected. With `verify`, a stored token is checked against bpay (GET
     * /api/extension/me): one revoked in Settings -> Connected browsers, or expired, is forgotten now, so the popup
     * says so as it opens. No answer (offline) leaves it as it is: the next call will tell.
     */
    async connection(verify = false): Promise<Connection> {
      let feePercentage: number | null = null;
      if (verify && (await pairing())) {
        const me = await authed(async (c) => (await c.GET('/api/extension/me', { signal: timeout() })).data);
        if (me.ok && me.value) feePercentage = me.value.feePercentage;
      }
      const p = await pairing();
      const got = await store.get(STORAGE.disconnected);
      return {
        origin: await origin(),
        paired: p ? { label: p.label, expiresAt: p.expiresAt } : null,
        feePercentage,
        disconnected: !p && got[STORAGE.disconnected] === true,
      };
    },

    /** POST /api/extension/tokens with the one-time code the connect page handed over; stores the token. */
    async pair(code: string): Promise<Result<{ label: string }>> {
      const at = await origin();
      try {
        const c = await client();
        const { data } = await c.POST('/api/extension/tokens', { body: { code }, signal: timeout() });
        if (!data) return { ok: false, error: { status: 0, code: null, message: 'Empty answer' } };
        const stored: Pairing = { token: data.token, id: data.id, label: data.label, expiresAt: data.expiresAt, origin: at };
        await store.set({ [STORAGE.pairing]: stored, [STORAGE.disconnected]: false });
        return { ok: true, value: { label: data.label } };
      } catch (error) {
        return { ok: false, error: failureOf(error) };
      }
    },

    fundingSources(): Promise<Result<FundingSource[]>> {
      return authed(async (c) => (await c.GET('/api/extension/funding-sources', { signal: timeout() })).data ?? []);
    },

    /** POST /api/extension/bcards under the caller's Idempotency-Key (the same key for a resent attempt). */
    createBcard(body: CreateExtensionBcardBody, key: string): Promise<Result<ExtensionBcard>> {
      return authed(async (c) => {
        const { data } = await c.POST('/api/extension/bcards', { body, params: { header: { 'idempotency-key': key } }, signal: timeout(timeouts.create) });
        if (!data) throw new Error('Empty answer');
        return data;
      });
    },

    progress(key: string): Promise<Result<CollectionProgress>> {
      return authed(async (c) => {
        const { data } = await c.GET('/api/extension/bcards/progress', { params: { query: { key } }, signal: timeout() });
        if (!data) throw new Error('Empty answer');
        return data;
      });
    },

    /**
     * The card to fill, from the reveal endpoint (each call is recorded by bpay). The answer is returned to the
     * caller only, which sends it to the frames and drops it; it is never stored.
     */
    checkoutCard(bcardId: string): Promise<Result<FillCard>> {
      return authed(async (c) => {
        const { data } = await c.GET('/api/extension/bcards/{id}/checkout-details', { params: { path: { id: bcardId } }, signal: timeout() });
        if (!data) throw new Error('Empty answer');
        return { number: data.cardNumber, expMonth: data.expiryMonth, expYear: data.expiryYear, cvc: data.cvv, name: data.cardholderName };
      });
    },
  };
}

export type Session = ReturnType<typeof createSession>;

function notConnected(): ApiFailure {
  return { status: 401, code: 'not_connected', message: 'This browser is not connected to bpay.' };
}
