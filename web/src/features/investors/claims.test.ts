import { expect, test } from 'bun:test';
import { translate } from '../../i18n';
import { ADDRESSABLE_MARKET_YEAR, CLAIMS, METRIC_CLAIMS, MARKET_CLAIMS, PROJECTION_TOTAL, PROJECTIONS, usdCompact } from './claims';

/** Spec §2 "Investor pages", figure for figure. */
const SPEC_FIGURES = {
  marketSize: '$78B',
  marketGrowth: '12.7%',
  cardUsers: '430M+',
  merchants: '5M+',
  monthlyGrowth: '15%',
  volume: '$2.5M',
  activeUsers: '12k+',
  retention: '92%',
  patents: '3',
  addressableMarket: '$2.8B',
  integrations: '500+',
  feeRange: '0.9%–2.9%',
} as const;

test('the claims module states every figure of the spec exactly', () => {
  for (const [id, figure] of Object.entries(SPEC_FIGURES)) {
    expect({ id, figure: CLAIMS[id as keyof typeof SPEC_FIGURES].figure }).toEqual({ id, figure });
  }
  expect(ADDRESSABLE_MARKET_YEAR).toBe(2028);
});

test('"live now" is a claim, in both languages', () => {
  const status = CLAIMS.status.figure;
  expect(translate('en', status.key)).toBe('Live now');
  expect(translate('ar', status.key)).toMatch(/[\u0600-\u06FF]/);
});

test('revenue projections: 2025 $500K, 2026 $2.5M, 2027 $8.5M, total $11.5M', () => {
  expect(PROJECTIONS.map((p) => [p.year, usdCompact(p.dollars)])).toEqual([
    [2025, '$500K'],
    [2026, '$2.5M'],
    [2027, '$8.5M'],
  ]);
  expect(PROJECTION_TOTAL).toBe(11_500_000);
  expect(usdCompact(PROJECTION_TOTAL)).toBe('$11.5M');
});

test('each claim has a label in both languages and the sections show every market and metric figure', () => {
  for (const claim of Object.values(CLAIMS)) {
    expect(claim.id in CLAIMS).toBe(true);
    expect(translate('en', claim.label)).not.toBe(claim.label);
    expect(translate('ar', claim.label)).toMatch(/[\u0600-\u06FF]/);
  }
  const shown = new Set([...MARKET_CLAIMS, ...METRIC_CLAIMS].map((c) => c.id));
  for (const id of ['marketSize', 'marketGrowth', 'cardUsers', 'merchants', 'monthlyGrowth', 'volume', 'activeUsers', 'retention', 'patents', 'status'])
    expect(shown.has(id as never)).toBe(true);
});
