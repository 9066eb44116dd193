import { formatCents, parseCents } from '../../lib/money';
import type { AdminUser, TierLimits } from './api';

/** Money as the admin API answers it: dollars as a number, or as a decimal string (a merchant's totalVolume, "42.50"). */
export type Amount = string | number;
/** Whoever a row names (a user, a merchant's owner, an applicant): their name, else their e-mail. */
type PersonRef = Pick<AdminUser, 'firstName' | 'lastName' | 'email'>;

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

/**
 * The fee as the tier form takes it: a percent from 0 to 100 with at most 2 decimals, read exactly (no floating point)
 * as whole basis points, the unit the server stores (290 = 2.9 %). Null for anything else, finer steps included: the
 * server refuses them rather than round a fee.
 */
export function feePercentToBps(percent: string): number | null {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(percent.trim());
  if (!m) return null;
  const bps = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return bps <= 10_000 ? bps : null;
}

/** Basis points as the API's fraction (290 -> 0.029). */
export const bpsToFraction = (bps: number): number => bps / 10_000;

/** The fraction the API answers, as the percent the form shows ("0.029" -> "2.9"). */
export function fractionToPercent(fraction: Amount): string {
  const n = amountNumber(fraction);
  return String(Math.round(n * 1_000_000) / 10_000);
}

/** The highest monthly price and limit the server takes (api/src/modules/admin/model.ts). */
export const MAX_MONTHLY_PRICE_CENTS = 100_000_000;
export const MAX_LIMIT = 1_000_000_000;

/** The monthly price input in dollars ("9.99") as cents, or null unless 0 to 1,000,000 with at most 2 decimals. */
export function parsePriceCents(input: string): number | null {
  const m = /^(\d{1,7})(?:\.(\d{1,2}))?$/.exec(input.trim());
  if (!m) return null;
  const cents = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return cents <= MAX_MONTHLY_PRICE_CENTS ? cents : null;
}

/** The server's rule for a tier's internal name. */
export const TIER_NAME_PATTERN = /^[a-z0-9_-]{1,40}$/;

/** Limit inputs: integers up to MAX_LIMIT; empty or 0 mean unlimited (stored as 0). Null when not one. */
export function parseLimit(input: string): number | null {
  const s = input.trim();
  if (s === '') return 0;
  if (!/^\d{1,10}$/.test(s)) return null;
  const n = Number(s);
  return n <= MAX_LIMIT ? n : null;
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
