import type { MessageKey } from '../../i18n';
import type { TransactionShare } from './api';

/** Where one funding source's share of a transaction stands (the API's code). */
export type ShareStage = TransactionShare['stage'];

/*
 * A share's stage in words and colour (issue 25 item 2): Held, Charged, Released, Declined, Refunded, Pending (bank
 * debit settling), Returned by the bank, and the stages of a disputed share (issue 26). Yellow is what can still
 * change against the user (a debit settling, a dispute open); red what went wrong.
 */
const LABEL: Record<ShareStage, MessageKey> = {
  pending: 'dashboard.share.pending',
  held: 'dashboard.share.held',
  charged: 'dashboard.share.captured',
  bank_pending: 'dashboard.share.bankPending',
  partly_refunded: 'dashboard.share.partlyRefunded',
  released: 'dashboard.share.voided',
  declined: 'dashboard.share.declined',
  refunded: 'dashboard.share.refunded',
  returned: 'dashboard.share.returned',
  disputed: 'dashboard.share.disputed',
  dispute_won: 'dashboard.share.disputeWon',
  dispute_lost: 'dashboard.share.disputeLost',
};
const TONE: Partial<Record<ShareStage, 'yellow' | 'red'>> = {
  bank_pending: 'yellow',
  returned: 'red',
  declined: 'red',
  disputed: 'yellow',
  dispute_lost: 'red',
};

export const SHARE_STAGES = Object.keys(LABEL) as ShareStage[];

export function shareStageWords(stage: ShareStage): { key: MessageKey; tone: 'neutral' | 'yellow' | 'red' } {
  return { key: LABEL[stage], tone: TONE[stage] ?? 'neutral' };
}
