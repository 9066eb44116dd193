import { useId } from 'react';
import { niceTicks } from '../chart-scale';

export interface ChartPoint {
  label: string;
  value: number;
}

interface ChartProps {
  title: string;
  points: ChartPoint[];
  xLabel: string;
  yLabel: string;
  format(v: number): string;
  emptyText: string;
  kind: 'bar' | 'line';
  testId?: string;
}

const W = 560;
const H = 240;
const PAD = { top: 12, right: 12, bottom: 44, left: 64 };

/**
 * A small accessible chart drawn as inline SVG: the picture is labelled by its title and hidden from screen
 * readers in favour of a visually hidden table with the same figures. Drawn left to right in both languages.
 */
export function Chart({ title, points, xLabel, yLabel, format, emptyText, kind, testId }: ChartProps) {
  const id = useId();
  const max = Math.max(0, ...points.map((p) => p.value));
  const ticks = niceTicks(max);
  const top = ticks[ticks.length - 1] ?? 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const band = points.length > 0 ? plotW / points.length : plotW;
  const x = (i: number) => PAD.left + band * i + band / 2;
  // Show at most ~8 x labels so dates do not overlap.
  const every = Math.max(1, Math.ceil(points.length / 8));

  return (
    <figure className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm" aria-labelledby={`${id}-title`} data-testid={testId}>
      <figcaption id={`${id}-title`} className="mb-3 font-semibold text-slate-900">
        {title}
      </figcaption>
      {points.length === 0 ? (
        <p className="py-10 text-center text-sm text-slate-500">{emptyText}</p>
      ) : (
        <>
          <svg viewBox={`0 0 ${W} ${H}`} className="h-auto w-full" role="img" aria-labelledby={`${id}-title`} direction="ltr" data-testid={testId ? `${testId}-svg` : undefined}>
            {ticks.map((tk) => (
              <g key={tk}>
                <line x1={PAD.left} x2={W - PAD.right} y1={y(tk)} y2={y(tk)} className="stroke-slate-200" strokeWidth={1} />
                <text x={PAD.left - 6} y={y(tk)} textAnchor="end" dominantBaseline="middle" className="fill-slate-500 text-[10px]">
                  {format(tk)}
                </text>
              </g>
            ))}
            <line x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} className="stroke-slate-400" strokeWidth={1} />
            {kind === 'bar'
              ? points.map((p, i) => {
                  const bw = Math.max(2, band * 0.7);
                  return (
                    <rect key={p.label} x={x(i) - bw / 2} y={y(p.value)} width={bw} height={Math.max(0, y(0) - y(p.value))} rx={2} className="fill-brand-600" data-value={p.value}>
                      <title>{`${p.label}: ${format(p.value)}`}</title>
                    </rect>
                  );
                })
              : (
                  <>
                    <polyline
                      fill="none"
                      className="stroke-brand-600"
                      strokeWidth={2}
                      points={points.map((p, i) => `${x(i)},${y(p.value)}`).join(' ')}
                    />
                    {points.map((p, i) => (
                      <circle key={p.label} cx={x(i)} cy={y(p.value)} r={3} className="fill-brand-600" data-value={p.value}>
                        <title>{`${p.label}: ${format(p.value)}`}</title>
                      </circle>
                    ))}
                  </>
                )}
            {points.map((p, i) =>
              i % every === 0 ? (
                <text key={p.label} x={x(i)} y={H - PAD.bottom + 14} textAnchor="middle" className="fill-slate-500 text-[10px]">
                  {p.label}
                </text>
              ) : null,
            )}
            <text x={PAD.left + plotW / 2} y={H - 6} textAnchor="middle" className="fill-slate-600 text-[11px] font-medium">
              {xLabel}
            </text>
            <text x={12} y={PAD.top + plotH / 2} textAnchor="middle" transform={`rotate(-90 12 ${PAD.top + plotH / 2})`} className="fill-slate-600 text-[11px] font-medium">
              {yLabel}
            </text>
          </svg>
          <table className="sr-only">
            <caption>{title}</caption>
            <thead>
              <tr>
                <th scope="col">{xLabel}</th>
                <th scope="col">{yLabel}</th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.label}>
                  <th scope="row">{p.label}</th>
                  <td>{format(p.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </figure>
  );
}
