/*
 * The messages between the /extension/connect page and the extension's bridge (a content script that runs only on
 * bpay's own origin, web/extension/src/bridge.ts). Both sides use window.postMessage on this page, addressed to the
 * page's own origin:
 *
 *   bridge -> page  {source: 'bpay-extension', type: 'ready', version?}      on load, and in answer to 'hello'
 *   page -> bridge  {source: 'bpay-page', type: 'hello'}                    on mount (the bridge may have said 'ready'
 *                                                                            before the page listened)
 *   page -> bridge  {source: 'bpay-page', type: 'pair', code}               after POST /api/extension/pairings
 *   bridge -> page  {source: 'bpay-extension', type: 'paired', ok, label?, message?}
 *
 * A message counts only when it comes from this very window (event.source) and this origin (event.origin): another
 * frame or a page of another site cannot pose as the extension. The page's own messages carry source 'bpay-page'
 * and are ignored here. The code is handed over once and never kept (not in the URL, state or storage); the token the
 * extension gets for it never reaches the page.
 */

export const PAGE_SOURCE = 'bpay-page';
export const EXTENSION_SOURCE = 'bpay-extension';

export type ExtensionMessage =
  | { type: 'ready'; version: string | null }
  | { type: 'paired'; ok: boolean; label: string | null; message: string | null };

export type PageMessage = { source: typeof PAGE_SOURCE; type: 'hello' } | { source: typeof PAGE_SOURCE; type: 'pair'; code: string };

/** What a MessageEvent needs to be read (the real one, or a test's). */
export interface MessageLike {
  data: unknown;
  origin: string;
  source: unknown;
}

const text = (v: unknown, max: number): string | null => (typeof v === 'string' && v.trim() !== '' ? v.slice(0, max) : null);

/** The extension's message in `event`, or null when it is anything else or from anywhere else. */
export function readExtensionMessage(event: MessageLike, self: { location: { origin: string } }): ExtensionMessage | null {
  if (event.source !== self || event.origin !== self.location.origin) return null;
  const data = event.data;
  if (typeof data !== 'object' || data === null) return null;
  const m = data as Record<string, unknown>;
  if (m.source !== EXTENSION_SOURCE) return null;
  if (m.type === 'ready') return { type: 'ready', version: text(m.version, 40) };
  if (m.type === 'paired' && typeof m.ok === 'boolean') {
    return { type: 'paired', ok: m.ok, label: text(m.label, 80), message: text(m.message, 300) };
  }
  return null;
}

export const helloMessage = (): PageMessage => ({ source: PAGE_SOURCE, type: 'hello' });
export const pairMessage = (code: string): PageMessage => ({ source: PAGE_SOURCE, type: 'pair', code });
