import { Elysia, t } from 'elysia';
import { FEATURE_KEYS } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { errors, rawResponses, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { getBenefits, listActiveTiers } from './service';
import { upgradePlan } from './upgrade';
import {
  chargeView,
  downgradePlan,
  exportPlanChargesCsv,
  getPlan,
  keepPlan,
  listPlanCharges,
  PLAN_CHARGE_FILTERS,
  PLAN_CHARGES_CSV_COLUMNS,
  PLAN_CHARGES_LIMIT,
} from './plans';
import { idempotentResponse, runIdempotent } from '../../plugins/idempotency';
import { AppError } from '../../errors';
import { retryRenewal, setPlanPaymentSource } from './payment-card';

const FeatureKey = t.UnionEnum(FEATURE_KEYS);

export const TierModel = t.Object(
  {
    id: t.String(),
    name: t.String({ examples: ['free', 'pro', 'premium'] }),
    displayName: t.String(),
    monthlyPrice: t.Number({ description: 'Dollars per month', examples: [9.99] }),
    transactionFeeRate: t.Number({ description: 'Fraction of the amount', examples: [0.029] }),
    limits: t.Object({
      fundingSources: t.Integer({ description: '-1 means unlimited' }),
      monthlyTransactions: t.Integer(),
      bcardGenerationLimit: t.Integer(),
      apiCallsPerMonth: t.Integer(),
    }),
    features: t.Array(FeatureKey),
  },
  { $id: '#/components/schemas/SubscriptionTier' },
);

export const BenefitsModel = t.Object({
  currentTier: t.String(),
  benefits: t.Object({
    maxFundingSources: t.Integer({ description: '-1 means unlimited' }),
    nameVerificationRequired: t.Boolean(),
    isKycVerified: t.Boolean(),
    features: t.Array(FeatureKey),
    feePercentage: t.Number({ examples: [2.9] }),
  }),
});

const SourceRef = t.Object({ id: t.String(), name: t.String(), last4: t.String(), brand: t.String() });

export const PlanChargeModel = t.Object(
  {
    id: t.String(),
    createdAt: t.String({ format: 'date-time' }),
    kind: t.UnionEnum(['upgrade', 'renewal', 'proration'], {
      description: 'proration: an upgrade in the middle of a paid period, charged the difference for the rest of it',
    }),
    status: t.UnionEnum(['pending', 'succeeded', 'failed']),
    amount: t.String({ description: 'Dollars', examples: ['9.99'] }),
    planName: t.String(),
    periodStart: t.String({ format: 'date-time' }),
    periodEnd: t.String({ format: 'date-time' }),
    fundingSource: SourceRef,
    failureMessage: t.Union([t.String(), t.Null()]),
    proration: t.Union(
      [
        t.Object({
          unusedPlanName: t.String({ description: 'The plan left: its unused time from periodStart to periodEnd is credited' }),
          credit: t.String({ description: 'Dollars credited', examples: ['4.99'] }),
          remaining: t.String({ description: "Dollars: the new plan's price from periodStart to periodEnd", examples: ['14.99'] }),
        }),
        t.Null(),
      ],
      { description: 'The proration lines of kind proration (amount = remaining − credit); null otherwise' },
    ),
  },
  { $id: '#/components/schemas/PlanCharge' },
);

const Usage = t.Object({ used: t.Integer(), limit: t.Integer({ description: '-1 means unlimited' }) });

export const PlanModel = t.Object(
  {
    tier: TierModel,
    currentPeriodStart: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    currentPeriodEnd: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description: 'When the paid period ends and renews; null on a plan that is not billed (Free, or one an admin gave)',
    }),
    paymentSource: t.Union([SourceRef, t.Null()], { description: 'The funding source renewals are charged to' }),
    pendingTier: t.Union([TierModel, t.Null()], { description: 'The plan a downgrade or cancellation moves to at currentPeriodEnd' }),
    pastDueSince: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    graceEndsAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description: 'While past due: when the account moves to Free unless a renewal succeeds first',
    }),
    nextRenewalAttemptAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    usage: t.Object({ fundingSources: Usage, bcardsThisMonth: Usage }),
  },
  { $id: '#/components/schemas/Plan' },
);

const UpgradeHeaders = t.Object({
  'idempotency-key': t.Optional(
    t.String({ description: 'Required: one key per payment attempt. A retry with the same key never charges twice; its first answer is replayed for 24 hours.' }),
  ),
});

