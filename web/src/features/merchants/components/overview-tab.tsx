import type { ReactNode } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadError } from '../../../components/ui/list-state';
import { useT } from '../../../i18n';
import type { Merchant, PaymentIntent } from '../api';
import { platformLabel } from './create-merchant-dialog';
import { IntentsTable } from './intents-table';

/** Spec §9: the overview shows 5 recent payment intents. */
export const OVERVIEW_INTENTS = 5;

function Detail({ label, children, testId }: { label: string; children: ReactNode; testId: string }) {
  return (
    <div className="space-y-0.5">
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="break-words text-sm text-slate-900" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

export function OverviewTab({
  merchant,
  intents,
  isLoading,
  error,
  onRetry,
  onViewAll,
}: {
  merchant: Merchant;
  intents: readonly PaymentIntent[];
  isLoading: boolean;
  error: unknown;
  onRetry(): void;
  onViewAll(): void;
}) {
  const t = useT();
  return (
    <div className="space-y-6">
      <Card>
        <CardHeader>
          <CardTitle>{t('merchants.overview.details')}</CardTitle>
        </CardHeader>
        <CardContent>
          <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
            <Detail label={t('merchants.overview.businessName')} testId="overview-business-name">
              {merchant.businessName}
            </Detail>
            <Detail label={t('merchants.overview.email')} testId="overview-email">
              <span dir="ltr">{merchant.businessEmail}</span>
            </Detail>
            <Detail label={t('merchants.overview.website')} testId="overview-website">
              {merchant.website ? (
                <a href={merchant.website} target="_blank" rel="noopener noreferrer" className="text-brand-600 hover:underline" dir="ltr">
                  {merchant.website}
                </a>
              ) : (
                <span className="text-slate-400">{t('merchants.overview.noWebsite')}</span>
              )}
            </Detail>
            <Detail label={t('merchants.overview.platform')} testId="overview-platform">
              {t(platformLabel[merchant.platformType] ?? 'merchants.platform.custom')}
            </Detail>
            <Detail label={t('merchants.overview.environment')} testId="overview-environment">
              {merchant.environment === 'production' ? t('merchants.environment.production') : t('merchants.environment.sandbox')}
            </Detail>
          </dl>
        </CardContent>
      </Card>
      <Card>
        <div className="flex items-start justify-between gap-4 p-6">
          <div className="space-y-1.5">
            <CardTitle>{t('merchants.overview.recent')}</CardTitle>
            <CardDescription>{t('merchants.overview.recentDescription', { n: OVERVIEW_INTENTS })}</CardDescription>
          </div>
          {intents.length > 0 && (
            <Button variant="outline" size="sm" onClick={onViewAll}>
              {t('merchants.overview.viewAll')}
            </Button>
          )}
        </div>
        <CardContent>
          {isLoading ? (
            <div className="space-y-2" aria-busy="true" aria-label={t('common.loading')}>
              {[0, 1, 2].map((i) => (
                <div key={i} className="h-10 animate-pulse rounded-md bg-slate-100" />
              ))}
            </div>
          ) : error ? (
            <LoadError message={t('merchants.payments.loadFailed')} error={error} onRetry={onRetry} />
          ) : (
            <IntentsTable intents={intents.slice(0, OVERVIEW_INTENTS)} testId="overview-intents" />
          )}
        </CardContent>
      </Card>
    </div>
  );
}
