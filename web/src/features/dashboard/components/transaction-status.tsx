import { Badge } from '../../../components/ui/badge';
import { useLanguage, useT, type MessageKey } from '../../../i18n';
import { isolateFor } from '../../../lib/card-display';
import { cn } from '../../../lib/cn';
import { bankDebitWords, stageWords, type BankDebitState, type BcardStage } from '../../bcards/stage';
import { statusDot } from '../transactions';

const badgeTone = { completed: 'green', pending: 'yellow', failed: 'red', refunded: 'neutral' } as const;
const statusLabel: Record<keyof typeof badgeTone, MessageKey> = {
  completed: 'dashboard.status.completed',
  pending: 'dashboard.status.pending',
  failed: 'dashboard.status.failed',
  refunded: 'dashboard.status.refunded',
};
const isKnown = (s: string): s is keyof typeof badgeTone => Object.hasOwn(badgeTone, s);

/** Completed green, pending yellow, failed red; refunded and any other status neutral (spec §3), unknown ones by raw name. */
export function StatusBadge({ status }: { status: string }) {
  const t = useT();
  return (
    <Badge tone={isKnown(status) ? badgeTone[status] : 'neutral'} data-testid="transaction-status">
      {isKnown(status) ? t(statusLabel[status]) : status}
    </Badge>
  );
}

const dotClass = {
  completed: 'bg-green-500',
  pending: 'bg-yellow-400',
  failed: 'bg-red-500',
  refunded: 'bg-slate-400',
  created: 'bg-blue-500',
} as const;
const dotLabel = {
  completed: 'dashboard.activity.completed',
  pending: 'dashboard.activity.pending',
  failed: 'dashboard.activity.failed',
  refunded: 'dashboard.activity.refunded',
  created: 'dashboard.activity.created',
} as const satisfies Record<keyof typeof dotClass, MessageKey>;

const stageDot = { green: 'bg-green-500', yellow: 'bg-yellow-400', red: 'bg-red-500', blue: 'bg-blue-500', neutral: 'bg-slate-400' } as const;

/**
 * Recent Activity's line: with the transaction's stage, its words in the reader's language ("Active ($40.00 held)",
 * "Used at Corner Books", "Canceled ($10.29 returned)") and, when a bank debit is settling or was returned, that too:
 * never "completed" for a bcard that still holds its money. Without a stage (an older answer), spec §4: completed
 * green, pending yellow; failed red and refunded grey say so; anything else blue 'Transaction created'.
 */
export function StatusDot({ status, stage, bankDebit }: { status: string; stage?: BcardStage; bankDebit?: BankDebitState | null }) {
  const { t, dir } = useLanguage();
  if (stage) {
    const words = stageWords(stage, isolateFor(dir));
    const bank = bankDebit && bankDebit !== 'settled' ? bankDebitWords(bankDebit) : null;
    return (
      <span className="inline-flex items-center gap-1.5 text-xs text-slate-500" data-testid="status-dot" data-status={stage.code}>
        <span className={cn('h-2 w-2 shrink-0 rounded-full', stageDot[bank?.tone ?? words.tone])} aria-hidden />
        {t(words.key, words.values)}
        {bank && <span data-testid="bank-debit-status" data-state={bankDebit}>· {t(bank.key)}</span>}
      </span>
    );
  }
  return <LegacyStatusDot status={status} />;
}

function LegacyStatusDot({ status }: { status: string }) {
  const t = useT();
  const kind = statusDot(status);
  return (
    <span
      className="inline-flex items-center gap-1.5 text-xs text-slate-500"
      data-testid="status-dot"
      data-status={kind}
    >
      <span className={cn('h-2 w-2 shrink-0 rounded-full', dotClass[kind])} aria-hidden />
      {t(dotLabel[kind])}
    </span>
  );
}
