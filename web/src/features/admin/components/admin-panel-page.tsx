import { useQuery, useQueryClient } from '@tanstack/react-query';
import { BarChart3, CreditCard, Fingerprint, HandCoins, Languages, LayoutDashboard, LogOut, Settings2, Store, Users } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Redirect, useLocation } from 'wouter';
import { Button } from '../../../components/ui/button';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../../components/ui/tabs';
import { useLanguage, type MessageKey } from '../../../i18n';
import { ADMIN_KEY, adminLogout, adminSessionQuery } from '../api';
import { clearAdminToken, useAdminToken } from '../session';
import { AnalyticsTab } from './analytics-tab';
import { DashboardTab } from './dashboard-tab';
import { KycTab } from './kyc-tab';
import { MerchantsTab } from './merchants-tab';
import { ReceivablesTab } from './receivables-tab';
import { ErrorBlock } from './states';
import { SubscriptionsTab } from './subscriptions-tab';
import { UsersTab } from './users-tab';
import { VendorsTab } from './vendors-tab';

const TABS = ['dashboard', 'users', 'merchants', 'subscriptions', 'receivables', 'kyc', 'vendors', 'analytics'] as const;
type Tab = (typeof TABS)[number];
const isTab = (v: string): v is Tab => (TABS as readonly string[]).includes(v);
const tabLabel: Record<Tab, MessageKey> = {
  dashboard: 'admin.tabs.dashboard',
  users: 'admin.tabs.users',
  merchants: 'admin.tabs.merchants',
  subscriptions: 'admin.tabs.subscriptions',
  receivables: 'admin.tabs.receivables',
  kyc: 'admin.tabs.kyc',
  vendors: 'admin.tabs.vendors',
  analytics: 'admin.tabs.analytics',
};
const tabIcon: Record<Tab, ReactNode> = {
  dashboard: <LayoutDashboard className="h-4 w-4" aria-hidden />,
  users: <Users className="h-4 w-4" aria-hidden />,
  merchants: <Store className="h-4 w-4" aria-hidden />,
  subscriptions: <CreditCard className="h-4 w-4" aria-hidden />,
  receivables: <HandCoins className="h-4 w-4" aria-hidden />,
  kyc: <Fingerprint className="h-4 w-4" aria-hidden />,
  vendors: <Settings2 className="h-4 w-4" aria-hidden />,
  analytics: <BarChart3 className="h-4 w-4" aria-hidden />,
};

/**
 * Spec §4: loading, then authenticated or not. A stored token is verified first; a 401 clears it (api.ts) and
 * this hook then reports no admin.
 */
export function useAdminSession() {
  const token = useAdminToken();
  const session = useQuery(adminSessionQuery(token));
  return {
    token,
    admin: token ? (session.data?.admin ?? null) : null,
    isLoading: token !== null && session.isLoading,
    error: token ? session.error : null,
    refetch: () => void session.refetch(),
  };
}

/** /admin-panel: always routable; without a verified admin token it sends the visitor to /admin-login. */
export function AdminPanelPage() {
  const { t } = useLanguage();
  const { token, admin, isLoading, error, refetch } = useAdminSession();
  if (!token) return <Redirect to="/admin-login" replace />;
  if (isLoading) return <div className="min-h-screen bg-slate-50" aria-busy="true" aria-label={t('common.loading')} />;
  if (!admin) {
    return (
      <main className="mx-auto max-w-xl p-8">
        <ErrorBlock message={error ? t('admin.panel.networkError') : t('admin.panel.sessionError')} onRetry={refetch} />
      </main>
    );
  }
  return <AdminPanel username={admin.username} />;
}

function AdminPanel({ username }: { username: string }) {
  const { t, lang, dir, setLanguage } = useLanguage();
  const [tab, setTab] = useState<Tab>('dashboard');
  const [, navigate] = useLocation();
  const qc = useQueryClient();
  const [leaving, setLeaving] = useState(false);

  async function logout() {
    setLeaving(true);
    try {
      await adminLogout();
    } catch {
      /* revoked or unreachable: the token is dropped here either way */
    }
    clearAdminToken();
    qc.removeQueries({ queryKey: ADMIN_KEY });
    navigate('/admin-login');
  }

  return (
    <div className="min-h-screen bg-slate-50">
      <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur">
        <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6 lg:px-8">
          <div className="flex items-center gap-3">
            <span className="flex h-8 w-8 items-center justify-center rounded-lg bg-brand-600 text-white" aria-hidden>
              <CreditCard className="h-4 w-4" />
            </span>
            <div>
              <p className="text-base font-bold leading-tight text-slate-900">{t('admin.panel.title')}</p>
              <p className="text-xs text-slate-500" data-testid="admin-welcome">
                {t('admin.panel.welcome', { username })}
              </p>
            </div>
          </div>
          <div className="flex items-center gap-2">
            <Button
              variant="ghost"
              size="sm"
              onClick={() => setLanguage(lang === 'ar' ? 'en' : 'ar')}
              lang={lang === 'ar' ? 'en' : 'ar'}
              aria-label={t('common.language.label')}
              data-testid="admin-language-switch"
            >
              <Languages className="h-4 w-4" aria-hidden />
              {t('common.language.switch')}
            </Button>
            <Button variant="outline" size="sm" onClick={logout} disabled={leaving} data-testid="admin-logout">
              <LogOut className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
              {t('admin.panel.logout')}
            </Button>
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">
        <h1 className="sr-only">{t('admin.panel.title')}</h1>
        {/* Radix Tabs would otherwise set dir="ltr" on its root, flipping Arabic pages. */}
        <Tabs dir={dir} value={tab} onValueChange={(v) => isTab(v) && setTab(v)}>
          <div className="-mx-4 overflow-x-auto px-4 sm:mx-0 sm:px-0">
            <TabsList aria-label={t('admin.tabs.label')} className="w-max sm:w-auto">
              {TABS.map((id) => (
                <TabsTrigger key={id} value={id} className="flex items-center gap-2" data-testid={`admin-tab-${id}`}>
                  {tabIcon[id]}
                  {t(tabLabel[id])}
                </TabsTrigger>
              ))}
            </TabsList>
          </div>
          <TabsContent value="dashboard">
            <DashboardTab />
          </TabsContent>
          <TabsContent value="users">
            <UsersTab />
          </TabsContent>
          <TabsContent value="merchants">
            <MerchantsTab />
          </TabsContent>
          <TabsContent value="subscriptions">
            <SubscriptionsTab />
          </TabsContent>
          <TabsContent value="receivables">
            <ReceivablesTab />
          </TabsContent>
          <TabsContent value="kyc">
            <KycTab />
          </TabsContent>
          <TabsContent value="vendors">
            <VendorsTab />
          </TabsContent>
          <TabsContent value="analytics">
            <AnalyticsTab />
          </TabsContent>
        </Tabs>
      </main>
    </div>
  );
}
