import { queryOptions } from '@tanstack/react-query';
import type { paths } from '@bpay/sdk/schema';
import { api, unwrap, type ApiAnswer, type ApiBody } from '../../lib/api';

/*
 * The funding-source calls. Every shape is read from the OpenAPI types the server's routes generate
 * (sdk/src/schema.d.ts), never written by hand: a renamed field breaks the web's typecheck.
 */

/** A linked card or bank account, as GET /api/funding-sources answers it (spec §3). */
export type FundingSource = ApiAnswer<'/api/funding-sources'>[number];
export type CardBrand = FundingSource['brand'];
/** POST /api/funding-sources answers 202 with this when the card needs 3-D Secure. */
export type RequiresAction = paths['/api/funding-sources']['post']['responses'][202]['content']['application/json'];
export type CreateFundingSourceBody = ApiBody<'/api/funding-sources'>;
export type UpdateFundingSourceBody = ApiBody<'/api/funding-sources/{id}', 'patch'>;
/** POST /api/funding-sources/bank-accounts. The account number goes to the processor and is never stored. */
export type CreateBankAccountBody = ApiBody<'/api/funding-sources/bank-accounts'>;
/** GET /api/funding-sources/bank-standing: what is owed for returned bank debits, and bank money still settling. */
export type BankStanding = ApiAnswer<'/api/funding-sources/bank-standing'>;

type Benefits = ApiAnswer<'/api/subscription/benefits'>;
/**
 * The plan facts the funding-source screens need, picked from GET /api/subscription/benefits (read by the dashboard,
 * which passes them in). maxFundingSources -1 means unlimited; unverified accounts must add cards in their own name.
 */
export type SourcePlan = Pick<Benefits, 'currentTier'> &
  Pick<Benefits['benefits'], 'maxFundingSources' | 'nameVerificationRequired' | 'isKycVerified'>;

export const FUNDING_SOURCES_QUERY_KEY = ['/api/funding-sources'] as const;

/** The signed-in user's linked cards. Not used in demo mode (sample sources replace it, spec §4). */
export function fundingSourcesQuery() {
  return queryOptions({
    queryKey: FUNDING_SOURCES_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/api/funding-sources')),
  });
}

/** 201 with the source, or 202 when the bank wants a 3-D Secure code first. */
export const createFundingSourceRequest = (body: CreateFundingSourceBody): Promise<FundingSource | RequiresAction> =>
  unwrap(api.POST('/api/funding-sources', { body }));

export const verifyFundingSourceRequest = (verificationId: string, code: string): Promise<FundingSource> =>
  unwrap(api.POST('/api/funding-sources/verifications/{id}', { params: { path: { id: verificationId } }, body: { code } }));

export const updateFundingSourceRequest = (id: string, body: UpdateFundingSourceBody): Promise<FundingSource> =>
  unwrap(api.PATCH('/api/funding-sources/{id}', { params: { path: { id } }, body }));

export const deleteFundingSourceRequest = (id: string) => unwrap(api.DELETE('/api/funding-sources/{id}', { params: { path: { id } } }));

export function isRequiresAction(answer: FundingSource | RequiresAction): answer is RequiresAction {
  return 'status' in answer && answer.status === 'requires_action';
}

/** 201 with the bank account, its micro-deposit verification pending. `idempotencyKey`: one per attempt. */
export const createBankAccountRequest = (body: CreateBankAccountBody, idempotencyKey: string): Promise<FundingSource> =>
  unwrap(api.POST('/api/funding-sources/bank-accounts', { body, params: { header: { 'idempotency-key': idempotencyKey } } }));

/** The two micro-deposit amounts, as typed ("0.32"). */
export const verifyMicrodepositsRequest = (id: string, amounts: [string, string]): Promise<FundingSource> =>
  unwrap(api.POST('/api/funding-sources/{id}/verify-microdeposits', { params: { path: { id } }, body: { amounts } }));

export const BANK_STANDING_QUERY_KEY = ['/api/funding-sources/bank-standing'] as const;

export function bankStandingQuery() {
  return queryOptions({
    queryKey: BANK_STANDING_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/api/funding-sources/bank-standing')),
  });
}
