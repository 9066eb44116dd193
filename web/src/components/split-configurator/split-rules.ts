/*
 * The split configurator's rules (spec: merchant/demos §2 "Split configurator", §5 split rules, §9; consumer §
 * "bcard funding step"), pure and in integer cents (CONVENTIONS: money). The component only renders what these
 * functions decide, so every rule is unit tested here.
 *
 * Invariants:
 * - total = amount + fee, the fee rounded half-up to the cent as the server's applyBps does;
 * - percentages are compared in basis points (1 bps = 0.01 %): valid within 1 bps of 100 %, like the server;
 * - fixed amounts are valid within one cent of the total; the largest share then absorbs that cent (as the server
 *   does), so the shares of a valid split always sum exactly to the total.
 */
import type { ApiBody } from '../../lib/api';
import { centsToDecimal, parseCents } from '../../lib/money';

export const DEFAULT_FEE_PERCENTAGE = 2.9;
/** Demo split defaults 60/40/0/0 by position (spec §9). */
export const DEMO_DEFAULT_PERCENTAGES: readonly number[] = [60, 40, 0, 0];
/** 100 % in basis points of a percent. */
export const FULL_BPS = 10_000;
/** "Total must equal 100 within 0.01" (consumer spec; the server's percentagesSumTo100). */
export const PERCENT_TOLERANCE_BPS = 1;
/** "Fixed-total tolerance 0.01" (spec §9; the server's fixed-amount check). */
export const FIXED_TOLERANCE_CENTS = 1;
/** A typed fixed amount is capped here ($10,000,000,000.00: the server's ten-digit decimals) so sums stay exact. */
export const MAX_FIXED_CENTS = 1_000_000_000_000;

export interface SplitSourceOption {
  id: string;
  name: string;
  last4: string;
  /** visa | mastercard | amex | discover | bank | unknown */
  brand: string;
  /** What the source can cover: a bank account's balance or a card's available credit, decimal string "2500.00"; null = not known (not checked). */
  available: string | null;
  /** Starting percentage for this source's row when `initialSplit(..., { useSourceDefaults: true })`. */
  defaultPercentage?: number;
}

export type SplitMode = 'percentage' | 'fixed';
export interface SplitRow {
  key: string;
  sourceId: string;
  /** As typed (kept within 0–100 by setRowPercentage); '' counts as 0. */
  percentage: string;
  /** As typed, dollars (at most two decimals, never negative, by setRowFixedAmount); '' counts as 0. */
  fixedAmount: string;
}
export interface SplitValue {
  mode: SplitMode;
  rows: SplitRow[];
}

export interface SplitShare {
  sourceId: string;
  name: string;
  last4: string;
  brand: string;
  /** Percentage of the total, to 0.01 (in fixed mode: this share's part of the total, for display). */
  percentage: number;
  cents: number;
  availableCents: number | null;
}

export type SplitError =
  | { code: 'no_splits' }
  | { code: 'percentage_total'; totalPercent: number }
  /** A typed fixed amount has a third decimal (52.905): refused, never rounded, as the server refuses it. */
  | { code: 'fixed_decimals'; rowKeys: string[] }
  | { code: 'fixed_total'; totalCents: number; requiredCents: number }
  | {
      code: 'insufficient';
      /** Sum of the short sources' shares. */
      requiredCents: number;
      /** Sum of what the short sources have (always less than requiredCents). */
      availableCents: number;
      sources: { sourceId: string; name: string; last4: string; requiredCents: number; availableCents: number }[];
    };

/** One row as evaluated (every row whose source is known, zero shares included), for the row's amount. */
export interface EvaluatedRow {
  key: string;
  sourceId: string;
  /** The row's part of the total: its exact share when the totals are valid, else its own typed value. */
  cents: number;
  availableCents: number | null;
  /** checkAvailable is on and this row needs more than its source has. */
  short: boolean;
}

