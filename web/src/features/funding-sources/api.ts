import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../lib/api';
import type {
  BankStanding,
  CreateBankAccountBody,
  CreateFundingSourceBody,
  FundingSource,
  RequiresAction,
  UpdateFundingSourceBody,
} from './types';

export const FUNDING_SOURCES_QUERY_KEY = ['/api/funding-sources'] as const;

/** The signed-in user's linked cards. Not used in demo mode (sample sources replace it, spec §4). */
export function fundingSourcesQuery() {
  return queryOptions({
    queryKey: FUNDING_SOURCES_QUERY_KEY,
    queryFn: () => apiRequest<FundingSource[]>('GET', '/api/funding-sources'),
  });
}

/** 201 with the source, or 202 when the bank wants a 3-D Secure code first. */
export const createFundingSourceRequest = (body: CreateFundingSourceBody) =>
  apiRequest<FundingSource | RequiresAction>('POST', '/api/funding-sources', body);

export const verifyFundingSourceRequest = (verificationId: string, code: string) =>
  apiRequest<FundingSource>('POST', `/api/funding-sources/verifications/${encodeURIComponent(verificationId)}`, {
    code,
  });

export const updateFundingSourceRequest = (id: string, body: UpdateFundingSourceBody) =>
  apiRequest<FundingSource>('PATCH', `/api/funding-sources/${encodeURIComponent(id)}`, body);

export const deleteFundingSourceRequest = (id: string) =>
  apiRequest<{ id: string; deleted: true }>('DELETE', `/api/funding-sources/${encodeURIComponent(id)}`);

export function isRequiresAction(answer: FundingSource | RequiresAction): answer is RequiresAction {
  return 'status' in answer && answer.status === 'requires_action';
}

/** 201 with the bank account, its micro-deposit verification pending. */
export const createBankAccountRequest = (body: CreateBankAccountBody, idempotencyKey: string) =>
  apiRequest<FundingSource>('POST', '/api/funding-sources/bank-accounts', body, {}, { 'Idempotency-Key': idempotencyKey });

/** The two micro-deposit amounts, as typed ("0.32"). */
export const verifyMicrodepositsRequest = (id: string, amounts: [string, string]) =>
  apiRequest<FundingSource>('POST', `/api/funding-sources/${encodeURIComponent(id)}/verify-microdeposits`, { amounts });

export const BANK_STANDING_QUERY_KEY = ['/api/funding-sources/bank-standing'] as const;

export function bankStandingQuery() {
  return queryOptions({
    queryKey: BANK_STANDING_QUERY_KEY,
    queryFn: () => apiRequest<BankStanding>('GET', '/api/funding-sources/bank-standing'),
  });
}
