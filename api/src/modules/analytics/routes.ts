import { Elysia, t } from 'elysia';
import type { AppDeps } from '../../deps';
import { errors, rawResponses, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { analyticsCsv, ANALYTICS_CSV_COLUMNS, MAX_MONTHS, MAX_TOP, MAX_UTC_OFFSET, spendingAnalytics } from './service';

const Money = (description: string) => t.String({ description: `${description}, in dollars`, examples: ['100.00'] });

const AnalyticsModel = t.Object(
  {
    range: t.Object({
      from: t.String({ description: 'First month, YYYY-MM' }),
      to: t.String({ description: 'Last month, YYYY-MM (included)' }),
      utcOffset: t.Integer({ description: 'Minutes east of UTC at which months begin' }),
    }),
    currency: t.Literal('usd'),
    totals: t.Object({
      spent: Money('Purchase amounts (fees apart) of transactions whose bcard was issued'),
      fees: Money('bpay fees charged with them'),
      feesReturned: Money('Fees that came back (an unused bcard refunded, merchants refunds)'),
      refunded: Money('Everything that came back to the sources: bcardRefunds + merchantRefunds'),
      bcardRefunds: Money('An unused bcard refunded in full, or what a purchase left on its bcard'),
      merchantRefunds: Money("Merchants' succeeded refunds, the fee returned with them included"),
      net: Money('spent + fees - refunded'),
      transactions: t.Integer(),
    }),
    months: t.Array(
      t.Object({
        month: t.String({ description: 'YYYY-MM; every month of the range is listed, oldest first' }),
        spent: Money('Purchase amounts'),
        fees: Money('Fees charged'),
        feesReturned: Money('Fees returned'),
        refunded: Money('Refunds of this month’s transactions (whenever they happened)'),
        net: Money('spent + fees - refunded'),
        transactions: t.Integer(),
        sources: t.Array(t.Object({ fundingSourceId: t.String(), charged: Money('What this source was charged this month, fee included') })),
      }),
    ),
    sources: t.Array(
      t.Object({
        fundingSourceId: t.String(),
        name: t.String(),
        brand: t.String(),
        last4: t.String(),
        removed: t.Boolean({ description: 'The source was removed since' }),
        charged: Money('What this source was charged over the range, fee included, before refunds'),
        transactions: t.Integer(),
      }),
    ),
    merchants: t.Array(
      t.Object({
        merchant: t.Union([t.String(), t.Null()], { description: 'null: bcards not (yet) spent at a merchant' }),
        spent: Money('Purchase amounts'),
        transactions: t.Integer(),
      }),
      { description: 'The top merchants by amount spent, largest first' },
    ),
    otherMerchants: t.Union([
      t.Object({ spent: Money('The other merchants together'), transactions: t.Integer(), merchants: t.Integer() }),
      t.Null(),
    ]),
  },
  { $id: '#/components/schemas/SpendingAnalytics' },
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
  return new Elysia({ tags: ['Analytics'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get('/api/analytics', ({ user, query }) => spendingAnalytics(deps, user.id, query), {
      auth: true,
      query: AnalyticsQuery,
      response: { 200: AnalyticsModel, ...errors(400, 401) },
      detail: {
        summary: 'Your spending by month, funding source and merchant; fees; refunds',
        description:
          'Counts transactions whose bcard was issued (merchants’ sandbox test bcards never). Refunds are dated by the ' +
          'transaction they belong to. Give months, or from and to.',
      },
    })
    .get(
      '/api/analytics.csv',
      async ({ user, query }) => {
        const a = await spendingAnalytics(deps, user.id, query);
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