export interface SplitEvaluation {
  mode: SplitMode;
  amountCents: number;
  feeCents: number;
  /** amount + fee. */
  totalCents: number;
  /** Rows with a positive share only, in row order; cents sum exactly to totalCents when valid. */
  shares: SplitShare[];
  rows: EvaluatedRow[];
  /** Sum of the percentages, to 0.01 (percentage mode). */
  percentTotal: number;
  /** Sum of the typed fixed amounts (fixed mode). */
  fixedTotalCents: number;
  /** The first rule broken: no_splits, then percentage_total / fixed_total, then insufficient (only when checkAvailable). */
  error: SplitError | null;
  valid: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Money arithmetic

/** The fee on an amount, rounded half-up to the cent, as the server computes it. */
export function feeCents(amountCents: number, feePercentage: number): number {
  const bps = Math.round(feePercentage * 100);
  if (amountCents <= 0 || bps <= 0) return 0;
  return Math.floor((amountCents * bps + 5000) / 10000);
}

/**
 * Splits `totalCents` in proportion to `weights` (largest remainder): each share is the floor of its exact part and
 * the cents left over go one each to the largest fractional parts (ties to the earlier row). The shares sum to
 * `totalCents` exactly whenever a weight is positive; with no positive weight every share is 0.
 */
export function allocateCents(totalCents: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, w) => a + Math.max(0, w), 0);
  if (sum <= 0 || totalCents <= 0) return weights.map(() => 0);
  // BigInt keeps total × weight exact whatever the sizes.
  const bigSum = BigInt(sum);
  const parts = weights.map((w, i) => {
    const exact = BigInt(totalCents) * BigInt(Math.max(0, w));
    return { i, floor: Number(exact / bigSum), remainder: exact % bigSum };
  });
  let left = totalCents - parts.reduce((a, p) => a + p.floor, 0);
  const order = [...parts].sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1));
  const shares = parts.map((p) => p.floor);
  for (const p of order) {
    if (left <= 0) break;
    shares[p.i] = (shares[p.i] ?? 0) + 1;
    left -= 1;
  }
  return shares;
}

// ---------------------------------------------------------------------------------------------------------------
// Inputs

/** Clamps to 0–100; anything that is not a number is 0. */
export function clampPercentage(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}

/** A typed percentage in basis points (rounded to 0.01 %, clamped to 0–100 %); '' or unreadable is 0. */
export function percentageToBps(typed: string): number {
  if (typed.trim() === '') return 0;
  return Math.round(clampPercentage(Number(typed)) * 100);
}

/** Keeps a typed percentage within 0–100 (spec: min 0 max 100, typed values clamped) while allowing '' and "12.". */
export function clampPercentageInput(typed: string): string {
  if (typed.trim() === '') return '';
  const n = Number(typed);
  if (!Number.isFinite(n)) return '';
  return n > 100 || n < 0 ? String(clampPercentage(n)) : typed;
}

const TWO_DECIMALS = /^(\d+(\.\d{0,2})?|\.\d{1,2})$/;

const EXTRA_DECIMALS = /^\d*\.\d{3,}$/;

/** A typed fixed amount with more than two decimals ("52.905"): the evaluation refuses it (fixed_decimals). */
export function hasExtraDecimals(typed: string): boolean {
  return EXTRA_DECIMALS.test(typed.trim());
}

/**
 * Keeps a typed fixed amount non-negative (spec: min 0) and below the cap. A third decimal stays as typed, so the
 * evaluation can refuse it in words (never cut or rounded behind the person's back); "1e2" becomes "100.00".
 */
export function sanitizeFixedInput(typed: string): string {
  const v = typed.trim();
  if (v === '') return '';
  const n = Number(v);
  if (!Number.isFinite(n)) return '';
  if (n <= 0) return n < 0 ? '0' : v;
  if (n * 100 > MAX_FIXED_CENTS) return centsToDecimal(MAX_FIXED_CENTS);
  if (TWO_DECIMALS.test(v) || EXTRA_DECIMALS.test(v)) return v;
  return centsToDecimal(Math.floor(n * 100 + 1e-6));
}

/** A typed fixed amount in cents; '' or unreadable is 0. */
export function fixedInputToCents(typed: string): number {
  const v = typed.trim();
  if (v === '') return 0;
  const exact = parseCents(v.startsWith('.') ? `0${v}` : v.endsWith('.') ? v.slice(0, -1) : v);
  if (exact !== null) return Math.min(MAX_FIXED_CENTS, Math.max(0, exact));
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(MAX_FIXED_CENTS, Math.floor(n * 100 + 1e-6));
}

// ---------------------------------------------------------------------------------------------------------------
// Rows

function nextRowKey(rows: readonly SplitRow[]): string {
  let max = -1;
  for (const r of rows) {
    const n = /^row-(\d+)$/.exec(r.key)?.[1];
    if (n !== undefined) max = Math.max(max, Number(n));
  }
  return `row-${max + 1}`;
}

/**
 * One row per source, in order. Percentages: the demo defaults 60/40/0/0 by position (0 beyond the 4th), or each
 * source's defaultPercentage with useSourceDefaults, or empty with `cleared` (the Create bcard dialog: spec §4 "cleared
 * splits", so nothing is pre-filled that the person did not choose). Fixed amounts start empty.
 */
export function initialSplit(
  sources: readonly SplitSourceOption[],
  options: { useSourceDefaults?: boolean; cleared?: boolean } = {},
): SplitValue {
  return {
    mode: 'percentage',
    rows: sources.map((s, i) => ({
      key: `row-${i}`,
      sourceId: s.id,
      percentage: options.cleared
        ? ''
        : String(
            clampPercentage(options.useSourceDefaults ? (s.defaultPercentage ?? 0) : (DEMO_DEFAULT_PERCENTAGES[i] ?? 0)),
          ),
      fixedAmount: '',
    })),
  };
}

