import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { transactionQuery } from '../../transactions/api';
import { TransactionDetailDialog } from './transaction-detail-dialog';

/**
 * The transaction a link names (`/?transaction=<id>`, e.g. from a notice), opened in the same detail dialog as the
 * Transactions tab's View. One that cannot be read (not the user's, gone) says so and closes.
 */
export function LinkedTransactionDialog({ id, onClose }: { id: string | null; onClose(): void }) {
  const { t, lang } = useLanguage();
  const detail = useQuery({ ...transactionQuery(id ?? '', lang), enabled: id !== null, retry: false });
  const failed = id !== null && detail.isError;
  useEffect(() => {
    if (!failed) return;
    toast({ title: t('dashboard.transactions.loadFailed'), description: messageOf(detail.error), variant: 'destructive' });
    onClose();
  }, [failed, detail.error, onClose, t]);
  return <TransactionDetailDialog transaction={id !== null && detail.data ? detail.data : null} isDemo={false} onClose={onClose} />;
}
