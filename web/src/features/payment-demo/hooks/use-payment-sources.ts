import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { DEFAULT_FEE_PERCENTAGE, sampleSplitOptions, type SplitSourceOption } from '../../../components/split-configurator';
import { useAuth } from '../../auth/auth-context';
import { useDemoMode } from '../../demo-mode/demo-mode';
import { benefitsQuery, fundingSourcesQuery } from '../api';

export interface PaymentSources {
  /** The session is still being read: who pays is not known yet. */
  authLoading: boolean;
  signedIn: boolean;
  demoMode: boolean;
  /** A signed-in consumer outside demo mode: their own sources, their plan's fee, real money in the success scenario. */
  own: boolean;
  sources: readonly SplitSourceOption[];
  sourcesLoading: boolean;
  sourcesError: boolean;
  /** Sample sources are checked against their sample balances; a consumer's own are checked by the server. */
  checkAvailable: boolean;
  feePercentage: number;
  /** Until the plan's fee is known, a fixed split cannot be checked against the server's total. */
  feeLoading: boolean;
  cardholderName: string | null;
}

/**
 * Spec §6: signed-in consumers load their own funding sources and plan benefits; signed-out visitors and demo mode
 * use the built-in sample sources (and the default 2.9 % fee) and make no request. A signed-in admin account is a
 * consumer account like any other here (the admin panel's own token is not a session and counts as signed out).
 */
export function usePaymentSources(): PaymentSources {
  const { user, isLoading: authLoading } = useAuth();
  const { isDemoMode } = useDemoMode();
  const own = !!user && !isDemoMode;
  const benefits = useQuery({ ...benefitsQuery(), enabled: own });
  const fundingSources = useQuery({ ...fundingSourcesQuery(), enabled: own });
  const samples = useMemo(() => sampleSplitOptions(), []);
  const ownSources = useMemo<SplitSourceOption[]>(
    () =>
      (fundingSources.data ?? [])
        .filter((s) => s.isActive)
        .map((s) => ({
          id: s.id,
          name: s.name,
          last4: s.last4,
          brand: s.brand,
          available: s.balance,
          defaultPercentage: s.defaultSplitPercentage,
        })),
    [fundingSources.data],
  );
  const name = user ? [user.firstName, user.lastName].filter(Boolean).join(' ').trim() : '';

  return {
    authLoading,
    signedIn: !!user,
    demoMode: isDemoMode,
    own,
    sources: own ? ownSources : samples,
    sourcesLoading: own && fundingSources.isLoading,
    sourcesError: own && fundingSources.isError,
    checkAvailable: !own,
    feePercentage: own ? (benefits.data?.benefits?.feePercentage ?? DEFAULT_FEE_PERCENTAGE) : DEFAULT_FEE_PERCENTAGE,
    feeLoading: own && benefits.isLoading,
    cardholderName: name || null,
  };
}
