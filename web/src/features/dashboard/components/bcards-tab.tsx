import { BcardsPanel } from '../../bcards/components/bcards-panel';
import type { Bcard } from '../../bcards/api';

/** bcards: the grid of cards and the tile that opens Create bcard (the sample card in demo mode). */
export function BcardsTab({
  bcards,
  isLoading,
  error,
  onRetry,
  isDemo,
  onCreate,
  onMoneyMoved,
}: {
  bcards: readonly Bcard[];
  isLoading: boolean;
  error: unknown;
  onRetry(): void;
  isDemo: boolean;
  onCreate(): void;
  onMoneyMoved(): void;
}) {
  return (
    <BcardsPanel
      bcards={bcards}
      isLoading={isLoading}
      error={error}
      onRetry={onRetry}
      isDemo={isDemo}
      onCreate={onCreate}
      onMoneyMoved={onMoneyMoved}
    />
  );
}
