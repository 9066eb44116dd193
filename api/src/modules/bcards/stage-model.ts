import { t } from 'elysia';
import { BCARD_STAGES, SHARE_STAGES } from './stage';

/** A bcard's stage as the API answers it (bcards/stage.ts): a stable code and the figures its words need. */
export const BcardStageModel = t.Object(
  {
    code: t.UnionEnum(BCARD_STAGES, {
      description:
        'collecting, not_issued, active (holds `held`), authorized (a merchant holds `held` until it captures), used (at ' +
        '`merchant`, `spent`), partly_used (`spent` at `merchant`, `returned` back), expiring / canceling (unused, its ' +
        'money on its way back), expired / canceled (unused, `returned` back)',
    }),
    held: t.Union([t.String(), t.Null()], { description: 'What the bcard holds now, in dollars (active, authorized)' }),
    spent: t.Union([t.String(), t.Null()], { description: 'What the merchant charged, in dollars (used, partly_used)' }),
    returned: t.Union([t.String(), t.Null()], { description: 'What went (or is going) back to the sources, in dollars' }),
    merchant: t.Union([t.String(), t.Null()], { description: 'Where it was used (used, partly_used)' }),
  },
  { description: "Where the bcard stands, in a stable code with the figures its words need (the web words it in the reader's language)" },
);

export const ShareStageModel = t.UnionEnum(SHARE_STAGES, {
  description:
    'pending, held, charged, bank_pending (a bank debit still settling: it can still be returned), partly_refunded ' +
    "(charged; the part of the purchase's remainder due to it went back), released (the hold was voided), declined, " +
    'refunded, returned (the bank returned the debit), disputed (the card’s issuer took it back in a dispute: owed until ' +
    'resolved), dispute_won (decided for bpay: the charge stands), dispute_lost (decided for the card: it stays owed)',
});

export const BankDebitSummaryModel = t.Union([t.UnionEnum(['pending', 'settled', 'returned']), t.Null()], {
  description: "The transaction's bank debits as one word: returned if any was, else pending while any settles, else settled; null without a bank share",
});
