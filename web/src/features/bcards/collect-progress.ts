/*
 * What the Create bcard dialog shows while the split is collected (issue 16): each share with the status the server
 * has recorded for it, read from GET /api/virtual-cards/collection-progress. Nothing here guesses ahead: a share the
 * server has not reported on yet is 'waiting'.
 */
import type { ApiAnswer } from '../../lib/api';

export type ShareProgress = 'waiting' | 'held' | 'captured' | 'declined' | 'released' | 'refunded';
export type CollectStage = 'sending' | 'holding' | 'capturing' | 'completed' | 'failed';

export interface PlannedShare {
  sourceId: string;
  name: string;
  last4: string;
  cents: number;
}

type Answer = ApiAnswer<'/api/virtual-cards/collection-progress'>;

/** The part of the server's collection-progress answer this reads (the schema's fields, so a rename breaks here). */
export interface ProgressAnswer {
  stage: Answer['stage'];
  shares: ReadonlyArray<Pick<Answer['shares'][number], 'fundingSourceId' | 'status'>>;
}

/** A share's status at the server, as the dialog names it; one it does not know reads as waiting. */
export function shareProgress(status: string | undefined): ShareProgress {
  switch (status) {
    case 'held':
    case 'captured':
    case 'declined':
    case 'refunded':
      return status;
    case 'voided':
      return 'released';
    default:
      return 'waiting';
  }
}

/** The planned shares, each with the server's status for it, and the stage (not started yet reads as sending). */
export function mergeProgress(
  planned: readonly PlannedShare[],
  answer: ProgressAnswer | undefined,
): { stage: CollectStage; shares: Array<PlannedShare & { progress: ShareProgress }> } {
  const byId = new Map((answer?.shares ?? []).map((s) => [s.fundingSourceId, s.status]));
  const stage: CollectStage = !answer || answer.stage === 'not_started' ? 'sending' : answer.stage;
  return { stage, shares: planned.map((s) => ({ ...s, progress: shareProgress(byId.get(s.sourceId)) })) };
}
