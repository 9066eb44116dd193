import { Elysia, t } from 'elysia';
import { laggingReads, type AppDeps } from '../../deps';
import { errors, rawResponses, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { analyticsCsv, ANALYTICS_CSV_COLUMNS, MAX_MONTHS, MAX_TOP, MAX_UTC_OFFSET, spendingAnalytics } from './service';
import { MAX_ACTIVITY, recentActivity } from '../spending/service';
import { invalid } from '../../errors';

const Money = (description: string) => t.String({ description: `${description}, in dollars`, examples: ['100.00'] });

const Figures = {
  spent: Money('Spent at merchants: what they charged your bcards, less what they refunded (charged - refunded)'),
  charged: Money('What merchants charged your bcards'),
  refunded: Money('What merchants refunded of it (purchase part; issuer-side returns included)'),
  fees: Money('bpay fees of the bcards counted'),
  feesReturned: Money('Fees that came back (an unused bcard, a merchant refund, an unspent remainder)'),
  returned: Money('Money collected onto bcards and never spent, back with your sources (fee apart)'),
  planCharges: Money('Plan charges, shown apart: never part of spent'),
  purchases: t.Integer({ description: 'bcards spent at a merchant' }),
};

const AnalyticsModel = t.Object(
  {
    range: t.Object({
      from: t.String({ description: 'First month, YYYY-MM' }),
      to: t.String({ description: 'Last month, YYYY-MM (included)' }),
      utcOffset: t.Integer({ description: 'Minutes east of UTC at which months begin' }),
    }),
    currency: t.Literal('usd'),
    totals: t.Object(Figures),
    months: t.Array(
      t.Object({
        month: t.String({ description: 'YYYY-MM; every month of the range is listed, oldest first' }),
        ...Figures,
        sources: t.Array(t.Object({ fundingSourceId: t.String(), spent: Money("This source's part of the month's spending") })),
      }),
    ),
    sources: t.Array(
      t.Object({
        fundingSourceId: t.String(),
        name: t.String(),
        brand: t.String(),
        last4: t.String(),
        removed: t.Boolean({ description: 'The source was removed since' }),
        spent: Money("This source's part of the spending: each spend split over its bcard's shares by their amounts"),
        purchases: t.Integer({ description: 'Purchases it funded a part of' }),
      }),
    ),
    merchants: t.Array(
      t.Object({
        merchant: t.String(),
        charged: Money('What the merchant charged'),
        refunded: Money('What it refunded'),
        spent: Money('charged - refunded'),
        purchases: t.Integer(),
      }),
      { description: 'The top merchants by amount spent, largest first' },
    ),
    otherMerchants: t.Union([
      t.Object({ spent: Money('The other merchants together'), purchases: t.Integer(), merchants: t.Integer() }),
      t.Null(),
    ]),
  },
  { $id: '#/components/schemas/SpendingAnalytics' },
);

const ActivityItemModel = t.Object(
  {
    kind: t.UnionEnum(['purchase', 'returned', 'plan_charge'], {
      description: 'purchase: a bcard spent at a merchant; returned: an unused bcard ended and its money came back; plan_charge: the plan’s price',
    }),
    id: t.String(),
    at: t.String({ format: 'date-time', description: 'When the bcard was spent or ended, or the plan charged' }),
    title: t.String({ description: 'The merchant, the bcard’s name, or the plan’s name' }),
    amount: t.String({ description: 'purchase: spent (charged - refunded); returned: what came back, fee included; plan_charge: the price' }),
    charged: t.String({ description: 'purchase: what the merchant charged' }),
    refunded: t.String({ description: 'purchase: what the merchant refunded of it' }),
    transactionId: t.Union([t.String(), t.Null()], { description: 'The transaction to open (GET /api/transactions/{id}); null for plan charges' }),
  },
  { $id: '#/components/schemas/SpendingActivityItem' },
);

// Numbers are range-checked in the service, so the message names the parameter and its bounds.
const AnalyticsQuery = t.Object({
  months: t.Optional(t.Numeric({ error: `months must be a whole number between 1 and ${MAX_MONTHS}.`, description: `The last n months, this one included (1-${MAX_MONTHS}, 12 by default)` })),
  from: t.Optional(t.String({ maxLength: 7, error: 'from must be a month written YYYY-MM (for example 2026-01).', description: 'First month, YYYY-MM (with to, instead of months)' })),
  to: t.Optional(t.String({ maxLength: 7, error: 'to must be a month written YYYY-MM (for example 2026-01).', description: 'Last month, YYYY-MM, included' })),
  utcOffset: t.Optional(
    t.Numeric({ error: `utcOffset must be a whole number of minutes between -${MAX_UTC_OFFSET} and ${MAX_UTC_OFFSET}.`, description: "The viewer's minutes east of UTC (months begin at local midnight); 0 by default" }),
  ),
  top: t.Optional(t.Numeric({ error: `top must be a whole number between 1 and ${MAX_TOP}.`, description: `How many merchants to list before "other" (1-${MAX_TOP}, 5 by default)` })),
});

export function analyticsRoutes(deps: AppDeps) {
  // Lists, history and figures read where they may lag (issue 30 §3); money decisions never do.
  const lagging = laggingReads(deps);
  return new Elysia({ tags: ['Analytics'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get(
      '/api/spending/activity',
      ({ user, query }) => {
        const limit = query.limit ?? 5;
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ACTIVITY) throw invalid('limit', `limit must be a whole number between 1 and ${MAX_ACTIVITY}.`);
        return recentActivity(deps, user.id, limit);
      },
      {
        auth: true,
        query: t.Object({ limit: t.Optional(t.Numeric({ error: `limit must be a whole number between 1 and ${MAX_ACTIVITY}.` })) }),
        response: { 200: t.Array(ActivityItemModel), ...errors(400, 401) },
        detail: {
          summary: 'Your latest spending events, newest first (the Overview’s Recent Activity)',
          description: 'Purchases (spent = charged - refunded), unused bcards whose money came back, and plan charges, by the same definition as GET /api/analytics.',
        },
      },
    )
    .get('/api/analytics', ({ user, query }) => spendingAnalytics(lagging, user.id, query), {
      auth: true,
      query: AnalyticsQuery,
      response: { 200: AnalyticsModel, ...errors(400, 401) },
      detail: {
        summary: 'Your spending by month, funding source and merchant; refunds, fees, money returned, plan charges',
        description:
          'Spending is what merchants charged your bcards less what they refunded (money held on a bcard and not spent ' +
          'is not spending). A purchase is dated when its bcard was spent, its refunds with it; an unused bcard when it ' +
          'ended; a plan charge when it was made. Give months, or from and to.',
      },
    })
    .get(
      '/api/analytics.csv',
      async ({ user, query }) => {
        const a = await spendingAnalytics(lagging, user.id, query);
        return new Response(analyticsCsv(a), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="bpay-analytics-${a.range.from}-to-${a.range.to}.csv"`,
            'cache-control': 'no-store',
          },
        });
      },
      {
        auth: true,
        query: AnalyticsQuery,
        detail: {
          summary: 'The same figures as CSV, one figure a row',
          description:
            'The figures of GET /api/analytics for the same range, as a CSV file to download (one figure a row). ' +
            'For the signed-in user, about their own spending only; read only.',
          responses: rawResponses(
            {
              description: 'A CSV file (RFC 4180; cells a spreadsheet would run as formulas are neutralised)',
              content: { 'text/csv': { schema: { type: 'string', examples: [ANALYTICS_CSV_COLUMNS.join(',')] } } },
            },
            400,
            401,
          ) as never,
        },
      },
    );
}
