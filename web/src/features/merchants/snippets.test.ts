import { describe, expect, test } from 'bun:test';
import { curlSnippet, nodeSnippet, secretKeyPlaceholder, widgetSnippet } from './snippets';

const origin = 'https://bpay.example';
const pk = 'pk_test_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456';

describe('integration snippets', () => {
  test('the widget snippet loads widget.js from bpay and carries the real publishable key', () => {
    const s = widgetSnippet(origin, pk);
    expect(s).toContain('<script src="https://bpay.example/widget.js" async></script>');
    expect(s).toContain(`data-publishable-key="${pk}"`);
    expect(s).toContain('data-bpay-checkout');
    expect(s).toContain('data-client-secret=');
  });

  test('server-side snippets use a secret-key placeholder of the right mode, never a real key', () => {
    for (const make of [curlSnippet, nodeSnippet]) {
      const code = make(origin, pk);
      expect(code).toContain('sk_test_YOUR_SECRET_KEY');
      expect(code).toContain('https://bpay.example/api/v1/payment_intents');
      expect(code).not.toMatch(/sk_(test|live)_[A-Za-z0-9]{24,}/);
      expect(make(origin, 'pk_live_X')).toContain('sk_live_YOUR_SECRET_KEY');
    }
    expect(curlSnippet(origin, pk)).toContain('Authorization: Bearer sk_test_YOUR_SECRET_KEY');
    expect(curlSnippet(origin, pk)).toContain('Content-Type: application/json');
  });

  test('placeholder follows the key mode', () => {
    expect(secretKeyPlaceholder('pk_live_abc')).toBe('sk_live_YOUR_SECRET_KEY');
    expect(secretKeyPlaceholder('pk_test_abc')).toBe('sk_test_YOUR_SECRET_KEY');
  });
});
