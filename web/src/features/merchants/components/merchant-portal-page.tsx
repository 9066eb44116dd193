import { useQuery } from '@tanstack/react-query';
import { Activity, BarChart3, BookOpen, Code2, DollarSign, LayoutDashboard, Receipt, Users } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { Badge } from '../../../components/ui/badge';
import { buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useT } from '../../../i18n';
import { merchantsQuery } from '../api';
import { SAMPLE_PUBLISHABLE_KEY, widgetSnippet } from '../snippets';
import { CodeBlock } from './code-block';
import { CopyButton } from './copy-button';
import { BackHomeLink, MerchantShell } from './page-shell';

/** The portal's figures are hard-coded samples (spec §2), and the page says so. */
const SAMPLE_STATS = [
  { key: 'totalSales', value: '$45,231.89', change: '+20.1%', icon: <DollarSign className="h-4 w-4" /> },
  { key: 'transactions', value: '2,350', change: '+180.1%', icon: <Activity className="h-4 w-4" /> },
  { key: 'adoption', value: '12.5%', change: '+4.3%', icon: <BarChart3 className="h-4 w-4" /> },
  { key: 'activeUsers', value: '573', change: '+201', icon: <Users className="h-4 w-4" /> },
] as const;

const statLabel = {
  totalSales: 'merchants.portal.stats.totalSales',
  transactions: 'merchants.portal.stats.transactions',
  adoption: 'merchants.portal.stats.adoption',
  activeUsers: 'merchants.portal.stats.activeUsers',
} as const;

function StatCard({ label, value, change, icon }: { label: string; value: string; change: string; icon: ReactNode }) {
  const t = useT();
  return (
    <Card data-testid="portal-stat">
      <div className="flex items-center justify-between p-6 pb-2">
        <p className="text-sm font-medium text-slate-600">{label}</p>
        <span className="text-slate-400" aria-hidden>
          {icon}
        </span>
      </div>
      <CardContent>
        <p className="text-2xl font-bold tabular-nums" dir="ltr">
          {value}
        </p>
        <p className="text-xs text-slate-500">{t('merchants.portal.stats.change', { change: `\u2066${change}\u2069` })}</p>
      </CardContent>
    </Card>
  );
}

