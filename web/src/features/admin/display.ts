import { formatCents, parseCents } from '../../lib/money';
import type { Amount, PersonRef, TierLimits } from './types';

/** An amount that may be a decimal string or a number, as dollars ("$1,234.50"). */
export function formatAmount(v: Amount | null | undefined): string {
  if (v == null) return formatCents(0);
  if (typeof v === 'number') return formatCents(Math.round(v * 100));
  const cents = parseCents(v);
  if (cents !== null) return formatCents(cents);
  const n = Number(v);
  return Number.isFinite(n) ? formatCents(Math.round(n * 100)) : v;
}

export function amountNumber(v: Amount | null | undefined): number {
  if (v == null) return 0;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : 0;
}

export type RiskBand = 'low' | 'medium' | 'high';

/** Spec §5, §9: 30 or below Low Risk, 31 to 70 Medium Risk, above 70 High Risk. */
export function riskBand(score: number): RiskBand {
  if (score <= 30) return 'low';
  if (score <= 70) return 'medium';
  return 'high';
}

/** Risk score input: empty is "no score"; otherwise an integer 0–100, or null when invalid. */
export function parseRiskScore(input: string): { ok: true; value: number | undefined } | { ok: false } {
  const s = input.trim();
  if (s === '') return { ok: true, value: undefined };
  if (!/^\d+$/.test(s)) return { ok: false };
  const n = Number(s);
  return n >= 0 && n <= 100 ? { ok: true, value: n } : { ok: false };
}

/** Spec §9: the funding success rate is flagged (destructive badge) at 95 or below. */
export function fundingRateHealthy(rate: number): boolean {
  return rate > 95;
}

/** Spec §5: the fee is entered as a percent and stored as a fraction ("2.9" -> "0.029"). */
export function percentToFraction(percent: string): string | null {
  const s = percent.trim();
  if (!/^\d+(\.\d+)?$/.test(s)) return null;
  const n = Number(s);
  if (n > 100) return null;
  // Round to 6 decimals so 2.9 / 100 does not carry floating-point noise.
  return String(Math.round(n * 10_000) / 1_000_000);
}

export function fractionToPercent(fraction: Amount): string {
  const n = amountNumber(fraction);
  return String(Math.round(n * 1_000_000) / 10_000);
}

/** Limit inputs: integers; empty or 0 mean unlimited (stored as 0). Null when not a non-negative integer. */
export function parseLimit(input: string): number | null {
  const s = input.trim();
  if (s === '') return 0;
  if (!/^\d+$/.test(s)) return null;
  return Number(s);
}

/** A limit as shown: zero, empty or negative (the server's -1) are Unlimited. */
export function isUnlimited(limit: number | null | undefined): boolean {
  return limit == null || limit <= 0;
}

export const LIMIT_KEYS: (keyof TierLimits)[] = ['fundingSources', 'monthlyTransactions', 'apiCallsPerMonth', 'bcardGenerationLimit'];

/** Spec §9: tier cards show the first 3 features, then '+N more'. */
export function splitFeatures(features: readonly string[], shown = 3): { visible: string[]; more: number } {
  return { visible: features.slice(0, shown), more: Math.max(0, features.length - shown) };
}

export function personName(p: PersonRef | null | undefined): string {
  if (!p) return '';
  const name = [p.firstName, p.lastName].filter(Boolean).join(' ').trim();
  return name || p.email;
}

export function formatDate(iso: string | null | undefined, lang: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleDateString(lang === 'ar' ? 'ar' : 'en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}
