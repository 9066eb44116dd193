import { CreditCard, Eye, ShoppingBag } from 'lucide-react';
import { Button } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';
import { formatAmount, formatCents, rowRefundedCents } from '../transactions';
import type { Transaction } from '../../transactions/api';
import { formatDate } from './format';
import { BankDebitBadge, BcardStageBadge } from '../../bcards/components/bcard-stage';

/** One transaction: merchant, status badge, date, bcard name, description, the amount in dollars (and what came back, if anything), and View. */
export function TransactionRow({ transaction: tx, onView }: { transaction: Transaction; onView(tx: Transaction): void }) {
  const { t, lang } = useLanguage();
  const refunded = rowRefundedCents(tx);
  return (
    <li className="flex items-start gap-4 py-4" data-testid="transaction-row" data-transaction-id={tx.id}>
      <span
        className="hidden h-10 w-10 shrink-0 items-center justify-center rounded-full bg-slate-100 text-slate-500 sm:flex"
        aria-hidden
      >
        <ShoppingBag className="h-5 w-5" />
      </span>
      <div className="min-w-0 flex-1 space-y-1">
        <div className="flex flex-wrap items-center gap-2">
          <p className="truncate font-medium text-slate-900" data-testid="transaction-merchant">
            {tx.merchant}
          </p>
          {/* Where its bcard stands (never "Completed" for one still holding its money), and a bank debit settling or returned. */}
          <BcardStageBadge stage={tx.stage} testId="transaction-status" />
          <BankDebitBadge state={tx.bankDebit} />
        </div>
        <p className="flex flex-wrap items-center gap-x-2 gap-y-0.5 text-xs text-slate-500">
          <time dateTime={tx.createdAt}>{formatDate(tx.createdAt, lang)}</time>
          <span aria-hidden>·</span>
          <span className="inline-flex items-center gap-1" data-testid="transaction-card-name">
            <CreditCard className="h-3.5 w-3.5" aria-hidden />
            {tx.virtualCardName}
          </span>
        </p>
        {tx.description && <p className="text-sm text-slate-600">{tx.description}</p>}
      </div>
      <div className="flex shrink-0 flex-col items-end gap-1.5">
        <p className="font-semibold tabular-nums text-slate-900" dir="ltr" data-testid="transaction-amount">
          {formatAmount(tx.amount)}
        </p>
        {refunded !== null && (
          <p className="text-xs font-medium text-green-700" data-testid="transaction-refunded">
            {t('dashboard.transactions.refunded')}{' '}
            <span className="tabular-nums" dir="ltr">
              {formatCents(refunded)}
            </span>
          </p>
        )}
        <Button
          variant="outline"
          size="sm"
          onClick={() => onView(tx)}
          data-testid="transaction-view"
          aria-label={t('dashboard.transactions.viewLabel', { merchant: tx.merchant })}
        >
          <Eye className="h-4 w-4" aria-hidden />
          {t('dashboard.transactions.view')}
        </Button>
      </div>
    </li>
  );
}
