import { describe, expect, test } from 'bun:test';
import { disabledByFailures, enabledEventsFor, webhookUrlProblem } from './webhooks';

describe('webhook form rules', () => {
  test("all events is '*'; otherwise the chosen ones, once each", () => {
    expect(enabledEventsFor(true, ['payment_intent.failed'])).toEqual(['*']);
    expect(enabledEventsFor(false, ['payment_intent.succeeded', 'payment_intent.failed', 'payment_intent.failed'])).toEqual([
      'payment_intent.failed',
      'payment_intent.succeeded',
    ]);
    expect(enabledEventsFor(false, [])).toEqual([]);
  });

  test('URLs: required, http(s) only, https for live; local http is fine in sandbox', () => {
    expect(webhookUrlProblem('', false)).toBe('merchants.webhooks.error.urlRequired');
    expect(webhookUrlProblem('not a url', false)).toBe('merchants.webhooks.error.url');
    expect(webhookUrlProblem('ftp://x.example/', false)).toBe('merchants.webhooks.error.url');
    expect(webhookUrlProblem('http://shop.example/hook', true)).toBe('merchants.webhooks.error.https');
    expect(webhookUrlProblem('http://127.0.0.1:4000/hook', false)).toBeNull();
    expect(webhookUrlProblem('https://shop.example/hook', true)).toBeNull();
  });
});

describe('disabled endpoints', () => {
  test('bpay disabling for failures is told apart from the merchant disabling', () => {
    expect(disabledByFailures({ status: 'disabled', disabled_reason: 'Disabled after failing for 3 days' })).toBe(true);
    expect(disabledByFailures({ status: 'disabled', disabled_reason: 'Disabled by the merchant' })).toBe(false);
    expect(disabledByFailures({ status: 'enabled', disabled_reason: null })).toBe(false);
  });
});
