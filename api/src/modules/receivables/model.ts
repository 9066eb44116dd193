import { t } from 'elysia';

/* The shapes of the receivables routes (issue 26), consumer and admin. Amounts are decimal dollar strings ("12.50"). */

const Dollars = (description: string, example = '12.50') => t.String({ description, examples: [example] });

const SourceRef = t.Union([
  t.Object({ id: t.String(), name: t.String(), last4: t.String(), brand: t.String(), type: t.String() }),
  t.Null(),
]);

export const RepaymentModel = t.Object(
  {
    id: t.String(),
    amount: Dollars('Dollars'),
    status: t.UnionEnum(['pending', 'succeeded', 'failed']),
    createdAt: t.String({ format: 'date-time' }),
    fundingSource: SourceRef,
    failureCode: t.Union([t.String(), t.Null()]),
    failureMessage: t.Union([t.String(), t.Null()], { description: 'Why it failed, in words (the processor’s decline)' }),
  },
  { $id: '#/components/schemas/Repayment' },
);

export const ReceivablesModel = t.Object(
  {
    owed: Dollars('What you owe bpay in all', '50.00'),
    underDispute: Dollars('Of it, under open disputes: repayable once the dispute is resolved', '0.00'),
    repayable: Dollars("What can be repaid now: owed, less open disputes, what a bcard's refund still on its way clears, and repayments still running", '50.00'),
    repaying: Dollars('Repayments still running', '0.00'),
    restricted: t.Boolean({ description: 'True while anything is owed: no new bcards can be created' }),
    returnedDebits: t.Array(
      t.Object({
        id: t.String({ description: 'The bank share' }),
        amount: Dollars('The debit returned'),
        returnedAt: t.String({ format: 'date-time' }),
        transactionId: t.String(),
        bcard: t.Object({ id: t.String(), name: t.String() }),
        bankAccount: SourceRef,
        returnCode: t.String({ examples: ['R01'] }),
        reason: t.String({ description: 'The return code in words, in your language', examples: ['R01: Insufficient funds'] }),
      }),
      { description: 'Bank debits returned after their bcard was used, newest first' },
    ),
    disputes: t.Array(
      t.Object({
        id: t.String(),
        amount: Dollars('The disputed share'),
        status: t.UnionEnum(['open', 'lost'], { description: 'open: under dispute, not repayable yet; lost: owed' }),
        openedAt: t.String({ format: 'date-time' }),
        closedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
        transactionId: t.String(),
        bcard: t.Object({ id: t.Union([t.String(), t.Null()]), name: t.String() }),
        card: SourceRef,
        reason: t.String({ description: "The card issuer's reason code", examples: ['fraudulent'] }),
      }),
      { description: 'Disputes of a funding share, open or lost, newest first' },
    ),
    repayments: t.Array(RepaymentModel, { description: 'Your repayments, newest first' }),
    owedToYou: Dollars('What bpay owes you (the other way round): refunds the card processor failed, money due back after a debt was settled, less what bpay paid you', '0.00'),
    failedRefunds: t.Array(
      t.Object({
        id: t.String(),
        amount: Dollars('The refund that did not reach the card'),
        failedAt: t.String({ format: 'date-time' }),
        transactionId: t.String(),
        card: SourceRef,
        reasonCode: t.String({ description: "The processor's failure_reason", examples: ['expired_or_canceled_card'] }),
        reason: t.String({ description: 'The reason in words, in your language' }),
      }),
      { description: 'Refunds to your cards that the card processor failed after bpay made them, newest first: bpay owes them to you' },
    ),
    otherCredits: Dollars('Other money bpay came to owe you: a returned bank share’s part of a refund after its debt was repaid or waived', '0.00'),
    paidToYou: Dollars('What bpay has paid you of it so far, another way (such as a bank transfer)', '0.00'),
    waivers: t.Array(
      t.Object({ id: t.String(), amount: Dollars('Forgiven'), reason: t.String(), createdAt: t.String({ format: 'date-time' }) }),
      { description: 'What bpay forgave, newest first' },
    ),
  },
  { $id: '#/components/schemas/Receivables' },
);

