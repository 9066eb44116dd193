import { useQuery } from '@tanstack/react-query';
import { Building2, Code2, KeyRound, LayoutDashboard, Plus, Receipt, Store, Webhook } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { LoadError } from '../../../components/ui/list-state';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../../components/ui/tabs';
import { useLanguage, type MessageKey } from '../../../i18n';
import { useAuth } from '../../auth/auth-context';
import { merchantsQuery, recentIntentsQuery, usageQuery, type Merchant } from '../api';
import { isLiveMode } from '../display';
import { ApiKeysTab } from './api-keys-tab';
import { CreateMerchantDialog } from './create-merchant-dialog';
import { IntegrationTab } from './integration-tab';
import { OverviewTab } from './overview-tab';
import { BackHomeLink, MerchantShell } from './page-shell';
import { PaymentsTab } from './payments-tab';
import { StatCards } from './stat-cards';
import { WebhooksTab } from './webhooks-tab';

const TABS = ['overview', 'payments', 'api-keys', 'webhooks', 'integration'] as const;
type Tab = (typeof TABS)[number];
const isTab = (v: string): v is Tab => (TABS as readonly string[]).includes(v);
const tabLabel: Record<Tab, MessageKey> = {
  overview: 'merchants.tabs.overview',
  payments: 'merchants.tabs.payments',
  'api-keys': 'merchants.tabs.apiKeys',
  webhooks: 'merchants.tabs.webhooks',
  integration: 'merchants.tabs.integration',
};
const tabIcon: Record<Tab, ReactNode> = {
  overview: <LayoutDashboard className="h-4 w-4" aria-hidden />,
  payments: <Receipt className="h-4 w-4" aria-hidden />,
  'api-keys': <KeyRound className="h-4 w-4" aria-hidden />,
  webhooks: <Webhook className="h-4 w-4" aria-hidden />,
  integration: <Code2 className="h-4 w-4" aria-hidden />,
};

/** Spec §2: a skeleton while the accounts load. */
function DashboardSkeleton() {
  const { t } = useLanguage();
  return (
    <div className="space-y-6" aria-busy="true" aria-label={t('common.loading')} data-testid="merchant-dashboard-skeleton">
      <div className="h-9 w-64 animate-pulse rounded-md bg-slate-200" />
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className="h-32 animate-pulse rounded-xl bg-slate-200" />
        ))}
      </div>
      <div className="h-10 w-96 max-w-full animate-pulse rounded-lg bg-slate-200" />
      <div className="h-64 animate-pulse rounded-xl bg-slate-200" />
    </div>
  );
}

function NoMerchant({ onCreate }: { onCreate(): void }) {
  const { t } = useLanguage();
  return (
    <div
      className="mx-auto flex max-w-lg flex-col items-center rounded-xl border border-dashed border-slate-300 bg-white px-6 py-16 text-center"
      data-testid="no-merchant"
    >
      <span className="mb-4 flex h-14 w-14 items-center justify-center rounded-full bg-brand-50 text-brand-600" aria-hidden>
        <Store className="h-7 w-7" />
      </span>
      <h1 className="text-xl font-semibold text-slate-900">{t('merchants.dashboard.none')}</h1>
      <p className="mt-2 text-sm text-slate-500">{t('merchants.dashboard.noneBody')}</p>
      <Button className="mt-6" onClick={onCreate} data-testid="create-merchant-button">
        <Plus className="h-4 w-4" aria-hidden />
        {t('merchants.dashboard.create')}
      </Button>
    </div>
  );
}

