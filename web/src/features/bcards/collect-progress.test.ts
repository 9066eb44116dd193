import { describe, expect, test } from 'bun:test';
import { mergeProgress, shareProgress } from './collect-progress';

const planned = [
  { sourceId: 'a', name: 'Visa', last4: '4242', cents: 6174 },
  { sourceId: 'b', name: 'Mastercard', last4: '4444', cents: 4116 },
];

describe('collect progress', () => {
  test("each server status has its name; pending and unknown ones are 'waiting'", () => {
    expect(shareProgress('pending')).toBe('waiting');
    expect(shareProgress('held')).toBe('held');
    expect(shareProgress('captured')).toBe('captured');
    expect(shareProgress('declined')).toBe('declined');
    expect(shareProgress('voided')).toBe('released');
    expect(shareProgress('refunded')).toBe('refunded');
    expect(shareProgress('something-new')).toBe('waiting');
    expect(shareProgress(undefined)).toBe('waiting');
  });

  test('before the server has recorded anything: sending, every share waiting', () => {
    for (const answer of [undefined, { stage: 'not_started' as const, shares: [] }]) {
      const m = mergeProgress(planned, answer);
      expect(m.stage).toBe('sending');
      expect(m.shares.map((s) => s.progress)).toEqual(['waiting', 'waiting']);
    }
  });

  test("the server's statuses, matched by source, in the planned order", () => {
    const m = mergeProgress(planned, {
      stage: 'failed',
      shares: [
        { fundingSourceId: 'b', status: 'declined' },
        { fundingSourceId: 'a', status: 'voided' },
      ],
    });
    expect(m.stage).toBe('failed');
    expect(m.shares.map((s) => [s.sourceId, s.progress, s.cents])).toEqual([
      ['a', 'released', 6174],
      ['b', 'declined', 4116],
    ]);
  });
});
