// A disputed share's stage (issue 26 part 2): its latest dispute says more than the charge under it.
import { expect, test } from 'bun:test';
import { SHARE_STAGES, shareStageOf } from '../bcards/stage';

test('a share with a dispute shows the dispute, whatever its own status; without one, its status as before', () => {
  for (const status of ['captured', 'refunded'] as const) {
    expect(shareStageOf({ status }, null, true, 'open')).toBe('disputed');
    expect(shareStageOf({ status }, null, true, 'won')).toBe('dispute_won');
    expect(shareStageOf({ status }, 'settled', false, 'lost')).toBe('dispute_lost');
  }
  expect(shareStageOf({ status: 'captured' }, null, true, null)).toBe('charged');
  expect(shareStageOf({ status: 'refunded' }, null, true)).toBe('partly_refunded');
  expect(SHARE_STAGES).toEqual(expect.arrayContaining(['disputed', 'dispute_won', 'dispute_lost']));
});
