import { t } from 'elysia';
import { nameText } from '../../lib/text';

// The ranges are checked by the service (with the field named): Elysia coerces a numeric string that fails the
// string branch into the integer branch, and a bound failed there is reported without the field's name.
const monthOrYear = (what: string) =>
  t.Union([t.String({ pattern: '^[0-9]{1,4}$' }), t.Integer()], {
    error: `${what} must be a number.`,
  });

export const CreateFundingSourceBody = t.Object(
  {
    cardNumber: t.String({
      minLength: 12,
      maxLength: 23,
      pattern: '^[0-9 -]+$',
      error: 'cardNumber must be 12 to 19 digits.',
    }),
    expiryMonth: monthOrYear('expiryMonth'),
    expiryYear: monthOrYear('expiryYear'),
    cvv: t.String({ pattern: '^[0-9]{3,4}$', error: 'cvv must be 3 digits (4 for American Express).' }),
    name: nameText('name (the cardholder name)', 100),
    type: t.Optional(t.Literal('credit_card', { error: "type must be 'credit_card'." })),
    last4: t.Optional(t.String({ maxLength: 4 })),
    brand: t.Optional(t.String({ maxLength: 20 })),
    defaultSplitPercentage: t.Number({
      minimum: 0,
      maximum: 100,
      error: 'defaultSplitPercentage must be a number between 0 and 100.',
    }),
  },
  {
    additionalProperties: false,
    description:
      'The card number and CVV are sent to the payment processor and never stored. brand and last4 are computed ' +
      'by the server from the number; values sent are ignored.',
    examples: [
      {
        cardNumber: '4242 4242 4242 4242',
        expiryMonth: '12',
        expiryYear: '2030',
        cvv: '123',
        name: 'Ada Lovelace',
        type: 'credit_card',
        defaultSplitPercentage: 50,
      },
    ],
  },
);

export const UpdateFundingSourceBody = t.Object(
  {
    name: t.Optional(nameText('name', 100)),
    defaultSplitPercentage: t.Optional(
      t.Number({ minimum: 0, maximum: 100, error: 'defaultSplitPercentage must be a number between 0 and 100.' }),
    ),
    isActive: t.Optional(t.Boolean()),
  },
  { additionalProperties: false, examples: [{ name: 'Travel card', defaultSplitPercentage: 60 }, { isActive: false }] },
);

export const VerificationCodeBody = t.Object(
  { code: t.String({ pattern: '^[0-9]{6}$', error: 'code must be the 6-digit code from your bank.' }) },
  { additionalProperties: false, examples: [{ code: '123456' }] },
);

export const FundingSourceModel = t.Object(
  {
    id: t.String(),
    name: t.String(),
    type: t.Literal('credit_card'),
    last4: t.String(),
    brand: t.UnionEnum(['visa', 'mastercard', 'amex', 'unknown']),
    expiryMonth: t.Integer(),
    expiryYear: t.Integer(),
    defaultSplitPercentage: t.Number(),
    isActive: t.Boolean(),
    balance: t.Union([t.String({ examples: ['10000.00'] }), t.Null()], {
      description: 'Available at the processor, in dollars; null when the processor cannot tell.',
    }),
    createdAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/FundingSource' },
);

export const RequiresActionModel = t.Object({
  status: t.Literal('requires_action'),
  verificationId: t.String(),
  message: t.String(),
});