/** The sources no row uses yet, in source order. */
export function unusedSources(value: SplitValue, sources: readonly SplitSourceOption[]): SplitSourceOption[] {
  const used = new Set(value.rows.map((r) => r.sourceId));
  return sources.filter((s) => !used.has(s.id));
}

/** What a row's select offers: its own source plus the unused ones, in source order. */
export function selectableSources(
  value: SplitValue,
  sources: readonly SplitSourceOption[],
  rowKey: string,
): SplitSourceOption[] {
  const others = new Set(value.rows.filter((r) => r.key !== rowKey).map((r) => r.sourceId));
  return sources.filter((s) => !others.has(s.id));
}

/** 'Add Payment Source' shows only while unused sources remain. */
export function canAddRow(value: SplitValue, sources: readonly SplitSourceOption[]): boolean {
  return unusedSources(value, sources).length > 0;
}

/** Appends a row with the first unused source, percentage 0 and an empty fixed amount; unchanged when none is left. */
export function addRow(value: SplitValue, sources: readonly SplitSourceOption[]): SplitValue {
  const next = unusedSources(value, sources)[0];
  if (!next) return value;
  return {
    ...value,
    rows: [...value.rows, { key: nextRowKey(value.rows), sourceId: next.id, percentage: '0', fixedAmount: '' }],
  };
}

/** A row can be removed only while more than one row exists. */
export function canRemoveRow(value: SplitValue): boolean {
  return value.rows.length > 1;
}

export function removeRow(value: SplitValue, rowKey: string): SplitValue {
  if (!canRemoveRow(value)) return value;
  return { ...value, rows: value.rows.filter((r) => r.key !== rowKey) };
}

/** Points a row at another source; refused (unchanged) when another row already uses it. */
export function setRowSource(value: SplitValue, rowKey: string, sourceId: string): SplitValue {
  if (value.rows.some((r) => r.key !== rowKey && r.sourceId === sourceId)) return value;
  return { ...value, rows: value.rows.map((r) => (r.key === rowKey ? { ...r, sourceId } : r)) };
}

export function setRowPercentage(value: SplitValue, rowKey: string, typed: string): SplitValue {
  const percentage = clampPercentageInput(typed);
  return { ...value, rows: value.rows.map((r) => (r.key === rowKey ? { ...r, percentage } : r)) };
}

export function setRowFixedAmount(value: SplitValue, rowKey: string, typed: string): SplitValue {
  const fixedAmount = sanitizeFixedInput(typed);
  return { ...value, rows: value.rows.map((r) => (r.key === rowKey ? { ...r, fixedAmount } : r)) };
}

