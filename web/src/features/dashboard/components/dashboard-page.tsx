import { useQueryClient } from '@tanstack/react-query';
import { BarChart3, CreditCard, FlaskConical, LayoutDashboard, Receipt, Settings, Wallet } from 'lucide-react';
import { lazy, Suspense, useCallback, useEffect, useState, type ReactNode } from 'react';
import { useLocation, useSearch } from 'wouter';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../../components/ui/tabs';
import { useLanguage, type MessageKey } from '../../../i18n';
import { useAuth } from '../../auth/auth-context';
import { ProfileDialog } from '../../profile/components/profile-dialog';
import { displayName } from '../../profile/display-name';
import { useDashboardData, useRefreshMoney } from '../hooks/use-dashboard-data';
import { BcardsTab } from './bcards-tab';
import { DashboardHeader } from './dashboard-header';
import { LinkedTransactionDialog } from './linked-transaction-dialog';
import { dashboardLink, isTab, TABS, type Tab } from '../link';
import { FundingSourcesTab } from './funding-sources-tab';
import { OverviewTab } from './overview-tab';
import { TransactionsTab } from './transactions-tab';
import { analyticsTab, prefetchTab, settingsPanel, whenIdle } from '../prefetch';

/**
 * The Analytics tab (its charts), Settings, the Add Funding Source and the Create bcard dialogs load when first opened: the
 * dashboard's first paint stays within its budget.
 */
const AddFundingSourceDialog = lazy(() =>
  import('../../funding-sources/components/add-funding-source-dialog').then((m) => ({ default: m.AddFundingSourceDialog })),
);
const CreateBcardDialog = lazy(() => import('../../bcards/components/create-bcard-dialog').then((m) => ({ default: m.CreateBcardDialog })));
const AnalyticsTab = analyticsTab.Component;
/** Settings, with its texts (features/settings/texts.ts), loads when first opened too. */
const SettingsPanel = settingsPanel.Component;

/*
 * The dashboard is the page that composes the consumer features (profile, settings, funding sources, bcards,
 * transactions) into one screen: the only place those features are imported from outside their own folders.
 * It owns the two creation dialogs so that Overview's Quick Actions and the tabs open the same ones.
 */


/** Scrolls to and focuses the element `id` once it is on screen (a lazily loaded card appears a moment later). */
function revealWhenShown(id: string): () => void {
  let frames = 0;
  let handle = 0;
  const look = () => {
    const el = document.getElementById(id);
    if (el) {
      el.scrollIntoView({ block: 'start', behavior: 'smooth' });
      el.focus({ preventScroll: true });
      return;
    }
    // About 5 s at 60 frames a second, then give up quietly (the tab is open either way).
    if (++frames < 300) handle = requestAnimationFrame(look);
  };
  handle = requestAnimationFrame(look);
  return () => cancelAnimationFrame(handle);
}

const tabLabel: Record<Tab, MessageKey> = {
  overview: 'dashboard.tabs.overview',
  'funding-sources': 'dashboard.tabs.fundingSources',
  bcards: 'dashboard.tabs.bcards',
  transactions: 'dashboard.tabs.transactions',
  analytics: 'analytics.tab',
  settings: 'dashboard.tabs.settings',
};
const tabIcon: Record<Tab, ReactNode> = {
  overview: <LayoutDashboard className="h-4 w-4" aria-hidden />,
  'funding-sources': <Wallet className="h-4 w-4" aria-hidden />,
  bcards: <CreditCard className="h-4 w-4" aria-hidden />,
  transactions: <Receipt className="h-4 w-4" aria-hidden />,
  analytics: <BarChart3 className="h-4 w-4" aria-hidden />,
  settings: <Settings className="h-4 w-4" aria-hidden />,
};

