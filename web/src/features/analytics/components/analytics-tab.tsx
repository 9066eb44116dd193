import { useQuery } from '@tanstack/react-query';
import { BarChart3, Download, FlaskConical, Loader2 } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { useLanguage, type Lang, type Translate } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { formatCents, parseCents } from '../../../lib/money';
import { analyticsCsvUrl, analyticsQuery, localUtcOffset, RANGE_MONTHS, type RangeMonths, type SpendingAnalytics } from '../api';
import { percentShares } from '../chart-math';
import { ChartFigure, MonthBars, RowBars, seriesBg, seriesFill, ShareBars } from './charts';

const monthFormats: Record<Lang, Intl.DateTimeFormat> = {
  en: new Intl.DateTimeFormat('en-US', { month: 'short', year: '2-digit', timeZone: 'UTC' }),
  ar: new Intl.DateTimeFormat('ar-u-nu-latn', { month: 'short', year: '2-digit', timeZone: 'UTC' }),
};

/** "2026-01" in the reader's language ("Jan 26"). */
export function monthLabel(month: string, lang: Lang): string {
  const [y, m] = month.split('-').map(Number);
  if (!y || !m) return month;
  return monthFormats[lang].format(new Date(Date.UTC(y, m - 1, 1)));
}

const cents = (amount: string) => parseCents(amount) ?? 0;

/** Nothing in the period: no purchase, nothing returned, no fee or plan charge. */
const isEmpty = (data: SpendingAnalytics) =>
  data.totals.purchases === 0 && [data.totals.returned, data.totals.fees, data.totals.planCharges].every((x) => cents(x) === 0);
const isRange = (v: number): v is RangeMonths => (RANGE_MONTHS as readonly number[]).includes(v);

/**
 * Analytics: the signed-in consumer's spending over a chosen number of months, from GET /api/analytics (the one
 * definition of spending, api/src/modules/spending: what merchants charged the bcards less their refunds): totals,
 * spending by month, each funding source's part of it, the top merchants, and each source's share by month; money
 * returned, fees and plan charges beside it; the same figures as CSV. Demo mode has no sample analytics: it says so.
 */
export function AnalyticsTab({ isDemo }: { isDemo: boolean }) {
  const { t, lang } = useLanguage();
  const [months, setMonths] = useState<RangeMonths>(12);
  const [utcOffset] = useState(() => localUtcOffset());
  const query = useQuery({ ...analyticsQuery(months, utcOffset), enabled: !isDemo });
  const data = query.data;

  return (
    <Card>
      <div className="flex flex-col gap-4 p-6 lg:flex-row lg:items-end lg:justify-between">
        <div className="space-y-1.5">
          <CardTitle level={2}>{t('analytics.title')}</CardTitle>
          <CardDescription>{t('analytics.description')}</CardDescription>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Label htmlFor="analytics-range" className="shrink-0 text-slate-500">
            {t('analytics.range.label')}
          </Label>
          <select
            id="analytics-range"
            data-testid="analytics-range"
            className="h-9 rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900"
            value={months}
            onChange={(e) => {
              const v = Number(e.target.value);
              if (isRange(v)) setMonths(v);
            }}
          >
            {RANGE_MONTHS.map((n) => (
              <option key={n} value={n}>
                {t('analytics.range.months', { n })}
              </option>
            ))}
          </select>
          {isDemo ? (
            <Button variant="outline" size="sm" disabled className="h-9" aria-describedby="analytics-demo-note" data-testid="analytics-download">
              <Download className="h-4 w-4" aria-hidden />
              {t('analytics.download')}
            </Button>
          ) : (
            <a href={analyticsCsvUrl(months, utcOffset)} download className={buttonClasses('outline', 'sm', 'h-9')} data-testid="analytics-download">
              <Download className="h-4 w-4" aria-hidden />
              {t('analytics.download')}
            </a>
          )}
        </div>
      </div>
      <CardContent>
        {isDemo ? (
          <p id="analytics-demo-note" className="flex items-start gap-2 text-sm text-amber-800" data-testid="analytics-demo-note">
            <FlaskConical className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
            {t('analytics.demoNote')}
          </p>
        ) : query.isLoading ? (
          <p className="flex items-center gap-2 py-8 text-sm text-slate-500" aria-busy="true">
            <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
            {t('common.loading')}
          </p>
        ) : query.isError ? (
          <div className="space-y-3 rounded-xl border border-red-200 bg-red-50 p-6" role="alert">
            <p className="text-sm text-red-700">
              {t('analytics.loadFailed')} {messageOf(query.error)}
            </p>
            <Button variant="outline" size="sm" onClick={() => void query.refetch()}>
              {t('common.retry')}
            </Button>
          </div>
        ) : data && isEmpty(data) ? (
          <div className="flex flex-col items-center justify-center rounded-xl border border-dashed border-slate-300 bg-white px-6 py-12 text-center" data-testid="analytics-empty">
            <span className="mb-4 flex h-12 w-12 items-center justify-center rounded-full bg-brand-50 text-brand-600" aria-hidden>
              <BarChart3 className="h-6 w-6" />
            </span>
            <p className="text-base font-semibold text-slate-900">{t('analytics.empty')}</p>
            <p className="mt-1 max-w-sm text-sm text-slate-500">{t('analytics.emptyBody')}</p>
          </div>
        ) : data ? (
          <AnalyticsFigures data={data} t={t} lang={lang} />
        ) : null}
      </CardContent>
    </Card>
  );
}

