import { describe, expect, test } from 'bun:test';
import { ar, en } from '../../i18n/messages/dashboard';
import { SHARE_STAGES, shareStageWords, type ShareStage } from './share-stage';

const say = (lang: 'en' | 'ar', stage: ShareStage) => (lang === 'en' ? en : ar)[shareStageWords(stage).key as keyof typeof en];

describe("a share's stage in words", () => {
  test("the issue's stages, in English", () => {
    expect(say('en', 'held')).toBe('Held');
    expect(say('en', 'charged')).toBe('Charged');
    expect(say('en', 'released')).toBe('Released');
    expect(say('en', 'declined')).toBe('Declined');
    expect(say('en', 'refunded')).toBe('Refunded');
    expect(say('en', 'bank_pending')).toBe('Pending (bank debit settling)');
    expect(say('en', 'returned')).toBe('Returned by the bank');
  });

  test('every stage has words in both languages, Arabic ones that are not English, and none says Completed', () => {
    for (const stage of SHARE_STAGES) {
      const [e, a] = [say('en', stage), say('ar', stage)];
      expect(e, stage).toBeTruthy();
      expect(a, stage).toBeTruthy();
      expect(a, stage).not.toBe(e);
      expect(a, stage).toMatch(/[\u0600-\u06ff]/);
      expect(e, stage).not.toMatch(/complete/i);
    }
    expect(SHARE_STAGES).toHaveLength(12);
  });

  test('what can still turn against the user is yellow, what went wrong red, the rest neutral', () => {
    expect(shareStageWords('bank_pending').tone).toBe('yellow');
    expect(shareStageWords('disputed').tone).toBe('yellow');
    expect(shareStageWords('returned').tone).toBe('red');
    expect(shareStageWords('declined').tone).toBe('red');
    expect(shareStageWords('dispute_lost').tone).toBe('red');
    expect(shareStageWords('charged').tone).toBe('neutral');
  });
});
