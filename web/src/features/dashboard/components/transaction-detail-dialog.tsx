import { useQuery } from '@tanstack/react-query';
import { CreditCard, Loader2 } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { useLanguage, type MessageKey } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { transactionQuery, type Transaction, type TransactionDetail, type TransactionShare } from '../../transactions/api';
import { formatAmount, parseCents } from '../transactions';
import { formatDateTime } from './format';
import { shareStageWords } from '../../transactions/share-stage';
import { TransactionRefunds } from './transaction-refunds';
import { BankDebitBadge, BcardStageBadge } from '../../bcards/components/bcard-stage';
import { DetailDialog, DetailRow as Row } from './detail-dialog';


/**
 * A transaction in full (GET /api/transactions/{id}): amounts, the bcard, each funding source's share, and the
 * merchant's refunds with what went back to which source.
 * Demo samples are shown from the list alone (they have no shares and nothing is requested).
 */
export function TransactionDetailDialog({
  transaction,
  isDemo,
  onClose,
}: {
  transaction: Transaction | null;
  isDemo: boolean;
  onClose(): void;
}) {
  const { t, lang } = useLanguage();
  const detail = useQuery({ ...transactionQuery(transaction?.id ?? '', lang), enabled: !!transaction && !isDemo });
  const tx: Transaction | TransactionDetail | null = detail.data ?? transaction;
  const shares = detail.data?.shares;

  return (
    <DetailDialog
      open={transaction !== null}
      onClose={onClose}
      testId="transaction-detail-dialog"
      title={tx?.merchant ?? ''}
      description={t('dashboard.detail.description')}
    >
        {tx && (
          <div className="space-y-5">
            <dl className="divide-y divide-slate-100">
              <Row label={t('dashboard.detail.status')}>
                <span className="flex flex-wrap items-center justify-end gap-1.5">
                  <BcardStageBadge stage={tx.stage} testId="transaction-detail-stage" />
                  <BankDebitBadge state={tx.bankDebit} showSettled />
                </span>
              </Row>
              <Row label={t('dashboard.detail.date')}>
                <time dateTime={tx.createdAt}>{formatDateTime(tx.createdAt, lang)}</time>
              </Row>
              <Row label={t('dashboard.detail.bcard')}>{tx.virtualCardName}</Row>
              {tx.description && <Row label={t('dashboard.detail.descriptionLabel')}>{tx.description}</Row>}
              <Row label={t('dashboard.detail.amount')} testId="transaction-detail-amount">
                <span dir="ltr">{formatAmount(tx.amount)}</span>
              </Row>
              <Row label={t('dashboard.detail.fee')}>
                <span dir="ltr">{formatAmount(tx.fee)}</span>
              </Row>
              <Row label={t('dashboard.detail.total')} testId="transaction-detail-total">
                <span dir="ltr">{formatAmount(tx.totalCharged)}</span>
              </Row>
              {tx.refunded && parseCents(tx.refunded) > 0 && (
                <Row label={t('dashboard.detail.refunded')}>
                  <span dir="ltr">{formatAmount(tx.refunded)}</span>
                </Row>
              )}
              {tx.failureMessage && (
                <Row label={t('dashboard.detail.failure')}>
                  <span className="text-red-600">{tx.failureMessage}</span>
                </Row>
              )}
            </dl>

            <section aria-labelledby="transaction-shares-title">
              <h3 id="transaction-shares-title" className="mb-2 text-sm font-semibold text-slate-900">
                {t('dashboard.detail.shares')}
              </h3>
              {isDemo ? (
                <p className="text-sm text-slate-500">{t('dashboard.detail.demoShares')}</p>
              ) : detail.isLoading ? (
                <p className="flex items-center gap-2 text-sm text-slate-500" aria-busy="true">
                  <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
                  {t('common.loading')}
                </p>
              ) : detail.isError ? (
                <p className="text-sm text-red-600" role="alert">
                  {t('dashboard.detail.loadFailed')} {messageOf(detail.error)}
                </p>
              ) : !shares || shares.length === 0 ? (
                <p className="text-sm text-slate-500">{t('dashboard.detail.noShares')}</p>
              ) : (
                <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200" data-testid="transaction-shares">
                  {shares.map((s) => {
                    const words = shareStageWords(s.stage);
                    const label = words.key;
                    return (
                      <li key={s.fundingSourceId} className="flex items-center gap-3 p-3" data-testid="transaction-share" data-stage={s.stage}>
                        <CreditCard className="h-4 w-4 shrink-0 text-slate-400" aria-hidden />
                        <div className="min-w-0 flex-1">
                          <p className="truncate text-sm font-medium text-slate-900">
                            {s.name}{' '}
                            <span className="font-mono text-slate-400" dir="ltr">
                              •••• {s.last4}
                            </span>
                          </p>
                          <p className="text-xs text-slate-500">{t('dashboard.detail.sharePercent', { n: s.percentage })}</p>
                        </div>
                        <div className="flex shrink-0 flex-col items-end gap-1">
                          <span className="text-sm font-semibold tabular-nums" dir="ltr">
                            {formatAmount(s.amount)}
                          </span>
                          <Badge tone={words.tone} data-testid="transaction-share-stage">
                            {label ? t(label) : s.stage}
                          </Badge>
                        </div>
                      </li>
                    );
                  })}
                </ul>
              )}
            </section>

            {detail.data && <TransactionRefunds refunds={detail.data.refunds} shares={detail.data.shares} />}
          </div>
        )}
        <div className="mt-5 flex justify-end">
          <Button variant="outline" onClick={onClose}>
            {t('common.close')}
          </Button>
        </div>
    </DetailDialog>
  );
}
