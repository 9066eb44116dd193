import { Activity, CircleCheck, CreditCard, DollarSign } from 'lucide-react';
import type { ReactNode } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Card, CardContent } from '../../../components/ui/card';
import { useLanguage } from '../../../i18n';
import { formatMoney } from '../../../lib/money';
import { formatDate } from '../display';
import type { Merchant } from '../api';

function Stat({ label, icon, value, note, testId }: { label: string; icon: ReactNode; value: ReactNode; note: string; testId: string }) {
  return (
    <Card data-testid={testId}>
      <div className="flex items-center justify-between p-6 pb-2">
        <p className="text-sm font-medium text-slate-600">{label}</p>
        <span className="text-slate-400" aria-hidden>
          {icon}
        </span>
      </div>
      <CardContent>
        <div className="text-2xl font-bold tabular-nums" data-testid={`${testId}-value`}>
          {value}
        </div>
        <p className="text-xs text-slate-500">{note}</p>
      </CardContent>
    </Card>
  );
}

const Pending = () => <span className="inline-block h-7 w-16 animate-pulse rounded bg-slate-100 align-middle" />;

/**
 * The four cards (spec §2): Total Volume (all time), API Requests (today), Payment Intents (how many the account has:
 * the API's count, not the size of the recent page), Account Status.
 */
export function StatCards({
  merchant,
  requestsToday,
  intentsCount,
}: {
  merchant: Merchant;
  requestsToday: number | undefined;
  /** Every payment intent of the account (the API's total_count), not the size of a page. */
  intentsCount: number | undefined;
}) {
  const { t, lang } = useLanguage();
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
      <Stat
        label={t('merchants.cards.volume')}
        icon={<DollarSign className="h-4 w-4" />}
        value={<span dir="ltr">{formatMoney(merchant.totalVolume)}</span>}
        note={t('merchants.cards.volumeNote')}
        testId="card-volume"
      />
      <Stat
        label={t('merchants.cards.requests')}
        icon={<Activity className="h-4 w-4" />}
        value={requestsToday === undefined ? <Pending /> : requestsToday.toLocaleString('en-US')}
        note={t('merchants.cards.requestsNote')}
        testId="card-requests"
      />
      <Stat
        label={t('merchants.cards.intents')}
        icon={<CreditCard className="h-4 w-4" />}
        value={intentsCount === undefined ? <Pending /> : intentsCount.toLocaleString('en-US')}
        note={t('merchants.cards.intentsTotalNote')}
        testId="card-intents"
      />
      <Stat
        label={t('merchants.cards.status')}
        icon={<CircleCheck className="h-4 w-4" />}
        value={
          <Badge tone={merchant.isActive ? 'green' : 'red'} className="text-sm">
            {merchant.isActive ? t('merchants.cards.active') : t('merchants.cards.inactive')}
          </Badge>
        }
        note={t('merchants.cards.since', { date: formatDate(merchant.createdAt, lang) })}
        testId="card-status"
      />
    </div>
  );
}