/** /merchant-portal (spec §2): sample figures, the integration code, the API key and an empty transaction list. */
export function MerchantPortalPage() {
  const t = useT();
  const merchants = useQuery(merchantsQuery());
  const first = merchants.data?.[0];
  const publishableKey = first?.apiKey ?? SAMPLE_PUBLISHABLE_KEY;
  const origin = window.location.origin;
  const snippet = widgetSnippet(origin, publishableKey);

  return (
    <MerchantShell
      actions={
        <Link href="/merchant-dashboard" className={buttonClasses('outline', 'sm')} data-testid="portal-open-dashboard">
          <LayoutDashboard className="h-4 w-4" aria-hidden />
          <span className="hidden sm:inline">{t('merchants.portal.openDashboard')}</span>
        </Link>
      }
    >
      <BackHomeLink />
      <div className="mb-8 space-y-1">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">{t('merchants.portal.title')}</h1>
        <p className="text-sm text-slate-500">{t('merchants.portal.subtitle')}</p>
      </div>

      <section aria-labelledby="portal-stats-heading" className="mb-8">
        <div className="mb-3 flex items-center gap-2">
          <h2 id="portal-stats-heading" className="text-lg font-semibold text-slate-900">
            {t('merchants.portal.stats.title')}
          </h2>
          <Badge tone="yellow" data-testid="portal-sample-badge">
            {t('merchants.portal.stats.sample')}
          </Badge>
        </div>
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {SAMPLE_STATS.map((s) => (
            <StatCard key={s.key} label={t(statLabel[s.key])} value={s.value} change={s.change} icon={s.icon} />
          ))}
        </div>
      </section>

      <div className="mb-8 grid gap-6 lg:grid-cols-2">
        <Card data-testid="portal-integration">
          <CardHeader>
            <CardTitle className="flex items-center gap-2">
              <Code2 className="h-5 w-5 text-brand-600" aria-hidden />
              {t('merchants.portal.integration.title')}
            </CardTitle>
            <CardDescription>{t('merchants.portal.integration.description')}</CardDescription>
          </CardHeader>
          <CardContent className="space-y-4">
            <h3 className="text-sm font-semibold text-slate-900">{t('merchants.portal.integration.widget')}</h3>
            <p className="text-sm text-slate-600">{t('merchants.portal.integration.widgetBody')}</p>
            <pre
              className="max-h-56 overflow-auto rounded-lg bg-slate-900 p-4 text-left text-xs leading-relaxed text-slate-100"
              dir="ltr"
              data-testid="portal-widget-snippet"
            >
              <code>{snippet}</code>
            </pre>
            <CopyButton
              text={snippet}
              label={t('merchants.portal.integration.codeLabel')}
              variant="primary"
              size="md"
              testId="portal-get-code"
            >
              {t('merchants.portal.integration.getCode')}
            </CopyButton>
          </CardContent>
        </Card>

        <Card data-testid="portal-api">
          <CardHeader>
            <CardTitle className="flex items-center gap-2">
              <BookOpen className="h-5 w-5 text-brand-600" aria-hidden />
              {t('merchants.portal.api.title')}
            </CardTitle>
            <CardDescription>{t('merchants.portal.api.description')}</CardDescription>
          </CardHeader>
          <CardContent className="space-y-4">
            <div className="space-y-1.5">
              <p className="text-sm font-medium text-slate-700">
                {first ? t('merchants.portal.api.yourKey') : t('merchants.portal.api.sampleKey')}
              </p>
              <div className="flex items-center gap-2">
                <code
                  className="min-w-0 flex-1 break-all rounded-md border border-slate-200 bg-slate-50 px-3 py-2 font-mono text-sm"
                  dir="ltr"
                  data-testid="portal-api-key"
                >
                  {publishableKey}
                </code>
                <CopyButton text={publishableKey} label={t('merchants.keys.publishable')} testId="portal-api-key-copy" />
              </div>
              {!first && <p className="text-xs text-slate-500">{t('merchants.portal.api.sampleHint')}</p>}
            </div>
            <div className="space-y-2">
              <CodeBlock
                code={`POST ${origin}/api/v1/payment_intents\nAuthorization: Bearer sk_…`}
                label={t('merchants.portal.api.endpointLabel')}
                testId="portal-api-endpoint"
              />
            </div>
            <a
              href="/swagger"
              target="_blank"
              rel="noopener noreferrer"
              className={buttonClasses('outline')}
              data-testid="portal-view-docs"
            >
              <BookOpen className="h-4 w-4" aria-hidden />
              {t('merchants.portal.api.viewDocs')}
            </a>
          </CardContent>
        </Card>
      </div>

      <Card>
        <CardHeader>
          <CardTitle>{t('merchants.portal.recent.title')}</CardTitle>
          <CardDescription>{t('merchants.portal.recent.description')}</CardDescription>
        </CardHeader>
        <CardContent>
          <div
            className="flex flex-col items-center justify-center rounded-xl border border-dashed border-slate-300 px-6 py-12 text-center"
            data-testid="portal-transactions-empty"
          >
            <span className="mb-4 flex h-12 w-12 items-center justify-center rounded-full bg-brand-50 text-brand-600" aria-hidden>
              <Receipt className="h-6 w-6" />
            </span>
            <p className="text-base font-semibold text-slate-900">{t('merchants.portal.recent.empty')}</p>
            <p className="mt-1 max-w-sm text-sm text-slate-500">{t('merchants.portal.recent.emptyBody')}</p>
          </div>
        </CardContent>
      </Card>
    </MerchantShell>
  );
}
