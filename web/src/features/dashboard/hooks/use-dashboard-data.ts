import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { bcardsQuery, type Bcard } from '../../bcards/api';
import { useDemoMode } from '../../demo-mode/demo-mode';
import { fundingSourcesQuery, type FundingSource, type SourcePlan } from '../../funding-sources/api';
import { TRANSACTIONS_QUERY_KEY } from '../../transactions/api';
import { benefitsQuery } from '../api';
import { DEMO_FUNDING_SOURCES, demoBcards } from '../demo-data';

interface ListState<T> {
  data: readonly T[];
  isLoading: boolean;
  error: unknown;
  refetch(): void;
}

const demoList = <T,>(data: readonly T[]): ListState<T> => ({ data, isLoading: false, error: null, refetch: () => {} });

/**
 * What the money tabs share: funding sources, bcards and the plan. Demo mode swaps in the built-in samples
 * (spec §4) and makes no request for them; transactions are read by the tabs that list them.
 */
export function useDashboardData() {
  const { isDemoMode } = useDemoMode();
  const benefits = useQuery(benefitsQuery());
  const sources = useQuery({ ...fundingSourcesQuery(), enabled: !isDemoMode });
  const bcards = useQuery({ ...bcardsQuery(), enabled: !isDemoMode });
  const demoCards = useMemo(() => (isDemoMode ? demoBcards(new Date()) : []), [isDemoMode]);

  const b = benefits.data?.benefits;
  const plan: SourcePlan | undefined = useMemo(
    () =>
      benefits.data && b
        ? {
            currentTier: benefits.data.currentTier,
            maxFundingSources: b.maxFundingSources,
            nameVerificationRequired: b.nameVerificationRequired,
            isKycVerified: b.isKycVerified,
          }
        : undefined,
    [benefits.data, b],
  );

  const fundingSources: ListState<FundingSource> = isDemoMode
    ? demoList(DEMO_FUNDING_SOURCES)
    : { data: sources.data ?? [], isLoading: sources.isLoading, error: sources.error, refetch: () => void sources.refetch() };
  const bcardList: ListState<Bcard> = isDemoMode
    ? demoList(demoCards)
    : { data: bcards.data ?? [], isLoading: bcards.isLoading, error: bcards.error, refetch: () => void bcards.refetch() };

  return {
    isDemo: isDemoMode,
    plan,
    feePercentage: b?.feePercentage,
    fundingSources,
    bcards: bcardList,
  };
}

/** After a bcard is created or canceled: balances, bcards and the transaction history have changed. */
export function useRefreshMoney(): () => void {
  const qc = useQueryClient();
  return useCallback(() => {
    void qc.invalidateQueries({ queryKey: fundingSourcesQuery().queryKey });
    void qc.invalidateQueries({ queryKey: bcardsQuery().queryKey });
    void qc.invalidateQueries({ queryKey: TRANSACTIONS_QUERY_KEY });
  }, [qc]);
}
