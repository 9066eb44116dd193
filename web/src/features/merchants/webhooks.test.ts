import { describe, expect, test } from 'bun:test';
import {
  disabledByFailures,
  enabledEventsFor,
  endpointChanges,
  endpointFormProblems,
  eventChoicesFor,
  formValuesOf,
  webhookUrlProblem,
} from './webhooks';

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

describe('the endpoint form (create and edit)', () => {
  const endpoint = { url: 'https://shop.example/hook', enabled_events: ['payment_intent.succeeded'], description: 'Orders', status: 'enabled' };
  const values = formValuesOf(endpoint);

  test('problems by field', () => {
    expect(endpointFormProblems(values, true)).toEqual({});
    expect(endpointFormProblems({ ...values, url: 'http://shop.example/hook' }, true)).toEqual({ url: 'merchants.webhooks.error.https' });
    expect(endpointFormProblems({ ...values, url: '', chosen: [] }, false)).toEqual({
      url: 'merchants.webhooks.error.urlRequired',
      events: 'merchants.webhooks.error.events',
    });
    expect(endpointFormProblems({ ...values, all: true, chosen: [] }, false)).toEqual({});
  });

  test('an endpoint made through the API keeps events the form does not offer by default', () => {
    expect(eventChoicesFor(['payment_intent.created'], ['payment_intent.succeeded', 'payment_intent.failed'])).toEqual([
      'payment_intent.succeeded',
      'payment_intent.failed',
      'payment_intent.created',
    ]);
    expect(eventChoicesFor(['*'], ['payment_intent.succeeded'])).toEqual(['payment_intent.succeeded']);
  });

  test('an edit sends only what changed', () => {
    expect(endpointChanges(endpoint, values)).toEqual({});
    expect(endpointChanges(endpoint, { ...values, url: ' https://shop.example/new ' })).toEqual({ url: 'https://shop.example/new' });
    expect(endpointChanges(endpoint, { ...values, all: true })).toEqual({ enabled_events: ['*'] });
    expect(endpointChanges(endpoint, { ...values, chosen: ['payment_intent.failed', 'payment_intent.succeeded'] })).toEqual({
      enabled_events: ['payment_intent.failed', 'payment_intent.succeeded'],
    });
    expect(endpointChanges(endpoint, { ...values, description: '  ' })).toEqual({ description: null });
    expect(endpointChanges(endpoint, { ...values, enabled: false })).toEqual({ disabled: true });
    expect(endpointChanges({ ...endpoint, status: 'disabled' }, { ...values, enabled: true })).toEqual({ disabled: false });
  });
});
