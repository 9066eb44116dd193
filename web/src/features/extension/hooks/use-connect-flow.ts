import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { messageOf } from '../../../lib/api';
import { createPairingRequest, EXTENSION_TOKENS_QUERY_KEY } from '../api';
import { helloMessage, pairMessage, readExtensionMessage } from '../bridge-protocol';
import {
  canConnect,
  connectReducer,
  DETECT_TIMEOUT_MS,
  initialConnectState,
  PAIRED_TIMEOUT_MS,
  type ConnectState,
} from '../connect-state';

/**
 * The /extension/connect page's conversation with the extension's bridge (web/src/features/extension/bridge-protocol.ts):
 * listens for 'ready' and 'paired', asks 'hello' on mount, gives up detecting after DETECT_TIMEOUT_MS (a late
 * 'ready' still enables the button), and on `connect()` asks the API for a pairing code and hands it to the bridge.
 * The code lives only in this function's scope while it is posted: never in state, the URL or storage.
 */
export function useConnectFlow(label: string): { state: ConnectState; connect(): Promise<void> } {
  const [state, dispatch] = useReducer(connectReducer, initialConnectState);
  const stateRef = useRef(state);
  stateRef.current = state;
  const qc = useQueryClient();

  useEffect(() => {
    function onMessage(event: MessageEvent) {
      const message = readExtensionMessage(event, window);
      if (!message) return;
      if (message.type === 'ready') dispatch({ type: 'ready' });
      else dispatch({ type: 'paired', ok: message.ok, label: message.label, message: message.message });
    }
    window.addEventListener('message', onMessage);
    // The bridge announces itself on load, possibly before this page listened: ask again.
    window.postMessage(helloMessage(), window.location.origin);
    const timer = setTimeout(() => dispatch({ type: 'detect-timeout' }), DETECT_TIMEOUT_MS);
    return () => {
      window.removeEventListener('message', onMessage);
      clearTimeout(timer);
    };
  }, []);

  const handingOver = state.step.kind === 'handing-over';
  useEffect(() => {
    if (!handingOver) return;
    const timer = setTimeout(() => dispatch({ type: 'paired-timeout' }), PAIRED_TIMEOUT_MS);
    return () => clearTimeout(timer);
  }, [handingOver]);

  const connected = state.step.kind === 'connected';
  useEffect(() => {
    // Settings → Connected browsers lists the new one the next time it is shown.
    if (connected) void qc.invalidateQueries({ queryKey: EXTENSION_TOKENS_QUERY_KEY });
  }, [connected, qc]);

  const connect = useCallback(async () => {
    if (!canConnect(stateRef.current)) return;
    dispatch({ type: 'start' });
    let code: string;
    try {
      ({ code } = await createPairingRequest(label));
    } catch (error) {
      dispatch({ type: 'pairing-failed', message: messageOf(error) ?? null });
      return;
    }
    dispatch({ type: 'pairing-created' });
    window.postMessage(pairMessage(code), window.location.origin);
  }, [label]);

  return { state, connect };
}
