import { queryOptions } from '@tanstack/react-query';
import { apiRequest, ApiError } from '../../lib/api';
import type { KycStatusResponse, KycSubmission, KycVerification } from './types';

export const KYC_STATUS_QUERY_KEY = ['/api/kyc/status'] as const;

/** The signed-in user's verifications, newest first. */
export function kycStatusQuery() {
  return queryOptions({
    queryKey: KYC_STATUS_QUERY_KEY,
    queryFn: () => apiRequest<KycStatusResponse>('GET', '/api/kyc/status'),
  });
}

/**
 * Sends a multipart request with the session cookie. The shared apiRequest is JSON-only; this keeps its error
 * contract: a non-OK answer throws an ApiError whose message is `<status>: <body or status text>`. The browser
 * sets the multipart Content-Type with its boundary.
 */
export async function multipartRequest<T>(path: string, form: FormData): Promise<T> {
  const res = await fetch(path, { method: 'POST', credentials: 'include', headers: { accept: 'application/json' }, body: form });
  const text = await res.text();
  if (!res.ok) {
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    throw new ApiError(res.status, `${res.status}: ${text || res.statusText}`, body);
  }
  return (text ? JSON.parse(text) : null) as T;
}

/** The form the server expects (spec §3): one `documents` entry per file; an empty document number is left out. */
export function buildKycForm(values: KycSubmission, files: readonly File[]): FormData {
  const form = new FormData();
  form.append('verificationType', values.verificationType);
  form.append('documentType', values.documentType);
  form.append('documentCountry', values.documentCountry);
  form.append('firstName', values.firstName.trim());
  form.append('lastName', values.lastName.trim());
  form.append('dateOfBirth', values.dateOfBirth);
  if (values.documentNumber.trim()) form.append('documentNumber', values.documentNumber.trim());
  for (const f of files) form.append('documents', f, f.name);
  return form;
}

export const submitKycRequest = (values: KycSubmission, files: readonly File[]) =>
  multipartRequest<KycVerification>('/api/kyc/submit', buildKycForm(values, files));
