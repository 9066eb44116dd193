import { useQuery } from '@tanstack/react-query';
import { AlertTriangle, FlaskConical, Landmark, Plus, Wallet } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { EmptyState, ListState, listStatus, LoadError } from '../../../components/ui/list-state';
import { useT } from '../../../i18n';
import { bankStandingQuery, type BankStanding, type FundingSource, type SourcePlan } from '../api';
import { canStartIdVerification, isAtLimit, planName } from '../plan-limit';
import { FundingSourceCard } from './funding-source-card';
import { IdVerificationRewards } from './id-verification-rewards';
import { PlanLimitBanner } from './plan-limit-banner';

/**
 * The bank-account dialog loads when it is first opened, and what is owed (with Repay, issue 26) when something is:
 * the dashboard's first paint stays in budget. Both come from one chunk (./on-demand).
 */
const AddBankAccountDialog = lazy(() => import('./on-demand').then((m) => ({ default: m.AddBankAccountDialog })));
const OwedDetails = lazy(() => import('./on-demand').then((m) => ({ default: m.OwedDetails })));
const OwedToYou = lazy(() => import('./on-demand').then((m) => ({ default: m.OwedToYou })));

/**
 * The Funding Sources tab's content: the plan banner, the Add Source button (reading 'Limit Reached' at the plan's
 * limit), the cards, and on the Free plan the ID Verification Rewards card. In demo mode the sample sources are
 * shown read-only and adding one only simulates.
 */
export function FundingSourcesPanel({
  sources,
  isLoading,
  error,
  onRetry,
  isDemo,
  plan,
  onAdd,
}: {
  sources: readonly FundingSource[];
  isLoading: boolean;
  error: unknown;
  onRetry(): void;
  isDemo: boolean;
  plan: SourcePlan | undefined;
  onAdd(): void;
}) {
  const t = useT();
  const atLimit = !isDemo && isAtLimit(plan, sources.length);
  const [addingBank, setAddingBank] = useState(false);
  const standing = useQuery({ ...bankStandingQuery(), enabled: !isDemo });

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
        <div className="flex flex-col gap-1">
          <h2 className="text-lg font-semibold text-slate-900">{t('fundingSources.title')}</h2>
          <p className="text-sm text-slate-500">{t('fundingSources.description')}</p>
        </div>
        <div className="flex shrink-0 flex-wrap gap-2">
          <Button onClick={onAdd} disabled={atLimit || isLoading} data-testid="add-source-button" className="shrink-0">
            <Plus className="h-4 w-4" aria-hidden />
            {atLimit ? t('fundingSources.limitReached') : t('fundingSources.addSource')}
          </Button>
          {!isDemo && (
            <Button
              variant="outline"
              onClick={() => setAddingBank(true)}
              disabled={atLimit || isLoading}
              data-testid="add-bank-button"
              className="shrink-0"
            >
              <Landmark className="h-4 w-4" aria-hidden />
              {t('fundingSources.bank.addButton')}
            </Button>
          )}
        </div>
      </div>
      {standing.data && <BankStandingBanner standing={standing.data} />}
      {standing.data && standing.data.owedToYou !== '0.00' && (
        <Suspense fallback={null}>
          <OwedToYou />
        </Suspense>
      )}
      <PlanLimitBanner plan={plan} count={sources.length} isDemo={isDemo} />
      {isDemo && (
        <p className="flex items-start gap-2 text-sm text-amber-800" data-testid="funding-sources-demo-note">
          <FlaskConical className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
          {t('fundingSources.demoNote')}
        </p>
      )}
      <ListState
        status={listStatus({ isLoading, error, total: sources.length })}
        error={<LoadError message={t('fundingSources.loadFailed')} error={error} onRetry={onRetry} />}
        empty={
          <EmptyState
            icon={<Wallet className="h-6 w-6" />}
            title={t('fundingSources.empty')}
            description={t('fundingSources.emptyBody')}
            testId="funding-sources-empty"
          />
        }
      >
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label={t('fundingSources.title')}>
          {sources.map((s) => (
            <li key={s.id}>
              <FundingSourceCard source={s} isDemo={isDemo} />
            </li>
          ))}
        </ul>
      </ListState>
      {!isDemo && addingBank && (
        <Suspense fallback={null}>
          <AddBankAccountDialog open={addingBank} onOpenChange={setAddingBank} />
        </Suspense>
      )}
      {plan && planName(plan.currentTier) === 'free' && (
        <IdVerificationRewards
          verified={plan.isKycVerified}
          showStart={!isDemo && canStartIdVerification(plan, sources.length)}
        />
      )}
    </div>
  );
}

/** Shown only when a returned bank debit left money owed: bcards are restricted until it is repaid. */
function BankStandingBanner({ standing }: { standing: BankStanding }) {
  const t = useT();
  if (!standing.restricted) return null;
  const last = standing.returnedDebits[0];
  return (
    <div className="flex items-start gap-3 rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-800" role="alert" data-testid="bank-owed">
      <AlertTriangle className="mt-0.5 h-5 w-5 shrink-0" aria-hidden />
      <div className="min-w-0 flex-1 space-y-1">
        <p className="font-semibold">{t('fundingSources.bank.owed.title', { amount: standing.owed })}</p>
        <Suspense
          fallback={
            <p>
              {last
                ? t('fundingSources.bank.owed.body', { name: last.bcardName, code: last.returnCode, message: last.returnMessage })
                : t('fundingSources.bank.owed.bodyGeneric')}
            </p>
          }
        >
          <OwedDetails />
        </Suspense>
      </div>
    </div>
  );
}