export function subscriptionRoutes(deps: AppDeps) {
  const idem = { db: deps.db, clock: deps.clock, secret: deps.idempotencySecret };
  return new Elysia({ prefix: '/api/subscription', tags: ['Subscription'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get('/tiers', async () => ({ tiers: await listActiveTiers(deps.db) }), {
      // Public and input-free, so its only failure is ours: documented so clients know the error shape here too.
      response: { 200: t.Object({ tiers: t.Array(TierModel) }), ...errors(500) },
      detail: {
        summary: 'The plans on offer (public, no credentials)',
        description:
          'The active subscription plans with their monthly price, fee rate, limits and features, for the pricing ' +
          'pages. Public: no credentials; read only.',
        security: [],
      },
    })
    .get('/benefits', ({ user }) => getBenefits(deps.db, user), {
      auth: true,
      response: { 200: BenefitsModel, ...errors(401) },
      detail: {
        summary: "The signed-in user's plan benefits",
        description:
          "The signed-in user's current tier and what it allows: how many funding sources, the fee percentage, " +
          'its features, and whether identity verification is done. Read only.',
      },
    })
    .get('/plan', ({ user }) => getPlan(deps, user), {
      auth: true,
      response: { 200: PlanModel, ...errors(401) },
      detail: {
        summary: 'Your plan, its billing period, scheduled change and usage against its limits',
        description:
          "The signed-in user's plan: its tier, the current billing period, the card renewals are charged to, a " +
          "scheduled downgrade or cancellation, any past-due state, and usage against the tier's limits. Read " +
          'only.',
      },
    })
    .get('/charges', ({ user }) => listPlanCharges(deps.db, user.id), {
      auth: true,
      response: { 200: t.Array(PlanChargeModel), ...errors(401) },
      detail: {
        summary: `Your plan payments (receipts and failed attempts), newest first: the last ${PLAN_CHARGES_LIMIT}`,
        description:
          "The signed-in user's plan payments, newest first (the last 100): upgrades, renewals and prorations, " +
          'with their status, amount and period, for receipts. Read only.',
      },
    })
    .get(
      '/charges/export.csv',
      async ({ user, query }) =>
        new Response(await exportPlanChargesCsv(deps.db, user.id, query.status ?? 'all'), {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="bpay-plan-payments-${query.status ?? 'all'}.csv"`,
            'cache-control': 'no-store',
          },
        }),
      {
        auth: true,
        query: t.Object({
          status: t.Optional(t.UnionEnum(PLAN_CHARGE_FILTERS, { error: 'status must be all, succeeded, pending or failed.' })),
        }),
        detail: {
          summary: 'All your plan payments as CSV, newest first, optionally only those with one status',
          description: 'Plan payments are not bcard purchases: GET /api/transactions/export.csv does not list them.',
          responses: rawResponses(
            {
              description: 'A CSV file (RFC 4180; cells a spreadsheet would run as formulas are neutralised)',
              content: { 'text/csv': { schema: { type: 'string', examples: [PLAN_CHARGES_CSV_COLUMNS.join(',')] } } },
            },
            400,
            401,
          ) as never,
        },
      },
    )
    .post(
      '/upgrade',
      async ({ user, body, headers, request }) => {
        const key = headers['idempotency-key'] ?? null;
        if (key === null) {
          throw new AppError('invalid_idempotency_key', 'An Idempotency-Key header is required to pay for a plan.', 'Idempotency-Key');
        }
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body },
          async (scopedKey) => {
            const charge = await upgradePlan(deps, user.id, { tierId: body.tierId, fundingSourceId: body.fundingSourceId, idempotencyKey: scopedKey! });
            return { status: 200, body: { plan: await getPlan(deps, user), receipt: await chargeView(deps.db, charge) } };
          },
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        parse: 'json',
        headers: UpgradeHeaders,
        body: t.Object(
          {
            tierId: t.String({ minLength: 1, maxLength: 100, error: 'tierId is required.' }),
            fundingSourceId: t.String({ minLength: 1, maxLength: 100, error: 'fundingSourceId is required.' }),
          },
          { examples: [{ tierId: 'tier_pro', fundingSourceId: 'fs_4f9c2a1b7d3e8f60a5b4c3d2' }] },
        ),
        response: { 200: t.Object({ plan: PlanModel, receipt: PlanChargeModel }), ...errors(400, 401, 402, 404, 409, 415, 503) },
        detail: {
          summary: 'Upgrade to a dearer plan, paid now from one of your funding sources',
          description:
            'In the middle of a paid period the upgrade is prorated (receipt kind proration): the new plan for the rest of ' +
            "the period less the current plan's unused part, in whole cents, each line rounded half up; the period stays. " +
            'A rest worth $0.00 more answers 409 proration_zero. From a plan not being paid for (Free, one an admin gave, ' +
            "a period that is over) the new plan's full monthly price is charged and a new period (one calendar month, " +
            'UTC) starts now. The receipt is e-mailed. A decline answers 402 and changes nothing. One plan payment runs ' +
            'at a time (409 plan_change_in_progress).',
        },
      },
    )
    .post('/downgrade', ({ user, body }) => downgradePlan(deps, user, body.tierId), {
      auth: true,
      parse: 'json',
      body: t.Object(
        { tierId: t.String({ minLength: 1, maxLength: 100, error: 'tierId is required.' }) },
        { examples: [{ tierId: 'tier_free' }] },
      ),
      response: { 200: PlanModel, ...errors(400, 401, 404, 409, 415) },
      detail: {
        summary: 'Move to a cheaper plan (the free plan: cancel) at the end of the billing period',
        description:
          'The current plan is kept until currentPeriodEnd, then the account moves to pendingTier (a paid one is charged ' +
          'then instead of the current plan). On a plan that is not billed the move happens at once. Sources and bcards ' +
          'above the new limits are kept; no new ones can be added until under them.',
      },
    })
    .put('/payment-source', ({ user, body }) => setPlanPaymentSource(deps, user, body.fundingSourceId), {
      auth: true,
      parse: 'json',
      body: t.Object(
        { fundingSourceId: t.String({ minLength: 1, maxLength: 100, error: 'fundingSourceId is required.' }) },
        { examples: [{ fundingSourceId: 'fs_4f9c2a1b7d3e8f60a5b4c3d2' }] },
      ),
      response: { 200: PlanModel, ...errors(400, 401, 404, 409, 415) },
      detail: {
        summary: 'Change the card your plan is paid with',
        description:
          'One of your own active cards (a bank account or a paused card: 400; a removed or unknown one, or another ' +
          "user's: 404). Used from the next renewal on; nothing is charged now. When the plan is past due, " +
          'POST /api/subscription/retry-renewal tries the renewal at once on it. A plan that is not billed (Free, or ' +
          'one an admin gave) has no card: 409 plan_not_billed.',
      },
    })
    .post(
      '/retry-renewal',
      async ({ user, headers, request }) => {
        const key = headers['idempotency-key'] ?? null;
        if (key === null) {
          throw new AppError('invalid_idempotency_key', 'An Idempotency-Key header is required to pay for a plan.', 'Idempotency-Key');
        }
        const outcome = await runIdempotent(
          idem,
          { scope: `user:${user.id}`, key, method: 'POST', path: new URL(request.url).pathname, body: {} },
          async () => {
            const charge = await retryRenewal(deps, user);
            return { status: 200, body: { plan: await getPlan(deps, user), receipt: await chargeView(deps.db, charge) } };
          },
        );
        return idempotentResponse(outcome);
      },
      {
        auth: true,
        headers: UpgradeHeaders,
        response: { 200: t.Object({ plan: PlanModel, receipt: PlanChargeModel }), ...errors(400, 401, 402, 404, 409, 503) },
        detail: {
          summary: 'Retry a failed renewal now, on the card the plan is paid with',
          description:
            'Only while the plan is past due (409 plan_not_past_due otherwise). Charged through the same path as the ' +
            'daily retry: one attempt per request key, one plan payment at a time (409 plan_change_in_progress). A ' +
            'decline answers 402; the plan stays past due until its grace period ends.',
        },
      },
    )
    .post('/keep', ({ user }) => keepPlan(deps, user), {
      auth: true,
      response: { 200: PlanModel, ...errors(401, 409) },
      detail: {
        summary: 'Undo a scheduled downgrade or cancellation',
        description:
          'Cancels a scheduled downgrade or cancellation, so the current plan renews at the period end as before. ' +
          'For the signed-in user; no money moves now; 409 when nothing is scheduled.',
      },
    });
}
