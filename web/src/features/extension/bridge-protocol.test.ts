import { describe, expect, test } from 'bun:test';
import { EXTENSION_SOURCE, helloMessage, pairMessage, readExtensionMessage, type MessageLike } from './bridge-protocol';

const self = { location: { origin: 'https://pay.example.com' } };
const from = (data: unknown, over: Partial<MessageLike> = {}): MessageLike => ({ data, origin: self.location.origin, source: self, ...over });

describe('readExtensionMessage', () => {
  test("the bridge's ready, with or without a version", () => {
    expect(readExtensionMessage(from({ source: EXTENSION_SOURCE, type: 'ready', version: '1.0.0' }), self)).toEqual({ type: 'ready', version: '1.0.0' });
    expect(readExtensionMessage(from({ source: EXTENSION_SOURCE, type: 'ready' }), self)).toEqual({ type: 'ready', version: null });
  });

  test("the bridge's paired, ok or with its message", () => {
    expect(readExtensionMessage(from({ source: EXTENSION_SOURCE, type: 'paired', ok: true, label: 'Chrome on Linux' }), self)).toEqual({
      type: 'paired',
      ok: true,
      label: 'Chrome on Linux',
      message: null,
    });
    expect(readExtensionMessage(from({ source: EXTENSION_SOURCE, type: 'paired', ok: false, message: 'This code was already used.' }), self)).toEqual({
      type: 'paired',
      ok: false,
      label: null,
      message: 'This code was already used.',
    });
  });

  const refused: Array<[name: string, event: MessageLike]> = [
    ['another origin', from({ source: EXTENSION_SOURCE, type: 'ready' }, { origin: 'https://evil.example' })],
    ['another window (a frame)', from({ source: EXTENSION_SOURCE, type: 'ready' }, { source: {} })],
    ['no window at all', from({ source: EXTENSION_SOURCE, type: 'ready' }, { source: null })],
    ["the page's own message", from(helloMessage())],
    ["the page's own pair message", from(pairMessage('abc'))],
    ['another source', from({ source: 'someone-else', type: 'ready' })],
    ['an unknown type', from({ source: EXTENSION_SOURCE, type: 'token', token: 'bpx_x' })],
    ['paired without ok', from({ source: EXTENSION_SOURCE, type: 'paired' })],
    ['paired with a string ok', from({ source: EXTENSION_SOURCE, type: 'paired', ok: 'true' })],
    ['a string', from('ready')],
    ['null', from(null)],
  ];
  for (const [name, event] of refused) test(`ignores ${name}`, () => expect(readExtensionMessage(event, self)).toBeNull());

  test("the extension's message is kept short (it is shown on the page)", () => {
    const m = readExtensionMessage(from({ source: EXTENSION_SOURCE, type: 'paired', ok: false, message: 'x'.repeat(1000) }), self);
    expect(m?.type === 'paired' && m.message?.length).toBe(300);
  });
});

test("the page's messages", () => {
  expect(helloMessage()).toEqual({ source: 'bpay-page', type: 'hello' });
  expect(pairMessage('c0de')).toEqual({ source: 'bpay-page', type: 'pair', code: 'c0de' });
});
