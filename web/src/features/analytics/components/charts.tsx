import { useId, useState, type ReactNode } from 'react';
import { useLanguage } from '../../../i18n';
import { axisTicks, barX } from '../chart-math';

/*
 * The Analytics tab's charts, inline SVG. Each is a <figure> named by its visible title; the picture is a role="img"
 * with the same name, and its figures are always in a table beside it: visually hidden (screen readers read it),
 * shown on "Show table". Time runs left to right in Arabic too (docs/DECISIONS.md, chart direction); the bar lists
 * (sources, merchants) start at the reading start, so they grow from the right in Arabic.
 */

export const SERIES_FILL = ['fill-brand-600', 'fill-emerald-500', 'fill-amber-500', 'fill-sky-500', 'fill-rose-500', 'fill-violet-400', 'fill-slate-400'] as const;
export const SERIES_BG = ['bg-brand-600', 'bg-emerald-500', 'bg-amber-500', 'bg-sky-500', 'bg-rose-500', 'bg-violet-400', 'bg-slate-400'] as const;
export const seriesFill = (i: number) => SERIES_FILL[i % SERIES_FILL.length]!;
export const seriesBg = (i: number) => SERIES_BG[i % SERIES_BG.length]!;

export interface TableSpec {
  columns: string[];
  rows: Array<{ key: string; cells: string[] }>;
}

