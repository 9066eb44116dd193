import type { Lang, MessageKey } from '../../i18n';
import { feeRatePercent } from '../../lib/money';
import type { SubscriptionTier } from './api';

/*
 * Pricing display rules (spec §9), kept free of React so they can be tested alone:
 * - price 0 shows "Free", otherwise the price with 2 decimals per month;
 * - the fee is rate × 100 with 1 decimal;
 * - a limit that is -1 or empty shows "Unlimited";
 * - limits read "{n} sources", "{n}/month" (transactions, bcard generation) and "{n} API calls/month", grouped;
 * - the button reads "Start Free" for price 0, else "Choose Plan".
 * Digits stay Western in both languages, so numbers are grouped the en-US way on the Arabic page too.
 */

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;
export type LimitValue = number | null | undefined;

const grouping = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Digit grouping with Western digits: 10000 -> "10,000". */
export function formatCount(n: number): string {
  return grouping.format(n);
}

/** -1 is the API's "unlimited"; a missing value is treated the same way. */
export function isUnlimited(limit: LimitValue): limit is -1 | null | undefined {
  return limit === undefined || limit === null || limit === -1 || Number.isNaN(limit);
}

export interface PriceDisplay {
  /** "Free" or "$9.99". */
  amount: string;
  /** "/month", or null when the plan is free. */
  period: string | null;
}

export function formatPrice(monthlyPrice: number, t: Translate): PriceDisplay {
  if (monthlyPrice === 0) return { amount: t('landing.pricing.free'), period: null };
  return { amount: t('landing.pricing.price', { amount: monthlyPrice.toFixed(2) }), period: t('landing.pricing.perMonth') };
}

/** 0.029 -> "2.9% transaction fee", 0.0125 -> "1.25% transaction fee". */
export function formatFee(rate: number, t: Translate): string {
  return t('landing.pricing.fee', { rate: feeRatePercent(rate) });
}

export function formatSourcesLimit(limit: LimitValue, t: Translate): string {
  return isUnlimited(limit) ? t('landing.pricing.unlimited') : t('landing.pricing.limit.sources', { n: formatCount(limit) });
}

/** Monthly transactions and bcard generation both read "{n}/month". */
export function formatMonthlyLimit(limit: LimitValue, t: Translate): string {
  return isUnlimited(limit) ? t('landing.pricing.unlimited') : t('landing.pricing.limit.perMonth', { n: formatCount(limit) });
}

export function formatApiCallsLimit(limit: LimitValue, t: Translate): string {
  return isUnlimited(limit) ? t('landing.pricing.unlimited') : t('landing.pricing.limit.apiCalls', { n: formatCount(limit) });
}

export function planButtonLabel(monthlyPrice: number, t: Translate): string {
  return monthlyPrice === 0 ? t('landing.pricing.cta.free') : t('landing.pricing.cta.paid');
}

const FEATURE_LABELS: Record<string, MessageKey> = {
  basic_funding_sources: 'landing.pricing.feature.basic_funding_sources',
  unlimited_funding_sources: 'landing.pricing.feature.unlimited_funding_sources',
  priority_support: 'landing.pricing.feature.priority_support',
  api_access: 'landing.pricing.feature.api_access',
  advanced_analytics: 'landing.pricing.feature.advanced_analytics',
  custom_branding: 'landing.pricing.feature.custom_branding',
  white_label: 'landing.pricing.feature.white_label',
  dedicated_account_manager: 'landing.pricing.feature.dedicated_account_manager',
};

/** A feature key's human label; an unknown key (a newer server) is shown with its underscores as spaces. */
export function featureLabel(key: string, t: Translate): string {
  const label = FEATURE_LABELS[key];
  return label ? t(label) : key.replace(/_/g, ' ');
}

const TIER_NAMES: Record<string, MessageKey> = {
  starter: 'landing.pricing.tierName.starter',
  free: 'landing.pricing.tierName.free',
  pro: 'landing.pricing.tierName.pro',
  premium: 'landing.pricing.tierName.premium',
};

/** English shows the server's displayName; other languages translate known tier names and fall back to it. */
export function tierTitle(tier: Pick<SubscriptionTier, 'name' | 'displayName'>, lang: Lang, t: Translate): string {
  if (lang === 'en') return tier.displayName;
  const key = TIER_NAMES[tier.name];
  return key ? t(key) : tier.displayName;
}

export interface TierDisplay {
  id: string;
  title: string;
  price: PriceDisplay;
  fee: string;
  limits: Array<{ id: 'sources' | 'transactions' | 'bcards' | 'apiCalls'; label: string; value: string }>;
  features: string[];
  cta: string;
}

/** Everything a pricing card shows, already in the page's language. */
export function formatTier(tier: SubscriptionTier, lang: Lang, t: Translate): TierDisplay {
  const { limits } = tier;
  return {
    id: tier.id,
    title: tierTitle(tier, lang, t),
    price: formatPrice(tier.monthlyPrice, t),
    fee: formatFee(tier.transactionFeeRate, t),
    limits: [
      { id: 'sources', label: t('landing.pricing.limit.sources.label'), value: formatSourcesLimit(limits.fundingSources, t) },
      {
        id: 'transactions',
        label: t('landing.pricing.limit.transactions.label'),
        value: formatMonthlyLimit(limits.monthlyTransactions, t),
      },
      { id: 'bcards', label: t('landing.pricing.limit.bcards.label'), value: formatMonthlyLimit(limits.bcardGenerationLimit, t) },
      { id: 'apiCalls', label: t('landing.pricing.limit.apiCalls.label'), value: formatApiCallsLimit(limits.apiCallsPerMonth, t) },
    ],
    features: tier.features.map((f) => featureLabel(f, t)),
    cta: planButtonLabel(tier.monthlyPrice, t),
  };
}
