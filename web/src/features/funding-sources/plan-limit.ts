import type { SourcePlan } from './api';

/*
 * Plan limits on funding sources (spec §6): free is limited (3 after ID verification), pro 5, premium unlimited
 * (-1). The server enforces them (403 funding_source_limit_reached); the page explains them.
 */

export type PlanName = 'free' | 'starter' | 'pro' | 'premium' | 'other';

export function planName(tier: string): PlanName {
  return tier === 'free' || tier === 'starter' || tier === 'pro' || tier === 'premium' ? tier : 'other';
}

/** At or above maxFundingSources, unless it is -1 (spec §5). Unknown plan: not at the limit (the server decides). */
export function isAtLimit(plan: Pick<SourcePlan, 'maxFundingSources'> | undefined, count: number): boolean {
  return !!plan && plan.maxFundingSources !== -1 && count >= plan.maxFundingSources;
}

/** Which upgrade the banner suggests: Pro or Premium from the small plans, Premium from Pro, nothing from Premium. */
export function upgradeHint(plan: Pick<SourcePlan, 'currentTier' | 'maxFundingSources'>): 'proOrPremium' | 'premium' | null {
  if (plan.maxFundingSources === -1) return null;
  const name = planName(plan.currentTier);
  if (name === 'pro') return 'premium';
  if (name === 'premium') return null;
  return 'proOrPremium';
}

/** 'Start ID Verification' shows only for an unverified free user at the limit (spec §6). */
export function canStartIdVerification(plan: SourcePlan | undefined, count: number): boolean {
  return !!plan && planName(plan.currentTier) === 'free' && !plan.isKycVerified && isAtLimit(plan, count);
}