/** A chart's frame: title, legend, the picture and its table, and the table toggle. */
export function ChartFigure({
  title,
  testId,
  legend,
  table,
  children,
}: {
  title: string;
  testId: string;
  legend?: Array<{ label: string; bg: string }>;
  table: TableSpec;
  children: (titleId: string) => ReactNode;
}) {
  const { t } = useLanguage();
  const id = useId();
  const [showTable, setShowTable] = useState(false);
  const titleId = `${id}-title`;
  return (
    <figure className="min-w-0 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5" aria-labelledby={titleId} data-testid={testId}>
      <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
        <figcaption id={titleId} className="font-semibold text-slate-900">
          {title}
        </figcaption>
        <button
          type="button"
          className="rounded-md px-2 py-1 text-sm font-medium text-brand-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600"
          aria-expanded={showTable}
          aria-controls={`${id}-table`}
          onClick={() => setShowTable((v) => !v)}
          data-testid={`${testId}-toggle`}
        >
          {showTable ? t('analytics.hideTable') : t('analytics.showTable')}
        </button>
      </div>
      {legend && legend.length > 0 && (
        <ul className="mb-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600" aria-hidden>
          {legend.map((l) => (
            <li key={l.label} className="flex min-w-0 items-center gap-1.5">
              <span className={`inline-block h-2.5 w-2.5 shrink-0 rounded-sm ${l.bg}`} />
              <span className="truncate">{l.label}</span>
            </li>
          ))}
        </ul>
      )}
      {children(titleId)}
      <div id={`${id}-table`} className={showTable ? 'mt-4 overflow-x-auto' : 'sr-only'}>
        <table className="w-full text-start text-sm" data-testid={`${testId}-table`}>
          <caption className="sr-only">{title}</caption>
          <thead>
            <tr className="border-b border-slate-200 text-slate-500">
              {table.columns.map((c, i) => (
                <th key={c} scope="col" className={`px-2 py-1.5 font-medium ${i === 0 ? 'text-start' : 'text-end'}`}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.map((r) => (
              <tr key={r.key} className="border-b border-slate-100 last:border-0">
                {r.cells.map((cell, i) =>
                  i === 0 ? (
                    <th key={i} scope="row" className="px-2 py-1.5 text-start font-normal text-slate-900">
                      {cell}
                    </th>
                  ) : (
                    <td key={i} className="px-2 py-1.5 text-end tabular-nums text-slate-700" dir="ltr">
                      {cell}
                    </td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

const W = 560;
const H = 220;
const PAD = { top: 10, right: 8, bottom: 28, left: 56 };

/** Grouped vertical bars over months (time left to right in every language). */
export function MonthBars({
  titleId,
  labels,
  series,
  format,
  testId,
}: {
  titleId: string;
  labels: string[];
  series: Array<{ name: string; values: number[]; fill: string }>;
  format(v: number): string;
  testId: string;
}) {
  const max = Math.max(0, ...series.flatMap((s) => s.values));
  const ticks = axisTicks(max);
  const top = ticks[ticks.length - 1] ?? 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const band = plotW / Math.max(1, labels.length);
  const every = Math.max(1, Math.ceil(labels.length / 6));
  const bw = Math.max(1.5, (band * 0.75) / Math.max(1, series.length));
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-labelledby={titleId} direction="ltr" data-testid={`${testId}-svg`}>
      {ticks.map((tk) => (
        <g key={tk}>
          <line x1={PAD.left} x2={W - PAD.right} y1={y(tk)} y2={y(tk)} className="stroke-slate-200" strokeWidth={1} />
          <text x={PAD.left - 6} y={y(tk)} textAnchor="end" dominantBaseline="middle" className="fill-slate-500 text-[11px]">
            {format(tk)}
          </text>
        </g>
      ))}
      {labels.map((label, i) => {
        const x0 = PAD.left + band * i + (band - bw * series.length) / 2;
        return (
          <g key={label}>
            {series.map((s, k) => {
              const v = s.values[i] ?? 0;
              return (
                <rect key={s.name} x={x0 + k * bw} y={y(v)} width={bw} height={Math.max(0, y(0) - y(v))} className={s.fill} data-value={v}>
                  <title>{`${label} · ${s.name}: ${format(v)}`}</title>
                </rect>
              );
            })}
            {i % every === 0 && (
              <text x={PAD.left + band * i + band / 2} y={H - PAD.bottom + 16} textAnchor="middle" className="fill-slate-500 text-[11px]">
                {label}
              </text>
            )}
          </g>
        );
      })}
      <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} className="stroke-slate-400" strokeWidth={1} />
    </svg>
  );
}

/** 100 % stacked bars over months: each source's share of what was charged that month. */
export function ShareBars({
  titleId,
  labels,
  shares,
  names,
  testId,
}: {
  titleId: string;
  labels: string[];
  /** Per month, each series' whole percent (summing to 100, or all 0 for a month without charges). */
  shares: number[][];
  names: string[];
  testId: string;
}) {
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const band = plotW / Math.max(1, labels.length);
  const every = Math.max(1, Math.ceil(labels.length / 6));
  const bw = Math.max(2, band * 0.7);
  const y = (pct: number) => PAD.top + plotH - (pct / 100) * plotH;
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-labelledby={titleId} direction="ltr" data-testid={`${testId}-svg`}>
      {[0, 25, 50, 75, 100].map((tk) => (
        <g key={tk}>
          <line x1={PAD.left} x2={W - PAD.right} y1={y(tk)} y2={y(tk)} className="stroke-slate-200" strokeWidth={1} />
          <text x={PAD.left - 6} y={y(tk)} textAnchor="end" dominantBaseline="middle" className="fill-slate-500 text-[11px]">
            {`${tk}%`}
          </text>
        </g>
      ))}
      {labels.map((label, i) => {
        const x = PAD.left + band * i + (band - bw) / 2;
        let below = 0;
        return (
          <g key={label}>
            {(shares[i] ?? []).map((pct, k) => {
              if (pct <= 0) return null;
              const rect = (
                <rect key={k} x={x} y={y(below + pct)} width={bw} height={y(below) - y(below + pct)} className={seriesFill(k)} data-value={pct}>
                  <title>{`${label} · ${names[k] ?? ''}: ${pct}%`}</title>
                </rect>
              );
              below += pct;
              return rect;
            })}
            {i % every === 0 && (
              <text x={PAD.left + band * i + band / 2} y={H - PAD.bottom + 16} textAnchor="middle" className="fill-slate-500 text-[11px]">
                {label}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

/** Horizontal bars, one a row, largest first; they start at the reading start (the right in Arabic). */
export function RowBars({
  titleId,
  rows,
  format,
  testId,
}: {
  titleId: string;
  rows: Array<{ key: string; label: string; value: number; fill: string }>;
  format(v: number): string;
  testId: string;
}) {
  const { dir } = useLanguage();
  const rtl = dir === 'rtl';
  const rowH = 34;
  const w = 360;
  const h = rows.length * rowH + 4;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const plotW = w - 8;
  return (
    // direction ltr: anchors below are physical (end = the text ends at x), mirrored by hand for Arabic.
    <svg viewBox={`0 0 ${w} ${h}`} className="h-auto w-full" role="img" aria-labelledby={titleId} direction="ltr" data-testid={`${testId}-svg`}>
      {rows.map((r, i) => {
        const bw = Math.max(r.value > 0 ? 2 : 0, (r.value / max) * plotW * 0.62);
        const yTop = i * rowH;
        const labelX = rtl ? w - 4 : 4;
        return (
          <g key={r.key}>
            <text x={labelX} y={yTop + 11} textAnchor={rtl ? 'end' : 'start'} className="fill-slate-700 text-[11px]">
              {r.label.length > 38 ? `${r.label.slice(0, 37)}…` : r.label}
            </text>
            <rect x={barX(0, bw, 4, plotW, rtl)} y={yTop + 16} width={bw} height={12} rx={2} className={r.fill} data-value={r.value}>
              <title>{`${r.label}: ${format(r.value)}`}</title>
            </rect>
            <text
              x={rtl ? barX(0, bw, 4, plotW, rtl) - 6 : 4 + bw + 6}
              y={yTop + 26}
              textAnchor={rtl ? 'end' : 'start'}
              className="fill-slate-600 text-[11px]"
            >
              {format(r.value)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