/** `/` for signed-in non-admin users: header, five tabs, the profile dialog. */
export function DashboardPage() {
  const { t, dir, lang } = useLanguage();
  const { user } = useAuth();
  const { fundingSources, bcards, plan, feePercentage, isDemo } = useDashboardData();
  const qc = useQueryClient();
  // After the first paint, while the browser is idle, the other tabs' first data; their code on hover or focus (prefetch.ts).
  useEffect(() => whenIdle(() => TABS.forEach((id) => prefetchTab(id, qc, lang, isDemo, false))), [qc, lang, isDemo]);
  const refreshMoney = useRefreshMoney();
  const [tab, setTab] = useState<Tab>('overview');
  const search = useSearch();
  const [, navigate] = useLocation();
  const [linkedTransaction, setLinkedTransaction] = useState<string | null>(null);
  // A new object per link followed, so following the same link again scrolls again.
  const [reveal, setReveal] = useState<{ section: string } | null>(null);
  const closeLinkedTransaction = useCallback(() => setLinkedTransaction(null), []);
  // A link's query is applied once, then dropped from the address, so the same link followed again applies again.
  useEffect(() => {
    const link = dashboardLink(search);
    if (!link) return;
    if (link.tab) setTab(link.tab);
    if (link.transaction) setLinkedTransaction(link.transaction);
    if (link.section) setReveal({ section: link.section });
    navigate('/', { replace: true });
  }, [search, navigate]);
  useEffect(() => (reveal ? revealWhenShown(`settings-${reveal.section}`) : undefined), [reveal]);
  const [profileOpen, setProfileOpen] = useState(false);
  const [addSourceOpen, setAddSourceOpen] = useState(false);
  // Mounted from its first opening on (so it can close with its animation and keep its state), loaded then.
  const [sourceDialogLoaded, setSourceDialogLoaded] = useState(false);
  if (addSourceOpen && !sourceDialogLoaded) setSourceDialogLoaded(true);
  const [createBcardOpen, setCreateBcardOpen] = useState(false);
  // Likewise Create bcard (with the split configurator).
  const [createBcardLoaded, setCreateBcardLoaded] = useState(false);
  if (createBcardOpen && !createBcardLoaded) setCreateBcardLoaded(true);

  // The router renders this page only with a user; a signed-out render (e.g. mid-logout) shows nothing.
  if (!user) return null;

  return (
    <div className="min-h-screen bg-slate-50">
      <DashboardHeader user={user} onViewProfile={() => setProfileOpen(true)} />
      <main className="mx-auto max-w-6xl px-4 py-8 sm:px-6 lg:px-8">
        <div className="mb-6 flex flex-col gap-1">
          <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
            {t('dashboard.welcome', { name: displayName(user, t('dashboard.userFallback')) })}
          </h1>
          <p className="text-sm text-slate-500">{t('common.dashboard.subtitle')}</p>
        </div>
        {isDemo && (
          <div
            className="mb-6 flex items-start gap-3 rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900"
            role="status"
            data-testid="demo-banner"
          >
            <FlaskConical className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
            <p>{t('dashboard.demo.banner')}</p>
          </div>
        )}
        {/* Radix Tabs would otherwise set dir="ltr" on its root (no DirectionProvider), flipping Arabic pages. */}
        <Tabs
          dir={dir}
          value={tab}
          onValueChange={(v) => {
            if (isTab(v)) setTab(v);
          }}
        >
          {/*
            * Every tab on screen at every width (issue 16: at 390 px a scrolled strip hid Settings without a hint): a
            * grid of three columns on phones, one row from 640 px. The arrow keys, Home and End move between tabs.
            */}
          <TabsList aria-label={t('dashboard.tabs.label')} className="grid w-full grid-cols-3 sm:inline-flex sm:w-auto" data-testid="dashboard-tabs">
            {TABS.map((id) => (
              <TabsTrigger
                key={id}
                value={id}
                className="flex min-w-0 items-center justify-center gap-1.5 px-2 text-center text-xs leading-tight sm:gap-2 sm:px-3 sm:text-sm"
                data-testid={`tab-${id}`}
                onPointerEnter={() => prefetchTab(id, qc, lang, isDemo)}
                onFocus={() => prefetchTab(id, qc, lang, isDemo)}
              >
                <span className="shrink-0">{tabIcon[id]}</span>
                {t(tabLabel[id])}
              </TabsTrigger>
            ))}
          </TabsList>
          <TabsContent value="overview">
            <OverviewTab
              isDemo={isDemo}
              bcards={bcards.data}
              bcardsLoading={bcards.isLoading}
              onCreateBcard={() => setCreateBcardOpen(true)}
              onAddSource={() => setAddSourceOpen(true)}
              onViewAll={() => setTab('transactions')}
            />
          </TabsContent>
          <TabsContent value="funding-sources">
            <FundingSourcesTab
              sources={fundingSources.data}
              isLoading={fundingSources.isLoading}
              error={fundingSources.error}
              onRetry={fundingSources.refetch}
              isDemo={isDemo}
              plan={plan}
              onAdd={() => setAddSourceOpen(true)}
            />
          </TabsContent>
          <TabsContent value="bcards">
            <BcardsTab
              bcards={bcards.data}
              isLoading={bcards.isLoading}
              error={bcards.error}
              onRetry={bcards.refetch}
              isDemo={isDemo}
              onCreate={() => setCreateBcardOpen(true)}
              onMoneyMoved={refreshMoney}
            />
          </TabsContent>
          <TabsContent value="transactions">
            <TransactionsTab isDemo={isDemo} />
          </TabsContent>
          <TabsContent value="analytics">
            <Suspense fallback={<p className="py-8 text-center text-sm text-muted-foreground" role="status">{t('common.loading')}</p>}>
              <AnalyticsTab isDemo={isDemo} fallback={<p className="py-8 text-center text-sm text-muted-foreground" role="status">{t('common.loading')}</p>} />
            </Suspense>
          </TabsContent>
          <TabsContent value="settings">
            <Suspense fallback={<p className="py-8 text-center text-sm text-muted-foreground" role="status">{t('common.loading')}</p>}>
              <SettingsPanel user={user} fallback={<p className="py-8 text-center text-sm text-muted-foreground" role="status">{t('common.loading')}</p>} />
            </Suspense>
          </TabsContent>
        </Tabs>
      </main>
      <ProfileDialog open={profileOpen} onOpenChange={setProfileOpen} />
      <LinkedTransactionDialog id={linkedTransaction} onClose={closeLinkedTransaction} />
      {sourceDialogLoaded && (
        <Suspense fallback={null}>
          <AddFundingSourceDialog
            open={addSourceOpen}
            onOpenChange={setAddSourceOpen}
            plan={plan}
            sourceCount={fundingSources.data.length}
            simulate={isDemo}
          />
        </Suspense>
      )}
      {createBcardLoaded && (
        <Suspense fallback={null}>
          <CreateBcardDialog
            open={createBcardOpen}
            onOpenChange={setCreateBcardOpen}
            sources={fundingSources.data}
            feePercentage={feePercentage}
            isDemo={isDemo}
            onMoneyMoved={refreshMoney}
          />
        </Suspense>
      )}
    </div>
  );
}
