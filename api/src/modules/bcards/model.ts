import { t } from 'elysia';
import { freeText, lineText } from '../../lib/text';
import { BcardStageModel, ShareStageModel } from './stage-model';

/** The one text for a fixed share that is not a whole number of cents (the web's split configurator says the same). */
export const fixedAmountMessage = (field: string) =>
  `${field} must be an amount in dollars with at most 2 decimals, such as 52.90: a third decimal is refused, never rounded.`;

const DECIMAL_PATTERN = '^[0-9]{1,10}(\\.[0-9]{1,2})?$';
const decimal = (what: string) =>
  t.Union([t.String({ pattern: DECIMAL_PATTERN }), t.Number({ minimum: 0 })], {
    error: `${what} must be an amount in dollars with at most 2 decimals, such as 100.00.`,
  });

/**
 * A share's fixed amount in dollars, or null: one union (not a decimal inside another union), so a value such as
 * '52.905' gets this text rather than the schema's own words. The service checks numbers the same way
 * (parseFixedAmount): a third decimal is refused, never rounded.
 */
export const fixedDecimal = (what: string) =>
  t.Union([t.String({ pattern: DECIMAL_PATTERN }), t.Number({ minimum: 0 }), t.Null()], { error: fixedAmountMessage(what) });

export const SplitEntry = t.Object(
  {
    fundingSourceId: t.String({ minLength: 1, maxLength: 64, error: 'fundingSourceId is required.' }),
    percentage: t.Optional(t.Number({ minimum: 0, maximum: 100, error: 'percentage must be between 0 and 100.' })),
    amount: t.Optional(fixedDecimal('amount')),
  },
  { additionalProperties: false },
);

export const CreateBcardBody = t.Object(
  {
    name: lineText('name', 100),
    cardholderName: t.Optional(lineText('cardholderName', 100)),
    balance: decimal('balance'),
    fundingSources: t.Array(SplitEntry, {
      minItems: 1,
      maxItems: 20,
      error: 'fundingSources must list 1 to 20 funding sources.',
    }),
    spendingLimit: t.Optional(t.Union([decimal('spendingLimit'), t.Null()])),
    interval: t.Optional(t.String({ maxLength: 20 })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'New headphones',
        balance: '100.00',
        fundingSources: [
          { fundingSourceId: 'fs_3b8c1d2e4f5a6b7c8d9e0f1a', percentage: 60 },
          { fundingSourceId: 'fs_9e8d7c6b5a4f3e2d1c0b9a8f', percentage: 40 },
        ],
      },
    ],
    description:
      'balance is the purchase amount. Each source is charged its percentage of balance plus the plan fee ' +
      '(largest-remainder rounding, so the shares add up exactly); or, when no entry has a percentage, its fixed ' +
      '`amount`, fee included (the amounts must add up to balance plus the fee within $0.01). The cardholder name is the account name; ' +
      'spendingLimit and interval are accepted for compatibility: a bcard is always limited to balance and single use.',
  },
);

export const ProcessPaymentBody = t.Object(
  {
    amount: decimal('amount'),
    merchant: t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'merchant is required (at most 120 characters, not only spaces).' }),
    virtualCardId: t.Optional(t.Union([t.String({ maxLength: 64 }), t.Null()])),
    splits: t.Optional(
      t.Array(
        t.Object(
          {
            fundingSourceId: t.String({ minLength: 1, maxLength: 64 }),
            percentage: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 100 }), t.Null()])),
            fixedAmount: t.Optional(fixedDecimal('fixedAmount')),
            stripePaymentMethodId: t.Optional(t.Union([t.String(), t.Null()])),
            name: t.Optional(t.String()),
            last4: t.Optional(t.String()),
            brand: t.Optional(t.String()),
          },
          { additionalProperties: false },
        ),
        { maxItems: 20 },
      ),
    ),
    description: t.Optional(freeText('description', 200)),
  },
  {
    additionalProperties: false,
    examples: [
      {
        amount: '50.00',
        merchant: 'Corner Coffee',
        description: 'Beans and a grinder',
        splits: [
          { fundingSourceId: 'fs_1a2b3c4d5e6f7a8b9c0d1e2f', percentage: 60 },
          { fundingSourceId: 'fs_2b3c4d5e6f7a8b9c0d1e2f3a', percentage: 40 },
        ],
      },
      { amount: '20.00', merchant: 'Corner Coffee', virtualCardId: 'bc_1a2b3c4d5e6f7a8b9c0d1e2f' },
    ],
  },
);

const ShareModel = t.Object({
  fundingSourceId: t.String(),
  name: t.String(),
  last4: t.String(),
  brand: t.String(),
  percentage: t.Number(),
  amount: t.String(),
  status: t.String(),
  stage: ShareStageModel,
});

export const BcardModel = t.Object(
  {
    id: t.String(),
    name: t.String(),
    cardholderName: t.String(),
    cardNumber: t.String({ description: 'Masked; the full number is only in checkout-details.' }),
    last4: t.String(),
    brand: t.String(),
    expiryMonth: t.Integer(),
    expiryYear: t.Integer(),
    balance: t.String({ description: 'What is left to spend, in dollars.' }),
    spendingLimit: t.String({ description: 'The collected amount; never reloadable.' }),
    interval: t.Literal('single_use'),
    status: t.UnionEnum(['active', 'used', 'expired', 'canceled']),
    expiresAt: t.String({ format: 'date-time' }),
    createdAt: t.String({ format: 'date-time' }),
    amount: t.String(),
    fee: t.String(),
    totalCharged: t.String(),
    transactionId: t.String(),
    fundingSources: t.Array(ShareModel),
    lockedDomain: t.Union([t.String(), t.Null()], {
      description: 'The site (registrable domain) only where the card can be charged: the one it was made for, or the first shop that charged it.',
    }),
    closedReason: t.Union([t.String(), t.Null()], {
      description: 'Why bpay closed the card itself: too_many_incorrect_attempts after three wrong security codes or expiry dates.',
    }),
    stage: BcardStageModel,
  },
  { $id: '#/components/schemas/Bcard' },
);

export const CheckoutDetailsModel = t.Object({
  cardNumber: t.String(),
  expiryMonth: t.Integer(),
  expiryYear: t.Integer(),
  cvv: t.String(),
  isDemoCard: t.Boolean(),
});

export const PaymentResultModel = t.Object({
  totalAmount: t.String(),
  totalFees: t.String(),
  transaction: t.Object({ id: t.String() }),
  splits: t.Array(ShareModel),
  virtualCard: BcardModel,
});

export const CollectionProgressModel = t.Object({
  stage: t.UnionEnum(['not_started', 'holding', 'capturing', 'completed', 'failed']),
  shares: t.Array(ShareModel),
});

export { ShareModel };
