import { t } from 'elysia';
import { FEATURE_KEYS, schema } from '@bpay/db';
import { NEXT_CURSOR_HEADER } from '../../lib/cursor';
import { nameText } from '../../lib/text';
import { FEE_MESSAGE, MAX_MONTHLY_PRICE, PRICE_MESSAGE } from './tiers';
import { ADMIN_PAGE_DEFAULT, ADMIN_PAGE_MAX, ASSIGNABLE_ROLES, ROLE_MESSAGE } from './users';

/** Elysia's t.UnionEnum defaults to its first value: an optional field left out would silently become it. */
const noDefault = { default: undefined };

export const AdminLoginBody = t.Object({
  username: t.String({ minLength: 1, maxLength: 64, error: 'Username is required' }),
  password: t.String({ minLength: 1, maxLength: 256, error: 'Password is required' }),
  accessCode: t.String({
    minLength: 1,
    maxLength: 16,
    error: 'Admin access code is required',
    description: "The current 6-digit code of the admin's authenticator app (TOTP, 30 s steps); each code works once.",
  }),
}, { examples: [{ username: 'admin', password: 'correct horse battery staple', accessCode: '123456' }] });

export const AdminTokenModel = t.Object({
  token: t.String({ description: 'A JWT (HS256, aud bpay-admin); send it as Authorization: Bearer <token>.' }),
  expiresAt: t.String({ format: 'date-time', description: 'When the token stops working' }),
  admin: t.Object({
    username: t.String(),
    loginTime: t.String({
      format: 'date-time',
      description: 'When this token was issued, as stored: /api/admin/auth/verify answers the same value',
    }),
  }),
});

export const AdminVerifyModel = t.Object({
  admin: t.Object({
    username: t.String(),
    loginTime: t.String({ format: 'date-time', description: 'When this token was issued: the login answer gave the same value' }),
  }),
});

export const SuccessModel = t.Object({ success: t.Boolean() });

export const IdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

const Role = t.UnionEnum(schema.USER_ROLES);

/**
 * `limit` and `cursor` of the admin lists. The range is checked in the handler (adminPageLimit): a bound failed
 * inside t.Numeric is reported without the parameter's name.
 */
export const PageQuery = t.Object({
  limit: t.Optional(
    t.Numeric({
      error: `limit must be a whole number between 1 and ${ADMIN_PAGE_MAX}.`,
      description: `Rows per page, ${ADMIN_PAGE_DEFAULT} by default, at most ${ADMIN_PAGE_MAX}`,
    }),
  ),
  cursor: t.Optional(
    t.String({ maxLength: 200, description: `The ${NEXT_CURSOR_HEADER} header of the previous page` }),
  ),
});

export const UsersQuery = t.Object({
  search: t.Optional(
    t.String({ maxLength: 254, description: 'A part of the name or e-mail address: at least 3 characters (empty: no search), taken literally, ASCII-case-insensitive' }),
  ),
  role: t.Optional(t.UnionEnum(schema.USER_ROLES, { ...noDefault, description: 'Omit for all roles' })),
  ...PageQuery.properties,
});

const TierRef = t.Object({ id: t.String(), name: t.String(), displayName: t.String() });

export const AdminUserModel = t.Object(
  {
    id: t.String(),
    firstName: t.Union([t.String(), t.Null()]),
    lastName: t.Union([t.String(), t.Null()]),
    email: t.String(),
    role: Role,
    country: t.Union([t.String(), t.Null()]),
    isKycVerified: t.Boolean(),
    createdAt: t.String({ format: 'date-time' }),
    tier: t.Union([TierRef, t.Null()]),
    planPeriodEnd: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description:
        'The end of the period the plan is paid for (null: Free, or a plan an admin gave). While it is ahead, a plan change needs a timing.',
    }),
  },
  { $id: '#/components/schemas/AdminUser' },
);

export const UserPatchBody = t.Object(
  {
    role: t.UnionEnum(ASSIGNABLE_ROLES, {
      ...noDefault,
      error: ROLE_MESSAGE,
      description: 'user or merchant. Admins are separate accounts (bun run admin:create), never a user role.',
    }),
  },
  { examples: [{ role: 'merchant' }] },
);

