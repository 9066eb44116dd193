import { Elysia, t } from 'elysia';
import { FEATURE_KEYS } from '@bpay/db';
import type { AppDeps } from '../../deps';
import { errors, SESSION_SECURITY, sharedModels } from '../../models';
import { sessionPlugin } from '../../plugins/session';
import { getBenefits, listActiveTiers } from './service';

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

export function subscriptionRoutes(deps: AppDeps) {
  return new Elysia({ prefix: '/api/subscription', tags: ['Subscription'], detail: { security: SESSION_SECURITY } })
    .use(sharedModels)
    .use(sessionPlugin(deps))
    .get('/tiers', async () => ({ tiers: await listActiveTiers(deps.db) }), {
      // Public and input-free, so its only failure is ours: documented so clients know the error shape here too.
      response: { 200: t.Object({ tiers: t.Array(TierModel) }), ...errors(500) },
      detail: { summary: 'The plans on offer (public, no credentials)', security: [] },
    })
    .get('/benefits', ({ user }) => getBenefits(deps.db, user), {
      auth: true,
      response: { 200: BenefitsModel, ...errors(401) },
      detail: { summary: "The signed-in user's plan benefits" },
    });
}
