import { Badge } from '../../../components/ui/badge';
import { useLanguage } from '../../../i18n';
import { isolateFor } from '../../../lib/card-display';
import { bankDebitWords, stageWords, type BankDebitState, type BcardStage } from '../stage';

/** Where a bcard stands, in the reader's language: "Active ($40.00 held)", "Used at Corner Books", "Canceled ($10.29 returned)". */
export function BcardStageBadge({ stage, testId = 'bcard-stage' }: { stage: BcardStage; testId?: string }) {
  const { t, dir } = useLanguage();
  const words = stageWords(stage, isolateFor(dir));
  return (
    <Badge tone={words.tone} data-testid={testId} data-stage={stage.code}>
      {t(words.key, words.values)}
    </Badge>
  );
}

/** A transaction's bank debit when it matters: still settling (it can come back) or returned by the bank. */
export function BankDebitBadge({ state, showSettled = false }: { state: BankDebitState | null; showSettled?: boolean }) {
  const { t } = useLanguage();
  if (state === null || (state === 'settled' && !showSettled)) return null;
  const words = bankDebitWords(state);
  return (
    <Badge tone={words.tone} data-testid="bank-debit-status" data-state={state}>
      {t(words.key)}
    </Badge>
  );
}