export const RepayBody = t.Object(
  {
    fundingSourceId: t.String({ minLength: 1, maxLength: 100, error: 'fundingSourceId is required: one of your cards.' }),
    amount: t.String({
      minLength: 1,
      maxLength: 20,
      error: 'amount is required: dollars and cents as a string, such as "12.50".',
      description: 'Dollars, at most what can be repaid now (repayable)',
    }),
  },
  { examples: [{ fundingSourceId: 'fs_4f9c2a1b7d3e8f60a5b4c3d2', amount: '12.50' }] },
);

export const AdminReceivableModel = t.Object(
  {
    userId: t.String(),
    email: t.String(),
    firstName: t.Union([t.String(), t.Null()]),
    lastName: t.Union([t.String(), t.Null()]),
    owed: Dollars('Owed in all'),
    underDispute: Dollars('Of it, under open disputes'),
    repayable: Dollars("Owed outside open disputes and a bcard's refund still on its way: what can be repaid or waived"),
    openDisputes: t.Integer(),
    oldestItemAt: t.Union([t.String({ format: 'date-time' }), t.Null()], { description: 'The oldest returned debit or dispute behind it' }),
    userCreatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/AdminReceivable' },
);

export const WaiveBody = t.Object(
  {
    amount: t.String({ minLength: 1, maxLength: 20, error: 'amount must be dollars and cents as a string, such as "12.50".' }),
    reason: t.String({ maxLength: 2000, error: 'reason must be 3 to 500 characters: why bpay forgives this (the user is told).', description: '3 to 500 characters once trimmed; the user is told' }),
  },
  { examples: [{ amount: '12.50', reason: 'Goodwill: the bank returned the debit in error.' }] },
);

export const AdminPayableModel = t.Object(
  {
    userId: t.String(),
    email: t.String(),
    firstName: t.Union([t.String(), t.Null()]),
    lastName: t.Union([t.String(), t.Null()]),
    owedToUser: Dollars('What bpay owes this user (payable:<user>)'),
    failedRefunds: t.Integer({ description: 'Refunds to their cards the processor failed (GET /api/admin/refund-failures?userId=)' }),
    userCreatedAt: t.String({ format: 'date-time' }),
  },
  { $id: '#/components/schemas/AdminPayable' },
);

export const SettlePayableBody = t.Object(
  {
    amount: t.String({ minLength: 1, maxLength: 20, error: 'amount must be dollars and cents as a string, such as "12.50".' }),
    method: t.String({
      maxLength: 40,
      error: "method must be 'paid_outside' (support paid the user another way, such as a bank transfer).",
      description: "paid_outside: support paid the user another way (a bank transfer, a cheque). Only this method for now.",
      examples: ['paid_outside'],
    }),
    reason: t.String({ maxLength: 2000, error: 'reason must be 3 to 500 characters: how bpay paid the user (the user is told).', description: '3 to 500 characters once trimmed; the user is told' }),
  },
  { examples: [{ amount: '30.90', method: 'paid_outside', reason: 'Bank transfer ref 2211 on 28 Nov' }] },
);

export const PayableSettlementModel = t.Object(
  {
    id: t.String(),
    userId: t.String(),
    amount: Dollars('Paid to the user'),
    method: t.UnionEnum(['paid_outside']),
    reason: t.String(),
    createdAt: t.String({ format: 'date-time' }),
    owedToUser: Dollars('What bpay still owes the user after it', '0.00'),
  },
  { $id: '#/components/schemas/PayableSettlement' },
);

export const WaiverModel = t.Object(
  {
    id: t.String(),
    userId: t.String(),
    amount: Dollars('Forgiven'),
    reason: t.String(),
    createdAt: t.String({ format: 'date-time' }),
    owed: Dollars('What the user still owes after it', '0.00'),
  },
  { $id: '#/components/schemas/ReceivableWaiver' },
);