function MerchantView({ merchant, merchants, onSelect }: { merchant: Merchant; merchants: readonly Merchant[]; onSelect(id: string): void }) {
  const { t, dir } = useLanguage();
  const [tab, setTab] = useState<Tab>('overview');
  // Sub-calls only with a selected merchant (spec §6).
  const usage = useQuery(usageQuery(merchant.id));
  const recent = useQuery(recentIntentsQuery(merchant.id));
  const live = isLiveMode(merchant.environment);

  return (
    <>
      <div className="mb-6 flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
        <div className="space-y-1">
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl" data-testid="merchant-name">
              {merchant.businessName}
            </h1>
            <Badge tone={live ? 'green' : 'yellow'} data-testid="merchant-mode-badge" data-live={live}>
              {live ? t('merchants.dashboard.liveMode') : t('merchants.dashboard.testMode')}
            </Badge>
          </div>
          <p className="text-sm text-slate-500">{t('merchants.dashboard.subtitle')}</p>
        </div>
        {merchants.length > 1 && (
          <div className="flex items-center gap-2">
            <label htmlFor="merchant-selector" className="flex items-center gap-1.5 text-sm text-slate-500">
              <Building2 className="h-4 w-4" aria-hidden />
              {t('merchants.dashboard.selector')}
            </label>
            <select
              id="merchant-selector"
              data-testid="merchant-selector"
              className="h-10 max-w-[18rem] rounded-md border border-slate-300 bg-white px-3 text-sm"
              value={merchant.id}
              onChange={(e) => onSelect(e.target.value)}
            >
              {merchants.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.businessName} ({isLiveMode(m.environment) ? t('merchants.dashboard.liveMode') : t('merchants.dashboard.testMode')})
                </option>
              ))}
            </select>
          </div>
        )}
      </div>

      <div className="mb-8">
        <StatCards
          merchant={merchant}
          requestsToday={usage.data?.totalRequests}
          intentsCount={recent.data?.total_count}
        />
      </div>

      {/* Radix Tabs would otherwise set dir="ltr" on its root, flipping Arabic pages. */}
      <Tabs dir={dir} value={tab} onValueChange={(v) => isTab(v) && setTab(v)}>
        <div className="-mx-4 overflow-x-auto px-4 sm:mx-0 sm:px-0">
          <TabsList aria-label={t('merchants.tabs.label')} className="w-max sm:w-auto">
            {TABS.map((id) => (
              <TabsTrigger key={id} value={id} className="flex items-center gap-2" data-testid={`merchant-tab-${id}`}>
                {tabIcon[id]}
                {t(tabLabel[id])}
              </TabsTrigger>
            ))}
          </TabsList>
        </div>
        <TabsContent value="overview">
          <OverviewTab
            merchant={merchant}
            intents={recent.data?.data ?? []}
            isLoading={recent.isLoading}
            error={recent.error}
            onRetry={() => void recent.refetch()}
            onViewAll={() => setTab('payments')}
          />
        </TabsContent>
        <TabsContent value="payments">
          <PaymentsTab merchantId={merchant.id} />
        </TabsContent>
        <TabsContent value="api-keys">
          <ApiKeysTab merchant={merchant} />
        </TabsContent>
        <TabsContent value="webhooks">
          <WebhooksTab merchant={merchant} />
        </TabsContent>
        <TabsContent value="integration">
          <IntegrationTab merchant={merchant} />
        </TabsContent>
      </Tabs>
    </>
  );
}

/** /merchant-dashboard (spec §2): the user's merchant accounts, their figures and the five tabs. */
export function MerchantDashboardPage() {
  const { t } = useLanguage();
  const { user } = useAuth();
  const merchants = useQuery({ ...merchantsQuery(), enabled: !!user });
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const list = merchants.data ?? [];
  const selected = list.find((m) => m.id === selectedId) ?? list[0];

  let body: ReactNode;
  if (merchants.isLoading) body = <DashboardSkeleton />;
  else if (merchants.isError)
    body = <LoadError message={t('merchants.dashboard.loadFailed')} error={merchants.error} onRetry={() => void merchants.refetch()} />;
  else if (!selected) body = <NoMerchant onCreate={() => setCreating(true)} />;
  else body = <MerchantView key={selected.id} merchant={selected} merchants={list} onSelect={setSelectedId} />;

  return (
    <MerchantShell
      actions={
        selected && (
          <Button variant="outline" size="sm" onClick={() => setCreating(true)} data-testid="add-merchant-button">
            <Plus className="h-4 w-4" aria-hidden />
            <span className="hidden sm:inline">{t('merchants.dashboard.add')}</span>
          </Button>
        )
      }
    >
      <BackHomeLink />
      {body}
      {/* Outside the branches above: the dialog stays open (showing the new secret) when the first account appears. */}
      <CreateMerchantDialog
        open={creating}
        onOpenChange={setCreating}
        defaultEmail={user?.email ?? ''}
        onCreated={(id) => setSelectedId(id)}
      />
    </MerchantShell>
  );
}
