import { Fragment } from 'react';
import type { Lang } from '../../../i18n';
import { layoutBars, type Box } from '../chart-layout';
import { PROJECTION_TOTAL, PROJECTIONS, usdCompact } from '../claims';
import { usePageT } from '../../../i18n';
import { Ltr, Rich } from './ltr';

/** SVG user units; the drawing scales to the card's width (390 px phones included). */
const BOX: Box = { width: 340, height: 240, padding: { top: 28, right: 6, bottom: 32, left: 54 } };
const TITLE_ID = 'investors-chart-title';
const DESC_ID = 'investors-chart-desc';

/**
 * Projected revenue as a bar chart. The SVG is one image for assistive tech: named by the visible title and
 * described by the visible caption that lists every value. The chart keeps time running left to right in both
 * languages (dir="ltr" on the SVG), like the figures it shows; only the text around it is right-to-left.
 */
export function RevenueChart({ lang }: { lang: Lang }) {
  const t = usePageT(lang);
  const layout = layoutBars(
    PROJECTIONS.map((p) => p.dollars),
    BOX,
  );
  const first = PROJECTIONS[0]?.year;
  const last = PROJECTIONS[PROJECTIONS.length - 1]?.year;
  const range = (
    <Ltr>
      {first}–{last}
    </Ltr>
  );

  const list = PROJECTIONS.map((p, i) => (
    <Fragment key={p.year}>
      {i > 0 && t('investors.projections.separator')}
      <Rich
        template={t('investors.projections.item')}
        values={{ year: <Ltr>{p.year}</Ltr>, amount: <Ltr>{usdCompact(p.dollars)}</Ltr> }}
      />
    </Fragment>
  ));

  return (
    <figure className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-8">
      <h3 id={TITLE_ID} className="text-lg font-semibold text-slate-900">
        {t('investors.projections.chartTitle')}
      </h3>
      <div dir="ltr" className="mt-4">
      <svg
        role="img"
        aria-labelledby={TITLE_ID}
        aria-describedby={DESC_ID}
        viewBox={`0 0 ${BOX.width} ${BOX.height}`}
        className="mx-auto block h-auto w-full max-w-lg"
        data-testid="revenue-chart"
      >
        <defs>
          <linearGradient id="investors-bar-fill" x1="0" y1="0" x2="0" y2="1">
            <stop offset="0%" stopColor="var(--color-brand-500)" />
            <stop offset="100%" stopColor="var(--color-brand-700)" />
          </linearGradient>
        </defs>
        {layout.ticks.map((tick) => (
          <g key={tick.value}>
            <line x1={layout.plotLeft} x2={layout.plotRight} y1={tick.y} y2={tick.y} className="stroke-slate-200" strokeWidth={1} />
            <text x={layout.plotLeft - 6} y={tick.y} textAnchor="end" dominantBaseline="middle" className="fill-slate-600" fontSize={13}>
              {usdCompact(tick.value)}
            </text>
          </g>
        ))}
        {layout.bars.map((bar, i) => {
          const p = PROJECTIONS[i];
          if (!p) return null;
          return (
            <g key={p.year} data-year={p.year}>
              <rect x={bar.x} y={bar.y} width={bar.width} height={bar.height} rx={4} fill="url(#investors-bar-fill)" />
              <text x={bar.centerX} y={bar.y - 8} textAnchor="middle" className="fill-slate-900" fontSize={14} fontWeight={700}>
                {usdCompact(p.dollars)}
              </text>
              <text x={bar.centerX} y={layout.baseline + 20} textAnchor="middle" className="fill-slate-700" fontSize={13} fontWeight={500}>
                {p.year}
              </text>
            </g>
          );
        })}
        <line x1={layout.plotLeft} x2={layout.plotRight} y1={layout.baseline} y2={layout.baseline} className="stroke-slate-400" strokeWidth={1} />
      </svg>
      </div>
      <figcaption id={DESC_ID} className="mt-4 text-sm leading-relaxed text-slate-700">
        <Rich
          template={t('investors.projections.description')}
          values={{ list, total: <Ltr>{usdCompact(PROJECTION_TOTAL)}</Ltr> }}
        />
      </figcaption>
      <dl data-claim="projectionTotal" className="mt-6 flex flex-col gap-1 rounded-xl bg-brand-50 p-4">
        <dt className="order-2 text-sm font-medium text-slate-700">
          <Rich template={t('investors.projections.total')} values={{ range }} />
        </dt>
        <dd className="order-1 text-3xl font-bold tracking-tight text-brand-700">
          <Ltr>{usdCompact(PROJECTION_TOTAL)}</Ltr>
        </dd>
      </dl>
      <p className="mt-3 text-xs text-slate-600">{t('investors.projections.note')}</p>
    </figure>
  );
}
