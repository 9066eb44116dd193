import { Elysia, t } from 'elysia';
import { laggingReads, type AppDeps } from '../../deps';
import { errors, rawResponses, ScreenLanguage, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { ShareModel } from '../bcards/model';
import { BankDebitSummaryModel, BcardStageModel } from '../bcards/stage-model';
import { invalid } from '../../errors';
import { wordsLanguage } from '../../lib/server-words';
import { exportTransactionsCsv, getTransaction, listTransactions, transactionSummary, TRANSACTION_FILTERS } from './service';
import { FILTER_DESCRIPTION } from './filters';
import { NEXT_CURSOR_HEADER } from '../../lib/cursor';

const MerchantRefundModel = t.Object(
  {
    id: t.String(),
    createdAt: t.String({ format: 'date-time' }),
    amount: t.String({ description: 'The purchase amount the merchant refunded, in dollars' }),
    fee: t.String({ description: 'The part of the bpay fee returned with it, in dollars' }),
    status: t.UnionEnum(['pending', 'succeeded', 'failed']),
    reason: t.Union([t.String(), t.Null()]),
    parts: t.Array(
      t.Object({ fundingSourceId: t.String(), name: t.String(), last4: t.String(), amount: t.String({ description: 'Back to this source, in dollars' }) }),
    ),
  },
  { description: "A merchant's refund of the purchase: what went back to which funding source" },
);

const TransactionModel = t.Object(
  {
    id: t.String(),
    createdAt: t.String({ format: 'date-time' }),
    merchant: t.String(),
    amount: t.String({ examples: ['100.00'] }),
    fee: t.String(),
    totalCharged: t.String(),
    refunded: t.String(),
    status: t.UnionEnum(['completed', 'pending', 'failed', 'refunded'], {
      description:
        'Coarse, kept for old clients: pending while the bcard still holds its money unspent or a bank debit settles; ' +
        'refunded when an unused bcard gave its money back. `stage` and `bankDebit` say more.',
    }),
    stage: BcardStageModel,
    bankDebit: BankDebitSummaryModel,
    virtualCardId: t.Union([t.String(), t.Null()]),
    virtualCardName: t.String(),
    description: t.String(),
    failureMessage: t.Union([t.String(), t.Null()]),
  },
  { $id: '#/components/schemas/Transaction' },
);

const ListQuery = t.Object({
  status: t.Optional(
    t.UnionEnum(TRANSACTION_FILTERS, {
      error: `status must be one of ${TRANSACTION_FILTERS.join(', ')}.`,
      description: FILTER_DESCRIPTION,
    }),
  ),
  // The range is checked in the handler: a bound failed inside t.Numeric is reported without the parameter's name.
  limit: t.Optional(t.Numeric({ error: 'limit must be between 1 and 100.' })),
  cursor: t.Optional(t.String({ maxLength: 200 })),
  language: ScreenLanguage,
});

export { NEXT_CURSOR_HEADER };

export function transactionRoutes(deps: AppDeps) {
  // Lists, history and figures read where they may lag (issue 30 §3); money decisions never do.
  const lagging = laggingReads(deps);
  return new Elysia({ prefix: '/api/transactions', tags: ['Transactions'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get(
      '',
      async ({ user, query, set }) => {
        const limit = query.limit ?? 50;
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'limit must be between 1 and 100.');
        const page = await listTransactions(
          lagging,
          user.id,
          { status: query.status ?? 'all', limit, cursor: query.cursor ?? null },
          query.language ?? wordsLanguage(user.language),
        );
        if (page.nextCursor) set.headers[NEXT_CURSOR_HEADER] = page.nextCursor;
        return page.data;
      },
      {
        auth: true,
        query: ListQuery,
        response: { 200: t.Array(TransactionModel), ...errors(400, 401) },
        detail: {
          summary: 'Your transactions, newest first',
          description: `When more exist, the ${NEXT_CURSOR_HEADER} header holds the cursor for the next page.`,
        },
      },
    )
    .get(
      '/export.csv',
      async ({ user, query }) =>
        new Response(await exportTransactionsCsv(lagging, user.id, query.status ?? 'all', query.language ?? wordsLanguage(user.language)), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="bpay-transactions-${query.status ?? 'all'}.csv"`,
            'cache-control': 'no-store',
          },
        }),
      {
        auth: true,
        query: t.Object({ status: ListQuery.properties.status, language: ScreenLanguage }),
        detail: {
          summary: 'Your transactions as CSV, with the same filter',
          description:
            "The signed-in user's transactions as a CSV file to download, filtered by status as GET " +
            '/api/transactions is. Read only.',
          responses: rawResponses(
            {
              description: 'A CSV file (RFC 4180; cells a spreadsheet would run as formulas are neutralised)',
              content: { 'text/csv': { schema: { type: 'string', examples: [`id,created_at,merchant,amount,fee,total_charged,refunded,status,virtual_card,description`] } } },
            },
            400,
            401,
          ) as never,
        },
      },
    )
    .get(
      '/summary',
      ({ user, query }) => {
        const now = deps.clock.now();
        const monthStart = query.monthStart
          ? new Date(query.monthStart)
          : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
        if (Number.isNaN(monthStart.getTime())) throw invalid('monthStart', 'monthStart must be an ISO 8601 date-time.');
        return transactionSummary(lagging, user.id, monthStart);
      },
      {
        auth: true,
        query: t.Object({
          monthStart: t.Optional(
            t.String({ maxLength: 40, description: "Start of the viewer's current month (ISO 8601); UTC month by default." }),
          ),
        }),
        response: {
          200: t.Object({
            totalSpent: t.String({ description: 'Spent at merchants: what they charged your bcards less what they refunded, all time, in dollars' }),
            thisMonth: t.String({ description: 'The same for purchases since monthStart' }),
            activeBcards: t.Integer(),
            charged: t.String({ description: 'What merchants charged your bcards, all time' }),
            refunded: t.String({ description: 'What merchants refunded of it, all time' }),
            heldOnBcards: t.String({ description: 'Money on your bcards now: collected, not spent, not yet back' }),
            returned: t.String({ description: 'Money collected onto bcards and never spent, back with your sources (fee apart), all time' }),
            fees: t.String({ description: 'bpay fees of the bcards spent or ended' }),
            feesReturned: t.String({ description: 'Fees that came back' }),
            planCharges: t.String({ description: 'Plan charges, apart from spending, all time' }),
            thisMonthPlanCharges: t.String({ description: 'Plan charges since monthStart' }),
            purchases: t.Integer({ description: 'bcards spent at a merchant' }),
          }),
          ...errors(400, 401),
        },
        detail: {
          summary: "The Overview's figures: spent at merchants (all time, this month), held on bcards, returned, fees, plan charges",
          description: 'From the one definition of spending (the same as GET /api/analytics): a purchase is dated when its bcard was spent, its refunds with it.',
        },
      },
    )
    .get('/:id', ({ user, params, query }) => getTransaction(deps, user.id, params.id, query.language ?? wordsLanguage(user.language)), {
      auth: true,
      params: t.Object({ id: t.String() }),
      query: t.Object({ language: ScreenLanguage }),
      response: { 200: t.Composite([TransactionModel, t.Object({ shares: t.Array(ShareModel), refunds: t.Array(MerchantRefundModel) })]), ...errors(400, 401, 404) },
      detail: {
        summary: 'One transaction with its shares and their sources',
        description:
          "One of the signed-in user's transactions with each share of its split, the funding source that paid " +
          "it, and any merchant refunds. Another user's transaction is 404; read only.",
      },
    });
}
