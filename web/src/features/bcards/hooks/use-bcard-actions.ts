import { useMutation, useQueryClient } from '@tanstack/react-query';
import { bcardsQuery, cancelBcardRequest, checkoutDetailsRequest, type Bcard } from '../api';

/** Cancels a bcard; the money goes back to its sources (the caller refreshes balances and transactions). */
export function useCancelBcard() {
  const qc = useQueryClient();
  const { queryKey } = bcardsQuery();
  return useMutation({
    mutationFn: (id: string) => cancelBcardRequest(id),
    onSuccess: (updated: Bcard) => {
      qc.setQueryData(queryKey, (list) => list?.map((b) => (b.id === updated.id ? updated : b)));
      return qc.invalidateQueries({ queryKey });
    },
  });
}

/**
 * Reveals the full card details. A mutation, not a query: every reveal is recorded by the server, and the number
 * and CVV must not sit in the query cache; the dialog drops them (reset) when it closes.
 */
export function useRevealBcard() {
  return useMutation({ mutationFn: (id: string) => checkoutDetailsRequest(id) });
}
