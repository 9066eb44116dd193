import { describe, expect, test } from 'bun:test';
import { shownText } from './text';

describe('shownText: client text as an error may show it', () => {
  test('short text is kept, with unsafe characters escaped', () => {
    expect(shownText('order_id')).toBe('order_id');
    expect(shownText('a\u202eb\u0000')).toBe('a\\u202Eb\\u0000');
  });

  test('long text is cut to 80 characters and marked', () => {
    expect(shownText('k'.repeat(200_000))).toBe(`${'k'.repeat(80)}…`);
    expect(shownText('k'.repeat(80))).toBe('k'.repeat(80));
    expect(shownText('x'.repeat(50), 10)).toBe(`${'x'.repeat(10)}…`);
  });

  test('the cut never leaves half of a surrogate pair, and escapes what it keeps', () => {
    const s = `${'a'.repeat(79)}\u{1F600}${'b'.repeat(10)}`;
    expect(shownText(s)).toBe(`${'a'.repeat(79)}…`);
    expect(shownText(`\u0007${'c'.repeat(100)}`)).toBe(`\\u0007${'c'.repeat(79)}…`);
  });
});
