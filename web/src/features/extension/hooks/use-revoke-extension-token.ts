import { useMutation, useQueryClient } from '@tanstack/react-query';
import { extensionTokensQuery, revokeExtensionTokenRequest } from '../api';

/** Disconnects a browser; the list drops it at once and is then read again through its query's key. */
export function useRevokeExtensionToken() {
  const qc = useQueryClient();
  const { queryKey } = extensionTokensQuery();
  return useMutation({
    mutationFn: (id: string) => revokeExtensionTokenRequest(id),
    onSuccess: (_answer, id) => {
      qc.setQueryData(queryKey, (list) => list?.filter((token) => token.id !== id));
      return qc.invalidateQueries({ queryKey });
    },
  });
}
