import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type ApiAnswer } from '../../lib/api';
import { formDataOf, multipart, type MultipartBody, type Parts } from '../../lib/api-multipart';
import type { ReadyKycSubmission } from './form';

/*
 * The identity-verification calls. Every shape is read from the OpenAPI types the server's routes generate
 * (sdk/src/schema.d.ts), never written by hand: a renamed field breaks the web's typecheck.
 */

/** A verification as GET /api/kyc/status lists it (spec §3), newest first. */
export type KycVerification = ApiAnswer<'/api/kyc/status'>['verifications'][number];
/** POST /api/kyc/submit's multipart fields (its `documents` are the files). */
export type KycSubmitBody = MultipartBody<'/api/kyc/submit'>;

export const KYC_STATUS_QUERY_KEY = ['/api/kyc/status'] as const;

/** The signed-in user's verifications, newest first. */
export function kycStatusQuery() {
  return queryOptions({
    queryKey: KYC_STATUS_QUERY_KEY,
    queryFn: () => unwrap(api.GET('/api/kyc/status')),
  });
}

/** The parts the server expects (spec §3): one `documents` entry per file; an empty document number is left out. */
export function kycParts(values: ReadyKycSubmission, files: readonly File[]): Parts<KycSubmitBody> {
  const documentNumber = values.documentNumber.trim();
  return {
    verificationType: values.verificationType,
    documentType: values.documentType,
    documentCountry: values.documentCountry,
    firstName: values.firstName.trim(),
    lastName: values.lastName.trim(),
    dateOfBirth: values.dateOfBirth,
    ...(documentNumber ? { documentNumber } : {}),
    documents: files,
  };
}

/** The form as it is sent. */
export const buildKycForm = (values: ReadyKycSubmission, files: readonly File[]): FormData => formDataOf(kycParts(values, files));

/**
 * Sends the verification with the session cookie, as multipart/form-data (the browser sets the boundary). A non-OK
 * answer throws an ApiError whose message is `<status>: <body or status text>`.
 */
export const submitKycRequest = (values: ReadyKycSubmission, files: readonly File[]): Promise<KycVerification> =>
  unwrap(api.POST('/api/kyc/submit', multipart<KycSubmitBody>(kycParts(values, files))));
