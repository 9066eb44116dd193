/*
 * The /extension/connect page's state, as a reducer over what happens (pure, so every path is tested):
 *
 * - whether the extension's bridge answered: 'detecting' until it says 'ready' or DETECT_TIMEOUT_MS pass
 *   ('missing': the page shows how to install it); a late 'ready' still counts;
 * - the connection: idle -> requesting (POST /api/extension/pairings) -> handing-over (the code posted to the
 *   extension, waiting for its 'paired') -> connected, or error (the API's or the extension's message, or no answer
 *   within PAIRED_TIMEOUT_MS). From an error the user may try again.
 */

/** How long the page waits for the bridge's 'ready' before saying the extension is not there. */
export const DETECT_TIMEOUT_MS = 1500;
/** How long it waits for 'paired' after handing the code over (the code itself is valid for two minutes). */
export const PAIRED_TIMEOUT_MS = 20_000;

export type Presence = 'detecting' | 'missing' | 'present';

export type ConnectError =
  /** The pairing request failed; `message` is the server's, when it gave one. */
  | { reason: 'api'; message: string | null }
  /** The extension answered 'paired' with ok: false. */
  | { reason: 'extension'; message: string | null }
  /** The extension did not answer in time. */
  | { reason: 'timeout'; message: null };

export type Step =
  | { kind: 'idle' }
  | { kind: 'requesting' }
  | { kind: 'handing-over' }
  | { kind: 'connected'; label: string | null }
  | { kind: 'error'; error: ConnectError };

export interface ConnectState {
  presence: Presence;
  step: Step;
}

export type ConnectEvent =
  | { type: 'ready' }
  | { type: 'detect-timeout' }
  | { type: 'start' }
  | { type: 'pairing-created' }
  | { type: 'pairing-failed'; message: string | null }
  | { type: 'paired'; ok: boolean; label: string | null; message: string | null }
  | { type: 'paired-timeout' };

export const initialConnectState: ConnectState = { presence: 'detecting', step: { kind: 'idle' } };

const busy = (step: Step) => step.kind === 'requesting' || step.kind === 'handing-over';

export function connectReducer(state: ConnectState, event: ConnectEvent): ConnectState {
  switch (event.type) {
    case 'ready':
      return state.presence === 'present' ? state : { ...state, presence: 'present' };
    case 'detect-timeout':
      return state.presence === 'detecting' ? { ...state, presence: 'missing' } : state;
    case 'start':
      // Only with the extension there, and not twice at once, nor after it is done.
      if (state.presence !== 'present' || busy(state.step) || state.step.kind === 'connected') return state;
      return { ...state, step: { kind: 'requesting' } };
    case 'pairing-created':
      return state.step.kind === 'requesting' ? { ...state, step: { kind: 'handing-over' } } : state;
    case 'pairing-failed':
      return state.step.kind === 'requesting' ? { ...state, step: { kind: 'error', error: { reason: 'api', message: event.message } } } : state;
    case 'paired':
      // A 'paired' nobody asked for (another tab's, a replay) changes nothing.
      if (state.step.kind !== 'handing-over') return state;
      return {
        ...state,
        step: event.ok ? { kind: 'connected', label: event.label } : { kind: 'error', error: { reason: 'extension', message: event.message } },
      };
    case 'paired-timeout':
      return state.step.kind === 'handing-over' ? { ...state, step: { kind: 'error', error: { reason: 'timeout', message: null } } } : state;
  }
}

/** Whether "Connect this browser" can be pressed. */
export function canConnect(state: ConnectState): boolean {
  return state.presence === 'present' && !busy(state.step) && state.step.kind !== 'connected';
}

/** Whether a request is in flight (the button shows a spinner). */
export function isConnecting(state: ConnectState): boolean {
  return busy(state.step);
}
