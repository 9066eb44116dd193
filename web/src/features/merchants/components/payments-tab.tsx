import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ChevronLeft, ChevronRight, RefreshCw } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardTitle } from '../../../components/ui/card';
import { LoadError } from '../../../components/ui/list-state';
import { useT } from '../../../i18n';
import { paymentIntentsQuery, PAYMENTS_PAGE_SIZE, type PaymentIntent } from '../api';
import { IntentsTable } from './intents-table';
import { PaymentDialog, type PaymentDialogMode } from './payment-dialog';

/** Every payment intent, newest first, a page at a time (cursor paging: the last id of each page); details and refunds. */
export function PaymentsTab({ merchantId }: { merchantId: string }) {
  const t = useT();
  // The cursors of the pages before the current one; [] is the first page.
  const [cursors, setCursors] = useState<string[]>([]);
  useEffect(() => setCursors([]), [merchantId]);
  const startingAfter = cursors[cursors.length - 1];
  const page = useQuery({ ...paymentIntentsQuery(merchantId, PAYMENTS_PAGE_SIZE, startingAfter), placeholderData: keepPreviousData });
  const data = page.data?.data ?? [];
  const last = data[data.length - 1];
  // The payment opened (details or refund). Its figures are read from the latest page, so a refund shows at once.
  const [opened, setOpened] = useState<{ intent: PaymentIntent; mode: PaymentDialogMode } | null>(null);
  const openedIntent = opened ? (data.find((pi) => pi.id === opened.intent.id) ?? opened.intent) : null;

  return (
    <Card>
      <div className="flex items-start justify-between gap-4 p-6">
        <div className="space-y-1.5">
          <CardTitle>{t('merchants.payments.title')}</CardTitle>
          <CardDescription>{t('merchants.payments.description')}</CardDescription>
        </div>
        <Button variant="outline" size="sm" onClick={() => void page.refetch()} disabled={page.isFetching} data-testid="payments-refresh">
          <RefreshCw className={`h-4 w-4 ${page.isFetching ? 'animate-spin' : ''}`} aria-hidden />
          {t('merchants.refresh')}
        </Button>
      </div>
      <CardContent className="space-y-4">
        {page.isLoading ? (
          <div className="space-y-2" aria-busy="true" aria-label={t('common.loading')}>
            {[0, 1, 2, 3].map((i) => (
              <div key={i} className="h-10 animate-pulse rounded-md bg-slate-100" />
            ))}
          </div>
        ) : page.isError ? (
          <LoadError message={t('merchants.payments.loadFailed')} error={page.error} onRetry={() => void page.refetch()} />
        ) : (
          <IntentsTable
            intents={data}
            testId="payments-table"
            onOpen={(intent) => setOpened({ intent, mode: 'detail' })}
            onRefund={(intent) => setOpened({ intent, mode: 'refund' })}
          />
        )}
        {(cursors.length > 0 || page.data?.has_more) && (
          <nav className="flex items-center justify-between gap-2" aria-label={t('merchants.payments.paging')}>
            <p className="text-xs text-slate-500" data-testid="payments-page">
              {t('merchants.payments.page', { n: cursors.length + 1 })}
            </p>
            <div className="flex gap-2">
              <Button
                variant="outline"
                size="sm"
                disabled={cursors.length === 0 || page.isFetching}
                onClick={() => setCursors((c) => c.slice(0, -1))}
                data-testid="payments-prev"
              >
                <ChevronLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
                {t('merchants.payments.previous')}
              </Button>
              <Button
                variant="outline"
                size="sm"
                disabled={!page.data?.has_more || !last || page.isFetching}
                onClick={() => last && setCursors((c) => [...c, last.id])}
                data-testid="payments-next"
              >
                {t('merchants.payments.next')}
                <ChevronRight className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
              </Button>
            </div>
          </nav>
        )}
      </CardContent>
      <PaymentDialog
        merchantId={merchantId}
        intent={openedIntent}
        mode={opened?.mode ?? 'detail'}
        onModeChange={(mode) => setOpened((o) => (o ? { ...o, mode } : o))}
        onClose={() => setOpened(null)}
      />
    </Card>
  );
}
