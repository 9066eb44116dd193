import type { PairAnswer } from './protocol';

/*
 * The bridge between bpay's /extension/connect page and the background (contract: "Extension <-> bpay page bridge").
 * It runs only on the configured bpay origin's connect page, and only listens to messages that the page itself
 * posted to itself (event.source === window, event.origin === location.origin): another frame, another origin or a
 * message without source 'bpay-page' is ignored. The page hands over a one-time pairing code; the token the
 * background gets for it never comes back to the page, only {ok, label} or {ok: false, message}.
 *
 *   page -> bridge  {source: 'bpay-page', type: 'hello'}              -> {source: 'bpay-extension', type: 'ready', version}
 *   page -> bridge  {source: 'bpay-page', type: 'pair', code}          -> {source: 'bpay-extension', type: 'paired', ok, label?, message?}
 *   on start        bridge -> page {source: 'bpay-extension', type: 'ready', version}
 */

export interface BridgeDeps {
  win: Window;
  version: string;
  /** Whether this page's origin is the bpay the extension is set to (the static script may outlive an origin change). */
  isConfiguredOrigin(origin: string): Promise<boolean>;
  /** Asks the background to exchange the code. */
  pair(code: string): Promise<PairAnswer>;
}

/** A pairing code as the server makes it is 43 base64url characters; anything far off is not forwarded. */
const CODE = /^[A-Za-z0-9_-]{16,200}$/;

export async function startBridge({ win, version, isConfiguredOrigin, pair }: BridgeDeps): Promise<boolean> {
  const origin = win.location.origin;
  if (!(await isConfiguredOrigin(origin))) return false;
  const post = (message: Record<string, unknown>) => win.postMessage({ source: 'bpay-extension', ...message }, origin);
  let pairing = false;

  win.addEventListener('message', (event: MessageEvent) => {
    if (event.source !== win || event.origin !== origin) return;
    const data: unknown = event.data;
    if (typeof data !== 'object' || data === null) return;
    const msg = data as { source?: unknown; type?: unknown; code?: unknown };
    if (msg.source !== 'bpay-page') return;
    if (msg.type === 'hello') {
      post({ type: 'ready', version });
      return;
    }
    if (msg.type !== 'pair') return;
    if (typeof msg.code !== 'string' || !CODE.test(msg.code)) {
      post({ type: 'paired', ok: false, message: 'The pairing code is not valid.' });
      return;
    }
    // One exchange at a time: a second click while the first is on its way would only burn the code.
    if (pairing) return;
    pairing = true;
    pair(msg.code)
      .catch((): PairAnswer => ({ ok: false, message: 'The extension could not reach its background. Reload the page and try again.' }))
      .then((answer) => post(answer.ok ? { type: 'paired', ok: true, label: answer.label } : { type: 'paired', ok: false, message: answer.message }))
      .finally(() => {
        pairing = false;
      });
  });
  post({ type: 'ready', version });
  return true;
}