export const SubscriptionPatchBody = t.Object(
  {
    tierId: t.String({ minLength: 1, maxLength: 100, error: 'tierId is required.' }),
    timing: t.Optional(
      // A union of literals, not t.UnionEnum: Elysia fills an optional UnionEnum left out with its first value.
      t.Union([t.Literal('period_end'), t.Literal('now_with_refund')], {
        description:
          'Required when the user pays for a running period: period_end (the move waits for it, no money moves) or ' +
          "now_with_refund (the move is now; the current plan's unused part is refunded to the card it was paid with). " +
          'Not billed (Free, or a plan an admin gave): leave it out; the move is now.',
        error: 'timing must be period_end or now_with_refund.',
      }),
    ),
  },
  { examples: [{ tierId: 'tier_pro' }, { tierId: 'tier_free', timing: 'now_with_refund' }] },
);


export const AdminTierModel = t.Object(
  {
    id: t.String(),
    name: t.String(),
    displayName: t.String(),
    monthlyPrice: t.Number({ description: 'Dollars' }),
    transactionFeeRate: t.Number({ description: 'Fraction: 0.029 = 2.9 %' }),
    limits: t.Object(
      {
        fundingSources: t.Integer(),
        monthlyTransactions: t.Integer(),
        bcardGenerationLimit: t.Integer(),
        apiCallsPerMonth: t.Integer(),
      },
      { description: '-1 means unlimited' },
    ),
    features: t.Array(t.UnionEnum(FEATURE_KEYS)),
    isActive: t.Boolean(),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/AdminTier' },
);

const limitField = (name: string) =>
  t.Integer({
    minimum: -1,
    maximum: 1_000_000_000,
    description: '0 or -1 means unlimited',
    error: `limits.${name} must be a whole number from 0 to 1,000,000,000 (0 or -1 is unlimited).`,
  });
const TierLimitsInput = t.Object({
  fundingSources: t.Optional(limitField('fundingSources')),
  monthlyTransactions: t.Optional(limitField('monthlyTransactions')),
  apiCallsPerMonth: t.Optional(limitField('apiCallsPerMonth')),
  bcardGenerationLimit: t.Optional(limitField('bcardGenerationLimit')),
});

const tierFields = {
  name: t.String({
    pattern: '^[a-z0-9_-]{1,40}$',
    error: 'name must be 1-40 lower-case letters, digits, _ or -.',
    description: 'Internal name, e.g. pro',
  }),
  displayName: nameText('displayName', 80),
  monthlyPrice: t.Number({ minimum: 0, maximum: MAX_MONTHLY_PRICE, description: 'Dollars, at most 2 decimals', error: PRICE_MESSAGE }),
  transactionFeeRate: t.Number({
    minimum: 0,
    maximum: 1,
    description:
      'Fraction in steps of 0.0001, stored as whole basis points: 0 to 1 is 0 % to 100 % with at most 2 decimals (default 0.029 = 2.9 %)',
    error: FEE_MESSAGE,
  }),
  features: t.Array(t.UnionEnum(FEATURE_KEYS, noDefault), { maxItems: FEATURE_KEYS.length, uniqueItems: true }),
  limits: TierLimitsInput,
  isActive: t.Boolean(),
};

export const TierCreateBody = t.Object({
  name: tierFields.name,
  displayName: tierFields.displayName,
  monthlyPrice: tierFields.monthlyPrice,
  transactionFeeRate: t.Optional(tierFields.transactionFeeRate),
  features: t.Optional(tierFields.features),
  limits: t.Optional(tierFields.limits),
  isActive: t.Optional(tierFields.isActive),
}, {
  examples: [
    {
      name: 'business',
      displayName: 'Business',
      monthlyPrice: 49.99,
      transactionFeeRate: 0.015,
      features: ['priority_support', 'api_access'],
      isActive: false,
    },
  ],
});

export const TierPatchBody = t.Object({
  name: t.Optional(tierFields.name),
  displayName: t.Optional(tierFields.displayName),
  monthlyPrice: t.Optional(tierFields.monthlyPrice),
  transactionFeeRate: t.Optional(tierFields.transactionFeeRate),
  features: t.Optional(tierFields.features),
  limits: t.Optional(tierFields.limits),
  isActive: t.Optional(tierFields.isActive),
}, { examples: [{ displayName: 'Professional', monthlyPrice: 12.99 }, { isActive: false }] });

export const TierDeletedModel = t.Object({ deleted: t.Literal(true), id: t.String() });

export const UserSubscriptionModel = t.Object(
  {
    id: t.String(),
    userId: t.String(),
    tierId: t.String(),
    status: t.UnionEnum(schema.SUBSCRIPTION_STATUSES),
    currentPeriodStart: t.String({ format: 'date-time' }),
    currentPeriodEnd: t.String({ format: 'date-time' }),
    billed: t.Boolean({ description: 'A paid period is running: a change needs a timing (PATCH /users/{id}/subscription)' }),
    pendingTierId: t.Union([t.String(), t.Null()], { description: 'The tier the user moves to at currentPeriodEnd' }),
    refund: t.Optional(
      t.Object(
        {
          amount: t.String({ description: 'Dollars refunded for the unused part of the plan left', examples: ['4.99'] }),
          status: t.UnionEnum(['pending', 'succeeded', 'failed'], { description: 'pending: the money sweep finishes it' }),
        },
        { description: 'Only in the answer to a change with timing now_with_refund' },
      ),
    ),
    user: t.Object({
      id: t.String(),
      email: t.String(),
      firstName: t.Union([t.String(), t.Null()]),
      lastName: t.Union([t.String(), t.Null()]),
    }),
    tier: t.Object({
      id: t.String(),
      name: t.String(),
      displayName: t.String(),
      monthlyPrice: t.Number(),
      transactionFeeRate: t.Number(),
      limits: t.Object({
        fundingSources: t.Integer(),
        monthlyTransactions: t.Integer(),
        bcardGenerationLimit: t.Integer(),
        apiCallsPerMonth: t.Integer(),
      }),
      features: t.Array(t.UnionEnum(FEATURE_KEYS)),
      isActive: t.Boolean(),
    }),
  },
  { $id: '#/components/schemas/AdminUserSubscription' },
);

export const SubscriptionAnalyticsModel = t.Object({
  totalSubscriptionRevenue: t.Number({ description: 'Monthly, dollars: the price of every active subscription' }),
  subscriptionsByTier: t.Array(
    t.Object({ tierId: t.String(), tierName: t.String(), count: t.Integer(), monthlyRevenue: t.Number() }),
  ),
});

export const DashboardModel = t.Object({
  revenue: t.Object({
    total: t.Number({ description: 'Dollars: subscriptions + fees' }),
    subscriptions: t.Number({ description: 'Dollars: every plan charge collected (ledger account bpay:subscriptions)' }),
    fees: t.Number(),
  }),
  users: t.Object({ total: t.Integer() }),
  merchants: t.Object({ total: t.Integer({ description: 'Active merchants' }) }),
  bcardGeneration: t.Object({
    successRate: t.Number({ description: 'issued / total as a percent with one decimal (100 when there were no attempts)' }),
    total: t.Integer({
      description: 'Attempts: finished collections (completed or failed; ones still in flight are not counted yet). Sandbox test bcards are left out.',
    }),
    issued: t.Integer({ description: 'Attempts that captured their shares and issued a bcard (later use, expiry or refund does not undo that)' }),
  }),
  fundingPool: t.Object({
    balance: t.Number({ description: 'Dollars left on active bcards (bpay itself holds no funds)' }),
  }),
  transactions: t.Object({ volume: t.Number({ description: 'Dollars collected by successful collections' }) }),
  fundingDeductions: t.Object({
    successRate: t.Number({ description: 'Percent of settled shares that were captured (100 when none)' }),
  }),
  bcardsToday: t.Integer({ description: 'bcards issued since 00:00 UTC' }),
});

export const AnalyticsModel = t.Object({
  paymentVolumeByDay: t.Array(t.Object({ date: t.String({ format: 'date' }), amount: t.Number() })),
  bcardsByDay: t.Array(t.Object({ date: t.String({ format: 'date' }), count: t.Integer() })),
  sharesPerPayment: t.Array(t.Object({ shares: t.Integer(), count: t.Integer() })),
  revenueByPlan: t.Array(t.Object({ plan: t.String(), revenue: t.Number() })),
});

export const MerchantsQuery = t.Object({
  search: t.Optional(
    t.String({ maxLength: 200, description: "A part of the business name or e-mail or of the owner's name: at least 3 characters (empty: no search), taken literally, ASCII-case-insensitive" }),
  ),
  environment: t.Optional(t.UnionEnum(schema.ENVIRONMENTS, noDefault)),
  ...PageQuery.properties,
});

export const AdminMerchantModel = t.Object(
  {
    id: t.String(),
    businessName: t.String(),
    businessEmail: t.String(),
    website: t.Union([t.String(), t.Null()]),
    platformType: t.UnionEnum(schema.PLATFORM_TYPES),
    environment: t.UnionEnum(schema.ENVIRONMENTS),
    isActive: t.Boolean(),
    totalVolume: t.String({ description: 'All-time received, in dollars' }),
    createdAt: t.String({ format: 'date-time' }),
    apiKey: t.String(),
    publicApiKey: t.String(),
    user: t.Object({
      id: t.String(),
      firstName: t.Union([t.String(), t.Null()]),
      lastName: t.Union([t.String(), t.Null()]),
      email: t.String(),
    }),
  },
  { $id: '#/components/schemas/AdminMerchant' },
);

const VendorModeModel = t.Object({
  publishableKey: t.Union([t.String(), t.Null()]),
  secretKeySet: t.Boolean(),
  secretKeyLast4: t.Union([t.String(), t.Null()]),
  webhookSecretSet: t.Boolean(),
  webhookSecretLast4: t.Union([t.String(), t.Null()]),
  configured: t.Boolean({ description: 'Both a publishable and a secret key are set' }),
  updatedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
});

const Features = t.Object({
  paymentProcessing: t.Boolean(),
  cardIssuing: t.Boolean(),
  identity: t.Boolean(),
  connect: t.Boolean(),
});

export const VendorConfigModel = t.Object(
  {
    inUse: t.Object(
      {
        vendor: t.UnionEnum(['simulated', 'stripe']),
        mode: t.Union([t.UnionEnum(schema.VENDOR_MODES), t.Null()]),
        source: t.UnionEnum(['environment', 'admin', 'default']),
      },
      { description: 'What the running server uses now. A saved mode or key takes effect at the next start.' },
    ),
    mode: t.UnionEnum(schema.VENDOR_MODES),
    features: Features,
    test: VendorModeModel,
    live: VendorModeModel,
  },
  { $id: '#/components/schemas/AdminVendorConfig', description: 'Secrets are write-only: never returned.' },
);

export const VendorModeParams = t.Object({
  mode: t.UnionEnum(schema.VENDOR_MODES, { ...noDefault, error: 'mode must be test or live.' }),
});

const nullableKey = (description: string) => t.Optional(t.Union([t.String({ minLength: 1, maxLength: 255 }), t.Null()], { description }));

export const VendorCredentialsBody = t.Object({
  publishableKey: nullableKey('pk_test_… / pk_live_…; null clears it'),
  secretKey: nullableKey('Write-only. sk_… or rk_… of this mode; null clears it'),
  webhookSecret: nullableKey('Write-only. whsec_…; null clears it'),
}, { examples: [{ publishableKey: 'pk_test_51H…', secretKey: 'sk_test_51H…' }, { webhookSecret: null }] });

export const VendorSettingsBody = t.Object({
  mode: t.Optional(t.UnionEnum(schema.VENDOR_MODES, noDefault)),
  features: t.Optional(
    t.Object(
      {
        paymentProcessing: t.Optional(t.Boolean()),
        cardIssuing: t.Optional(t.Boolean()),
        identity: t.Optional(t.Boolean()),
        connect: t.Optional(t.Boolean()),
      },
      { additionalProperties: false },
    ),
  ),
}, { examples: [{ mode: 'live' }, { features: { cardIssuing: true, identity: false } }] });

export const ConnectionTestBody = t.Optional(
  t.Object(
    {
      mode: t.Optional(
        t.UnionEnum(schema.VENDOR_MODES, {
          ...noDefault,
          error: 'mode must be test or live.',
          description: 'The mode whose saved keys to check (the one the panel shows); the saved active mode when left out',
        }),
      ),
    },
    { additionalProperties: false, examples: [{ mode: 'live' }] },
  ),
);

export const ConnectionTestModel = t.Object({
  ok: t.Boolean(),
  provider: t.UnionEnum(['stripe', 'simulated'], noDefault),
  mode: t.UnionEnum(schema.VENDOR_MODES),
  message: t.String(),
});
