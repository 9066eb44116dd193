import { describe, expect, test } from 'bun:test';
import { deliveryStatusBadge, formatIntentAmount, intentStatusBadge, isLiveMode, metadataKeyCount } from './display';

describe('merchant display rules', () => {
  test('every spec status has a badge; succeeded is green, failed red, an unknown one neutral with no label', () => {
    for (const s of ['succeeded', 'processing', 'requires_payment_method', 'failed', 'canceled']) {
      expect(intentStatusBadge(s).label).not.toBeNull();
    }
    expect(intentStatusBadge('succeeded').tone).toBe('green');
    expect(intentStatusBadge('failed').tone).toBe('red');
    expect(intentStatusBadge('something_new')).toEqual({ tone: 'neutral', label: null });
    expect(deliveryStatusBadge('failed').tone).toBe('red');
  });

  test('metadata shows its key count, or None (null) when empty or missing', () => {
    expect(metadataKeyCount({ order_id: '1', sku: 'x' })).toBe(2);
    expect(metadataKeyCount({})).toBeNull();
    expect(metadataKeyCount(null)).toBeNull();
  });

  test('production is live mode, sandbox is test mode', () => {
    expect(isLiveMode('production')).toBe(true);
    expect(isLiveMode('sandbox')).toBe(false);
  });

  test('amounts come in cents', () => {
    expect(formatIntentAmount(123456, 'usd')).toBe('$1,234.56');
    expect(formatIntentAmount(50, 'USD')).toBe('$0.50');
  });
});
