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
    type: t.Optional(
      t.UnionEnum(['credit_card', 'debit_card', 'prepaid_card'], {
        error:
          "type must be 'credit_card' (any card: the processor says whether it is debit or prepaid). " +
          'Add a bank account with POST /api/funding-sources/bank-accounts.',
      }),
    ),
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
      'by the server from the number; values sent are ignored. So is `type`: the processor says how the card is ' +
      'funded, and the source is stored and answered as credit_card, debit_card or prepaid_card accordingly.',
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
    type: t.UnionEnum(['credit_card', 'debit_card', 'prepaid_card', 'bank_account'], {
      description: "A card's type is the processor's answer (its funding), whatever type the card was added with.",
    }),
    funding: t.Union([t.UnionEnum(['credit', 'debit', 'prepaid', 'unknown']), t.Null()], {
      description: "The processor's funding of a card (Stripe's card.funding); null for bank accounts and for cards added before it was kept.",
    }),
    last4: t.String(),
    brand: t.UnionEnum(['visa', 'mastercard', 'amex', 'unknown']),
    expiryMonth: t.Union([t.Integer(), t.Null()], { description: 'null for a bank account' }),
    expiryYear: t.Union([t.Integer(), t.Null()], { description: 'null for a bank account' }),
    defaultSplitPercentage: t.Number(),
    isActive: t.Boolean(),
    balance: t.Union([t.String({ examples: ['10000.00'] }), t.Null()], {
      description: 'Available at the processor, in dollars; null when the processor cannot tell.',
    }),
    bankAccount: t.Union([
      t.Object({
        routingNumber: t.String(),
        accountType: t.UnionEnum(['checking', 'savings']),
        verificationStatus: t.UnionEnum(['pending', 'verified', 'failed'], {
          description: 'pending: confirm the two micro-deposits; only a verified account can fund a bcard.',
        }),
        verificationAttemptsLeft: t.Integer(),
      }),
      t.Null(),
    ]),
    createdAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/FundingSource' },
);

export const RequiresActionModel = t.Object({
  status: t.Literal('requires_action'),
  verificationId: t.String(),
  message: t.String(),
});

export const CreateBankAccountBody = t.Object(
  {
    routingNumber: t.String({ maxLength: 20, error: 'routingNumber must be the 9-digit ABA routing number.' }),
    accountNumber: t.String({ maxLength: 30, error: 'accountNumber must be 4 to 17 digits.' }),
    accountType: t.UnionEnum(['checking', 'savings'], { error: "accountType must be 'checking' or 'savings'." }),
    name: nameText('name (the account holder name)', 100),
    defaultSplitPercentage: t.Number({
      minimum: 0,
      maximum: 100,
      error: 'defaultSplitPercentage must be a number between 0 and 100.',
    }),
  },
  {
    additionalProperties: false,
    description:
      'A US bank account. The account number goes to the processor and is never stored (only its last 4 and a keyed ' +
      'fingerprint, so the same account cannot be added twice). Two micro-deposits are sent to it: confirm them at ' +
      'POST /api/funding-sources/{id}/verify-microdeposits.',
    examples: [{ routingNumber: '110000000', accountNumber: '000123456789', accountType: 'checking', name: 'Ada Lovelace', defaultSplitPercentage: 50 }],
  },
);

export const MicrodepositsBody = t.Object(
  {
    amounts: t.Array(t.String({ maxLength: 10 }), {
      minItems: 2,
      maxItems: 2,
      error: 'amounts must be the two micro-deposit amounts, such as ["0.32", "0.45"].',
    }),
  },
  { additionalProperties: false, examples: [{ amounts: ['0.32', '0.45'] }] },
);

export const OwedModel = t.Object(
  {
    owed: t.String({ description: 'Dollars owed to bpay for bank debits that came back unpaid after the bcard was used.' }),
    restricted: t.Boolean({ description: 'True while anything is owed: no new bcards can be created.' }),
    owedToYou: t.String({
      description: 'Dollars bpay owes you (a refund the card processor failed, money due back after a debt was settled); details in GET /api/receivables.',
      examples: ['0.00'],
    }),
    unsettledBankExposure: t.String({ description: 'Bank debits initiated and not yet settled, in dollars.' }),
    bankExposureCap: t.String({ description: "The plan's cap on unsettled bank debits, in dollars." }),
    returnedDebits: t.Array(
      t.Object({
        bcardName: t.String(),
        amount: t.String(),
        returnCode: t.String(),
        returnMessage: t.String(),
        fundingSourceId: t.String(),
        returnedAt: t.String({ format: 'date-time' }),
      }),
    ),
  },
  { $id: '#/components/schemas/BankStanding' },
);
