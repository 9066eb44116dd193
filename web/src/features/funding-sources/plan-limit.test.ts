import { describe, expect, test } from 'bun:test';
import { canStartIdVerification, isAtLimit, planName, upgradeHint } from './plan-limit';

const free = { currentTier: 'free', maxFundingSources: 2, nameVerificationRequired: true, isKycVerified: false };

describe('plan limits', () => {
  test('at or above the maximum is the limit; -1 is unlimited', () => {
    expect(isAtLimit(free, 1)).toBe(false);
    expect(isAtLimit(free, 2)).toBe(true);
    expect(isAtLimit(free, 3)).toBe(true);
    expect(isAtLimit({ maxFundingSources: -1 }, 500)).toBe(false);
    expect(isAtLimit(undefined, 10)).toBe(false);
  });

  test('upgrade hints', () => {
    expect(upgradeHint(free)).toBe('proOrPremium');
    expect(upgradeHint({ currentTier: 'starter', maxFundingSources: 2 })).toBe('proOrPremium');
    expect(upgradeHint({ currentTier: 'pro', maxFundingSources: 5 })).toBe('premium');
    expect(upgradeHint({ currentTier: 'premium', maxFundingSources: -1 })).toBeNull();
  });

  test('Start ID Verification: unverified free users at the limit only', () => {
    expect(canStartIdVerification(free, 2)).toBe(true);
    expect(canStartIdVerification(free, 1)).toBe(false);
    expect(canStartIdVerification({ ...free, isKycVerified: true, maxFundingSources: 3 }, 3)).toBe(false);
    expect(canStartIdVerification({ ...free, currentTier: 'pro', maxFundingSources: 5 }, 5)).toBe(false);
    expect(canStartIdVerification(undefined, 2)).toBe(false);
  });

  test('plan names', () => {
    expect(planName('premium')).toBe('premium');
    expect(planName('gold')).toBe('other');
  });
});