function AnalyticsFigures({ data, t, lang }: { data: SpendingAnalytics; t: Translate; lang: Lang }) {
  const money = (c: number) => formatCents(c);
  const labels = data.months.map((m) => monthLabel(m.month, lang));
  const sourceName = useMemo(() => {
    const names = new Map(data.sources.map((s) => [s.fundingSourceId, `${s.name} •••• ${s.last4}`]));
    const removed = new Set(data.sources.filter((s) => s.removed).map((s) => s.fundingSourceId));
    return (id: string) => {
      const n = names.get(id) ?? id;
      return removed.has(id) ? t('analytics.bySource.removed', { name: n }) : n;
    };
  }, [data.sources, t]);
  const sourceIds = data.sources.map((s) => s.fundingSourceId);
  const shareRows = data.months.map((m) => {
    const of = new Map(m.sources.map((s) => [s.fundingSourceId, cents(s.spent)]));
    return percentShares(sourceIds.map((id) => of.get(id) ?? 0));
  });
  const merchantRows = [
    ...data.merchants.map((m, i) => ({
      key: m.merchant,
      label: m.merchant,
      value: cents(m.spent),
      refunded: money(cents(m.refunded)),
      purchases: m.purchases,
      fill: seriesFill(i),
    })),
    ...(data.otherMerchants
      ? [
          {
            key: '\u0000other',
            label: t('analytics.byMerchant.other', { n: data.otherMerchants.merchants }),
            value: cents(data.otherMerchants.spent),
            refunded: '',
            purchases: data.otherMerchants.purchases,
            fill: 'fill-slate-400',
          },
        ]
      : []),
  ];
  const tt = data.totals;
  // What each figure is: the labels say it (spent at merchants, returned, fees net of what came back, plan charges apart).
  const stats = [
    { key: 'spent', label: t('analytics.totals.spent'), value: cents(tt.spent), hint: t('analytics.totals.spentHint', { charged: money(cents(tt.charged)), refunded: money(cents(tt.refunded)) }) },
    { key: 'returned', label: t('analytics.totals.refunded'), value: cents(tt.returned), hint: t('analytics.totals.returnedHint') },
    { key: 'fees', label: t('analytics.totals.fees'), value: cents(tt.fees) - cents(tt.feesReturned), hint: t('analytics.totals.feesHint', { returned: money(cents(tt.feesReturned)), charged: money(cents(tt.fees)) }) },
    { key: 'plan-charges', label: t('spending.planCharges'), value: cents(tt.planCharges), hint: t('spending.planChargesHint') },
  ];
  const spentName = t('analytics.byMonth.spent');
  const refundedName = t('analytics.byMonth.refunded');

  return (
    <div className="space-y-6">
      <section aria-label={t('analytics.totals.label')}>
        <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
          {stats.map((s) => (
            <div key={s.key} className="min-w-0 rounded-xl border border-slate-200 bg-white p-4" data-testid={`analytics-total-${s.key}`}>
              <dt className="text-sm text-slate-500">{s.label}</dt>
              <dd className="mt-1 text-xl font-bold tabular-nums text-slate-900" dir="ltr">
                {money(s.value)}
              </dd>
              {s.hint && <dd className="mt-1 text-xs text-slate-500">{s.hint}</dd>}
            </div>
          ))}
        </dl>
      </section>
      <div className="grid gap-6 lg:grid-cols-2">
        <ChartFigure
          title={t('analytics.byMonth.title')}
          testId="analytics-by-month"
          legend={[
            { label: spentName, bg: 'bg-brand-600' },
            { label: refundedName, bg: 'bg-emerald-500' },
          ]}
          table={{
            columns: [
              t('analytics.col.month'),
              spentName,
              t('analytics.byMonth.charged'),
              refundedName,
              t('analytics.byMonth.returned'),
              t('analytics.byMonth.fees'),
              t('analytics.byMonth.planCharges'),
              t('analytics.col.purchases'),
            ],
            rows: data.months.map((m, i) => ({
              key: m.month,
              cells: [
                labels[i]!,
                money(cents(m.spent)),
                money(cents(m.charged)),
                money(cents(m.refunded)),
                money(cents(m.returned)),
                money(cents(m.fees) - cents(m.feesReturned)),
                money(cents(m.planCharges)),
                String(m.purchases),
              ],
            })),
          }}
        >
          {(titleId) => (
            <MonthBars
              titleId={titleId}
              testId="analytics-by-month"
              labels={labels}
              format={(v) => money(Math.round(v))}
              series={[
                { name: spentName, values: data.months.map((m) => cents(m.spent)), fill: 'fill-brand-600' },
                { name: refundedName, values: data.months.map((m) => cents(m.refunded)), fill: 'fill-emerald-500' },
              ]}
            />
          )}
        </ChartFigure>
        <ChartFigure
          title={t('analytics.bySource.title')}
          testId="analytics-by-source"
          table={{
            columns: [t('analytics.col.source'), t('analytics.col.spent'), t('analytics.col.purchases')],
            rows: data.sources.map((s) => ({ key: s.fundingSourceId, cells: [sourceName(s.fundingSourceId), money(cents(s.spent)), String(s.purchases)] })),
          }}
        >
          {(titleId) => (
            <RowBars
              titleId={titleId}
              testId="analytics-by-source"
              format={money}
              rows={data.sources.map((s, i) => ({ key: s.fundingSourceId, label: sourceName(s.fundingSourceId), value: cents(s.spent), fill: seriesFill(i) }))}
            />
          )}
        </ChartFigure>
        <ChartFigure
          title={t('analytics.byMerchant.title')}
          testId="analytics-by-merchant"
          table={{
            columns: [t('analytics.col.merchant'), spentName, refundedName, t('analytics.col.purchases')],
            rows: merchantRows.map((m) => ({ key: m.key, cells: [m.label, money(m.value), m.refunded, String(m.purchases)] })),
          }}
        >
          {(titleId) => <RowBars titleId={titleId} testId="analytics-by-merchant" format={money} rows={merchantRows} />}
        </ChartFigure>
        <ChartFigure
          title={t('analytics.shareOverTime.title')}
          testId="analytics-share"
          legend={data.sources.map((s, i) => ({ label: sourceName(s.fundingSourceId), bg: seriesBg(i) }))}
          table={{
            columns: [t('analytics.col.month'), ...data.sources.map((s) => sourceName(s.fundingSourceId))],
            rows: data.months.map((m, i) => ({
              key: m.month,
              cells: [labels[i]!, ...(m.sources.length === 0 ? sourceIds.map(() => t('analytics.shareOverTime.none')) : shareRows[i]!.map((p) => `${p}%`))],
            })),
          }}
        >
          {(titleId) => <ShareBars titleId={titleId} testId="analytics-share" labels={labels} shares={shareRows} names={data.sources.map((s) => sourceName(s.fundingSourceId))} />}
        </ChartFigure>
      </div>
    </div>
  );
}
