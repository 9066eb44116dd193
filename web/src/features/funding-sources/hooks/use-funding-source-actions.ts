import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteFundingSourceRequest, fundingSourcesQuery, updateFundingSourceRequest, type FundingSource } from '../api';

/** Turns a source on or off for new bcards (PATCH isActive). */
export function useSetFundingSourceActive() {
  const qc = useQueryClient();
  const { queryKey } = fundingSourcesQuery();
  return useMutation({
    mutationFn: ({ id, isActive }: { id: string; isActive: boolean }) => updateFundingSourceRequest(id, { isActive }),
    onSuccess: (updated: FundingSource) => {
      qc.setQueryData(queryKey, (list) => list?.map((s) => (s.id === updated.id ? updated : s)));
      return qc.invalidateQueries({ queryKey });
    },
  });
}

/** Removes a source (409 funding_source_in_use while it backs an unexpired bcard). */
export function useRemoveFundingSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => deleteFundingSourceRequest(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: fundingSourcesQuery().queryKey }),
  });
}
