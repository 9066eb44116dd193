import { expect, test } from 'bun:test';
import { Window } from 'happy-dom';
import { startBridge } from './src/lib/bridge';
import type { PairAnswer } from './src/lib/protocol';

/*
 * The connect page bridge (src/lib/bridge.ts): the contract's postMessage protocol, and that only the page itself,
 * on its own origin, can hand over a code; a message from another origin, another window or without source
 * 'bpay-page' is ignored, and the token never comes back to the page.
 */

const ORIGIN = 'http://localhost:3000';
const CODE = 'q4uR0m8x2Jb7lF1tW9cN6hA3sY5vE0kZpD8gT2iU7oM';
const tick = () => new Promise((r) => setTimeout(r, 20));

async function setup(options: { configured?: boolean; answer?: PairAnswer } = {}) {
  const win = new Window({ url: `${ORIGIN}/extension/connect` });
  const w = win as unknown as Window & typeof globalThis;
  const posted: Record<string, unknown>[] = [];
  win.addEventListener('message', (e) => {
    const data = (e as unknown as MessageEvent).data as Record<string, unknown>;
    if (data?.source === 'bpay-extension') posted.push(data);
  });
  const codes: string[] = [];
  const started = await startBridge({
    win: w as unknown as globalThis.Window,
    version: '1.0.0',
    isConfiguredOrigin: async (origin) => (options.configured ?? true) && origin === ORIGIN,
    pair: async (code) => {
      codes.push(code);
      return options.answer ?? { ok: true, label: 'Chrome on Linux' };
    },
  });
  await tick();
  /** A message event as another party would send it. */
  const send = (data: unknown, origin = ORIGIN, source: unknown = win) =>
    win.dispatchEvent(new win.MessageEvent('message', { data, origin, source: source as never }));
  return { win, posted, codes, started, send };
}

test('announces itself on load and answers hello with ready and its version', async () => {
  const { posted, send, started } = await setup();
  expect(started).toBe(true);
  expect(posted).toEqual([{ source: 'bpay-extension', type: 'ready', version: '1.0.0' }]);
  send({ source: 'bpay-page', type: 'hello' });
  await tick();
  expect(posted.at(-1)).toEqual({ source: 'bpay-extension', type: 'ready', version: '1.0.0' });
});

test('forwards the page own pair message and answers paired with the label, never a token', async () => {
  const { posted, codes, send } = await setup();
  send({ source: 'bpay-page', type: 'pair', code: CODE });
  await tick();
  expect(codes).toEqual([CODE]);
  expect(posted.at(-1)).toEqual({ source: 'bpay-extension', type: 'paired', ok: true, label: 'Chrome on Linux' });
  expect(JSON.stringify(posted)).not.toContain('bpx_');
});

test('a failed exchange comes back as paired ok:false with the message', async () => {
  const { posted, send } = await setup({ answer: { ok: false, message: 'This pairing code was already used.' } });
  send({ source: 'bpay-page', type: 'pair', code: CODE });
  await tick();
  expect(posted.at(-1)).toEqual({ source: 'bpay-extension', type: 'paired', ok: false, message: 'This pairing code was already used.' });
});

test('ignores messages from another origin, another window, or not from bpay-page', async () => {
  const { codes, posted, send } = await setup();
  const other = new Window({ url: `${ORIGIN}/other` });
  const before = posted.length;
  send({ source: 'bpay-page', type: 'pair', code: CODE }, 'https://evil.example');
  send({ source: 'bpay-page', type: 'pair', code: CODE }, ORIGIN, other);
  send({ source: 'bpay-page', type: 'pair', code: CODE }, ORIGIN, null);
  send({ source: 'someone', type: 'pair', code: CODE });
  send({ type: 'pair', code: CODE });
  send('pair');
  send({ source: 'bpay-page', type: 'hello' }, 'https://evil.example');
  await tick();
  expect(codes).toEqual([]);
  expect(posted.length).toBe(before);
});

test('a malformed code is refused without asking the background', async () => {
  const { codes, posted, send } = await setup();
  send({ source: 'bpay-page', type: 'pair', code: '<script>' });
  send({ source: 'bpay-page', type: 'pair', code: 42 });
  await tick();
  expect(codes).toEqual([]);
  expect(posted.filter((p) => p.type === 'paired').every((p) => p.ok === false)).toBe(true);
});

test('stays silent on a bpay origin the extension is no longer set to', async () => {
  const { started, posted, codes, send } = await setup({ configured: false });
  send({ source: 'bpay-page', type: 'pair', code: CODE });
  await tick();
  expect(started).toBe(false);
  expect(posted).toEqual([]);
  expect(codes).toEqual([]);
});
