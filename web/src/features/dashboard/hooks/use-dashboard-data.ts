import { useMemo } from 'react';
import { useDemoMode } from '../../demo-mode/demo-mode';
import { DEMO_FUNDING_SOURCES, demoTransactions } from '../demo-data';
import type { FundingSource, Transaction } from '../types';

interface DashboardData {
  fundingSources: readonly FundingSource[];
  transactions: readonly Transaction[];
  isDemo: boolean;
}

/**
 * What the dashboard lists. Demo mode swaps in the built-in samples (spec §4). Otherwise the lists are empty until
 * the funding-source and transaction APIs exist: no request is made for endpoints the server does not have yet.
 */
export function useDashboardData(): DashboardData {
  const { isDemoMode } = useDemoMode();
  return useMemo(
    () =>
      isDemoMode
        ? { fundingSources: DEMO_FUNDING_SOURCES, transactions: demoTransactions(new Date()), isDemo: true }
        : { fundingSources: [], transactions: [], isDemo: false },
    [isDemoMode],
  );
}
