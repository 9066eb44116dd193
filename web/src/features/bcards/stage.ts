import type { MessageKey } from '../../i18n';
import { formatMoney } from '../../lib/money';
import type { Bcard } from './api';

/*
 * A bcard's stage (the API's code and figures, api/src/modules/bcards/stage.ts) as a message key with its values and
 * a badge tone. The words live in the catalogue (en, ar); amounts are formatted here and isolated by the caller so
 * they stay left to right inside an Arabic sentence.
 */

export type BcardStage = Bcard['stage'];
export type BankDebitState = 'pending' | 'settled' | 'returned';
type Tone = 'neutral' | 'green' | 'yellow' | 'red' | 'blue';

export interface StageWords {
  key: MessageKey;
  values: Record<string, string>;
  tone: Tone;
}

const keyOf: Record<BcardStage['code'], MessageKey> = {
  collecting: 'bcards.stage.collecting',
  not_issued: 'bcards.stage.not_issued',
  active: 'bcards.stage.active',
  authorized: 'bcards.stage.authorized',
  used: 'bcards.stage.used',
  partly_used: 'bcards.stage.partly_used',
  expiring: 'bcards.stage.expiring',
  expired: 'bcards.stage.expired',
  canceling: 'bcards.stage.canceling',
  canceled: 'bcards.stage.canceled',
};

const toneOf: Record<BcardStage['code'], Tone> = {
  collecting: 'yellow',
  not_issued: 'red',
  active: 'green',
  authorized: 'yellow',
  used: 'blue',
  partly_used: 'blue',
  expiring: 'neutral',
  expired: 'neutral',
  canceling: 'neutral',
  canceled: 'neutral',
};

/** The words of a stage; `iso` keeps each amount (and the merchant's name) in one piece in right-to-left text. */
export function stageWords(stage: BcardStage, iso: (text: string) => string = (t) => t): StageWords {
  const money = (amount: string | null) => iso(formatMoney(amount ?? '0.00'));
  const tone = toneOf[stage.code] ?? 'neutral';
  if (stage.code === 'used' && !stage.merchant) return { key: 'bcards.stage.usedNoMerchant', values: {}, tone };
  return {
    key: keyOf[stage.code] ?? 'bcards.stage.usedNoMerchant',
    values: {
      held: money(stage.held),
      returned: money(stage.returned),
      spent: money(stage.spent),
      merchant: stage.merchant ?? '',
    },
    tone,
  };
}

/** A transaction's bank debits in words: settling is yellow (it can still come back), returned red; settled says so quietly. */
export function bankDebitWords(state: BankDebitState): StageWords {
  switch (state) {
    case 'pending':
      return { key: 'bcards.bankDebit.pending', values: {}, tone: 'yellow' };
    case 'returned':
      return { key: 'bcards.bankDebit.returned', values: {}, tone: 'red' };
    case 'settled':
      return { key: 'bcards.bankDebit.settled', values: {}, tone: 'neutral' };
  }
}
