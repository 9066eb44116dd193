import { describe, expect, test } from 'bun:test';
import { canConnect, connectReducer, initialConnectState, isConnecting, type ConnectEvent, type ConnectState } from './connect-state';

const run = (...events: ConnectEvent[]): ConnectState => events.reduce(connectReducer, initialConnectState);
const ready: ConnectEvent = { type: 'ready' };
const start: ConnectEvent = { type: 'start' };
const created: ConnectEvent = { type: 'pairing-created' };

describe('detecting the extension', () => {
  test('starts detecting, with the button off', () => {
    expect(initialConnectState.presence).toBe('detecting');
    expect(canConnect(initialConnectState)).toBe(false);
  });

  test("'ready' enables the button", () => {
    const s = run(ready);
    expect(s.presence).toBe('present');
    expect(canConnect(s)).toBe(true);
  });

  test('no answer in time: missing, the button stays off', () => {
    const s = run({ type: 'detect-timeout' });
    expect(s.presence).toBe('missing');
    expect(canConnect(s)).toBe(false);
    expect(run({ type: 'detect-timeout' }, start)).toEqual(s);
  });

  test("a late 'ready' still enables it", () => {
    const s = run({ type: 'detect-timeout' }, ready);
    expect(s.presence).toBe('present');
    expect(canConnect(s)).toBe(true);
  });

  test("the timeout after 'ready' changes nothing", () => {
    expect(run(ready, { type: 'detect-timeout' }).presence).toBe('present');
  });
});

describe('connecting', () => {
  test('the happy path: requesting, handing over, connected', () => {
    const requesting = run(ready, start);
    expect(requesting.step).toEqual({ kind: 'requesting' });
    expect(isConnecting(requesting)).toBe(true);
    expect(canConnect(requesting)).toBe(false);
    const handingOver = connectReducer(requesting, created);
    expect(handingOver.step).toEqual({ kind: 'handing-over' });
    expect(canConnect(handingOver)).toBe(false);
    const done = connectReducer(handingOver, { type: 'paired', ok: true, label: 'Chrome on Linux', message: null });
    expect(done.step).toEqual({ kind: 'connected', label: 'Chrome on Linux' });
    expect(canConnect(done)).toBe(false);
    expect(isConnecting(done)).toBe(false);
  });

  test('a second click while a request is out does nothing', () => {
    expect(run(ready, start, start)).toEqual(run(ready, start));
    expect(run(ready, start, created, start)).toEqual(run(ready, start, created));
  });

  test("the API refuses: an error with the server's message, and the user can try again", () => {
    const s = run(ready, start, { type: 'pairing-failed', message: '429: Too many requests' });
    expect(s.step).toEqual({ kind: 'error', error: { reason: 'api', message: '429: Too many requests' } });
    expect(canConnect(s)).toBe(true);
    expect(connectReducer(s, start).step).toEqual({ kind: 'requesting' });
  });

  test("the extension says no: its message", () => {
    const s = run(ready, start, created, { type: 'paired', ok: false, label: null, message: 'This pairing code was already used.' });
    expect(s.step).toEqual({ kind: 'error', error: { reason: 'extension', message: 'This pairing code was already used.' } });
    expect(canConnect(s)).toBe(true);
  });

  test('the extension does not answer: a timeout error', () => {
    const s = run(ready, start, created, { type: 'paired-timeout' });
    expect(s.step).toEqual({ kind: 'error', error: { reason: 'timeout', message: null } });
  });

  test("a 'paired' nobody asked for changes nothing", () => {
    expect(run(ready, { type: 'paired', ok: true, label: null, message: null })).toEqual(run(ready));
    // Before the code was handed over, too.
    expect(run(ready, start, { type: 'paired', ok: true, label: null, message: null })).toEqual(run(ready, start));
  });

  test('once connected, nothing undoes it', () => {
    const done = run(ready, start, created, { type: 'paired', ok: true, label: null, message: null });
    for (const e of [start, created, { type: 'paired-timeout' }, { type: 'paired', ok: false, label: null, message: 'x' }] as ConnectEvent[]) {
      expect(connectReducer(done, e)).toEqual(done);
    }
  });

  test('a timeout or a late answer from an earlier attempt does not touch a finished one', () => {
    const failed = run(ready, start, { type: 'pairing-failed', message: null });
    expect(connectReducer(failed, { type: 'paired-timeout' })).toEqual(failed);
    expect(connectReducer(failed, created)).toEqual(failed);
  });
});
