import type { MessageKey } from '../../i18n';
import type { KycVerification } from './api';
import type { KycSubmission, ReadyKycSubmission } from './form';

export const TOTAL_STEPS = 3;

type Tone = 'green' | 'yellow' | 'blue' | 'red' | 'neutral';

/** Spec §4: the label and colour of each status; anything else is 'Unknown'. */
export function statusBadge(status: string | null | undefined): { key: MessageKey; tone: Tone } {
  switch (status) {
    case 'verified':
      return { key: 'kyc.status.verified', tone: 'green' };
    case 'pending':
      return { key: 'kyc.status.pending', tone: 'yellow' };
    case 'processing':
      return { key: 'kyc.status.processing', tone: 'blue' };
    case 'failed':
      return { key: 'kyc.status.failed', tone: 'red' };
    case 'requires_input':
      return { key: 'kyc.status.requiresInput', tone: 'yellow' };
    default:
      return { key: 'kyc.status.unknown', tone: 'neutral' };
  }
}

/** A stored value as the status view shows it: underscores as spaces; null when absent (the page says 'N/A'). */
export function humanize(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  return value.replaceAll('_', ' ');
}

/** Size in MB with two decimals, as the upload list shows it. */
export function sizeInMb(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(2);
}

/** 'Step n of 3' progress: step 1 is 33%, step 3 is 100%. */
export function progressPercent(step: number): number {
  return Math.round((Math.min(Math.max(step, 1), TOTAL_STEPS) / TOTAL_STEPS) * 100);
}

/** Step 1: every choice made (the wizard's state is then what the server takes). */
export const canLeaveStep1 = (v: KycSubmission): v is ReadyKycSubmission =>
  v.verificationType !== '' && v.documentType !== '' && v.documentCountry !== '';
/** The terms' minimum age, checked as the server checks it (api/src/modules/kyc/validation.ts). */
export const MIN_AGE_YEARS = 18;
/** The earliest year of birth taken, as the server takes it (an earlier one is a typing slip). */
export const EARLIEST_BIRTH_YEAR = 1900;

/**
 * Why a typed date of birth cannot be used, or null when it can: 'invalid' (not a real YYYY-MM-DD date, or in the
 * future), 'before1900' (before 1900-01-01) or 'underage' (under 18 on `today`, counted in UTC calendar days as the
 * server counts them).
 */
export function dateOfBirthProblem(value: string, today: Date): 'invalid' | 'before1900' | 'underage' | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!m) return 'invalid';
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return 'invalid';
  if (y < EARLIEST_BIRTH_YEAR) return 'before1900';
  const ty = today.getUTCFullYear();
  const tm = today.getUTCMonth() + 1;
  const td = today.getUTCDate();
  if (y > ty || (y === ty && (mo > tm || (mo === tm && d > td)))) return 'invalid';
  const beforeBirthday = tm < mo || (tm === mo && td < d);
  const age = ty - y - (beforeBirthday ? 1 : 0);
  return age < MIN_AGE_YEARS ? 'underage' : null;
}

/** Step 2: names and a date of birth of someone 18 or older (checked here, not only when step 3 is sent). */
export const canLeaveStep2 = (v: KycSubmission, today: Date = new Date()) =>
  v.firstName.trim() !== '' && v.lastName.trim() !== '' && v.dateOfBirth.trim() !== '' && dateOfBirthProblem(v.dateOfBirth, today) === null;
export const canSubmit = (fileCount: number, sending: boolean) => fileCount > 0 && !sending;

/** The latest verification (the server sends newest first; sorted again in case). */
export function latestVerification<V extends Pick<KycVerification, 'submittedAt'>>(list: readonly V[] | undefined): V | undefined {
  if (!list || list.length === 0) return undefined;
  return [...list].sort((a, b) => Date.parse(b.submittedAt) - Date.parse(a.submittedAt))[0];
}

/** A risk score clamped to the bar's 0–100, or null when there is none. */
export function riskWidth(score: number | null | undefined): number | null {
  if (score === null || score === undefined || !Number.isFinite(score)) return null;
  return Math.min(100, Math.max(0, score));
}

export type RiskBand = 'low' | 'medium' | 'high';

/**
 * The risk bar's band (docs/DECISIONS.md, KYC risk bands): 0–29 low (green), 30–69 medium (amber), 70–100 high (red).
 * A score is a reviewer's aid; the bands only colour and name it.
 */
export function riskBand(score: number): RiskBand {
  if (score >= 70) return 'high';
  if (score >= 30) return 'medium';
  return 'low';
}

/** Adds newly picked files to the list, skipping exact repeats (same name, size and date). */
export function mergeFiles(current: readonly File[], picked: readonly File[]): File[] {
  const key = (f: File) => `${f.name}|${f.size}|${f.lastModified}`;
  const seen = new Set(current.map(key));
  return [...current, ...picked.filter((f) => !seen.has(key(f)))];
}