/** Switches mode; each row keeps both its percentage and its fixed amount, so switching back restores them. */
export function setMode(value: SplitValue, mode: SplitMode): SplitValue {
  return value.mode === mode ? value : { ...value, mode };
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation

const bpsToPercent = (bps: number) => bps / 100;

/**
 * Fee, total, each row's share, and the first rule broken. Rows whose source is not (or no longer) among `sources`
 * are left out. With checkAvailable, each source's known `available` must cover its share.
 */
export function evaluateSplit(
  value: SplitValue,
  sources: readonly SplitSourceOption[],
  amountCents: number,
  feePercentage: number,
  options: { checkAvailable: boolean },
): SplitEvaluation {
  const amount = Number.isFinite(amountCents) ? Math.max(0, Math.round(amountCents)) : 0;
  const fee = feeCents(amount, feePercentage);
  const total = amount + fee;
  const byId = new Map(sources.map((s) => [s.id, s]));
  const rows = value.rows.flatMap((r) => {
    const source = byId.get(r.sourceId);
    return source ? [{ row: r, source }] : [];
  });

  let error: SplitError | null = null;
  let cents: number[];
  let bps: number[];
  let percentTotal = 0;
  let fixedTotalCents = 0;

  if (value.mode === 'percentage') {
    bps = rows.map(({ row }) => percentageToBps(row.percentage));
    const bpsTotal = bps.reduce((a, b) => a + b, 0);
    percentTotal = bpsToPercent(bpsTotal);
    const totalOk = Math.abs(bpsTotal - FULL_BPS) <= PERCENT_TOLERANCE_BPS;
    // Valid: largest remainder, exact. Invalid: each row shows its own percentage of the total, not a rescaled one.
    cents = totalOk ? allocateCents(total, bps) : bps.map((b) => Math.floor((total * b + 5000) / FULL_BPS));
    if (bpsTotal === 0) error = { code: 'no_splits' };
    else if (!totalOk) error = { code: 'percentage_total', totalPercent: percentTotal };
  } else {
    cents = rows.map(({ row }) => fixedInputToCents(row.fixedAmount));
    fixedTotalCents = cents.reduce((a, b) => a + b, 0);
    const extra = rows.filter(({ row }) => hasExtraDecimals(row.fixedAmount)).map(({ row }) => row.key);
    if (extra.length > 0) error = { code: 'fixed_decimals', rowKeys: extra };
    else if (fixedTotalCents === 0) error = { code: 'no_splits' };
    else if (Math.abs(fixedTotalCents - total) > FIXED_TOLERANCE_CENTS) {
      error = { code: 'fixed_total', totalCents: fixedTotalCents, requiredCents: total };
    } else if (fixedTotalCents !== total) {
      // Within a cent: the largest share (the first, on a tie) absorbs the difference, as the server does.
      const largest = cents.indexOf(Math.max(...cents));
      cents[largest] = (cents[largest] ?? 0) + (total - fixedTotalCents);
    }
    bps = cents.map((c) => (total > 0 ? Math.round((c * FULL_BPS) / total) : 0));
  }

  const evaluated: EvaluatedRow[] = rows.map(({ row, source }, i) => {
    const availableCents = source.available === null ? null : parseCents(source.available);
    const c = cents[i] ?? 0;
    return {
      key: row.key,
      sourceId: source.id,
      cents: c,
      availableCents,
      short: options.checkAvailable && availableCents !== null && c > availableCents,
    };
  });

  // A positive share: a positive percentage (percentage mode: the server takes every listed percentage) or amount.
  const shares: SplitShare[] = rows.flatMap(({ source }, i) => {
    const positive = value.mode === 'percentage' ? (bps[i] ?? 0) > 0 : (cents[i] ?? 0) > 0;
    if (!positive) return [];
    return [
      {
        sourceId: source.id,
        name: source.name,
        last4: source.last4,
        brand: source.brand,
        percentage: bpsToPercent(bps[i] ?? 0),
        cents: cents[i] ?? 0,
        availableCents: evaluated[i]?.availableCents ?? null,
      },
    ];
  });

  if (!error && options.checkAvailable) {
    const short = shares.filter((s) => s.availableCents !== null && s.cents > s.availableCents);
    if (short.length > 0) {
      error = {
        code: 'insufficient',
        requiredCents: short.reduce((a, s) => a + s.cents, 0),
        availableCents: short.reduce((a, s) => a + (s.availableCents ?? 0), 0),
        sources: short.map((s) => ({
          sourceId: s.sourceId,
          name: s.name,
          last4: s.last4,
          requiredCents: s.cents,
          availableCents: s.availableCents ?? 0,
        })),
      };
    }
  }

  return {
    mode: value.mode,
    amountCents: amount,
    feeCents: fee,
    totalCents: total,
    shares,
    rows: evaluated,
    percentTotal,
    fixedTotalCents,
    error,
    valid: error === null,
  };
}

/** The pay button: a valid split with at least one share (and nothing in flight, which the caller knows). */
export function canSubmit(e: SplitEvaluation): boolean {
  return e.valid && e.shares.length > 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Request bodies

/**
 * One `splits` entry as checkout's pay takes it (the schema's); process-payment takes the same entries and more.
 */
export type ProcessPaymentSplit = NonNullable<ApiBody<'/api/checkout/payment_intents/{id}/pay'>['splits']>[number];

/** POST /api/process-payment `splits`: percentages, or fixed amounts as decimal strings (positive shares only). */
export function processPaymentSplits(e: SplitEvaluation): ProcessPaymentSplit[] {
  return e.mode === 'percentage'
    ? e.shares.map((s) => ({ fundingSourceId: s.sourceId, percentage: s.percentage }))
    : e.shares.map((s) => ({ fundingSourceId: s.sourceId, fixedAmount: centsToDecimal(s.cents) }));
}

/** /api/checkout/payment_intents/{id}/pay `splits`: the same entries as process-payment. */
export const checkoutPaySplits = processPaymentSplits;

/** One entry of Create bcard's `fundingSources`, as the server's schema declares it. */
export type CreateBcardFundingSource = ApiBody<'/api/virtual-cards'>['fundingSources'][number];

/**
 * POST /api/virtual-cards `fundingSources`: percentage mode [{ fundingSourceId, percentage, amount }], fixed mode
 * [{ fundingSourceId, amount }]; amount is that source's share of the total, fee included.
 */
export function createBcardFundingSources(e: SplitEvaluation): CreateBcardFundingSource[] {
  return e.mode === 'percentage'
    ? e.shares.map((s) => ({ fundingSourceId: s.sourceId, percentage: s.percentage, amount: centsToDecimal(s.cents) }))
    : e.shares.map((s) => ({ fundingSourceId: s.sourceId, amount: centsToDecimal(s.cents) }));
}
