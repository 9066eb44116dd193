import { FundingSourcesPanel } from '../../funding-sources/components/funding-sources-panel';
import type { FundingSource, SourcePlan } from '../../funding-sources/api';

/** Funding Sources: the linked cards (the samples in demo mode), the plan's limit and, on Free, the ID reward. */
export function FundingSourcesTab({
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
  return (
    <FundingSourcesPanel
      sources={sources}
      isLoading={isLoading}
      error={error}
      onRetry={onRetry}
      isDemo={isDemo}
      plan={plan}
      onAdd={onAdd}
    />
  );
}
