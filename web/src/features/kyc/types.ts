export const VERIFICATION_TYPES = ['identity_document', 'selfie', 'address'] as const;
export const DOCUMENT_TYPES = ['passport', 'driving_license', 'id_card'] as const;
export const DOCUMENT_COUNTRIES = ['US', 'CA', 'UK', 'DE', 'FR', 'AU'] as const;

export type VerificationType = (typeof VERIFICATION_TYPES)[number];
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export type DocumentCountry = (typeof DOCUMENT_COUNTRIES)[number];

export interface KycDocument {
  id: string;
  name: string;
  contentType: string;
  size: number;
}

/** GET /api/kyc/status item (spec §3). Fields are loose: an older or newer server may send other values. */
export interface KycVerification {
  id: string;
  submittedAt: string;
  status: string;
  verificationType?: string | null;
  documentType?: string | null;
  documentCountry?: string | null;
  riskScore?: number | null;
  errorMessage?: string | null;
  adminNotes?: string | null;
  documents?: KycDocument[];
}

export interface KycStatusResponse {
  verifications: KycVerification[];
}

export interface KycSubmission {
  verificationType: VerificationType | '';
  documentType: DocumentType | '';
  documentCountry: DocumentCountry | '';
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  documentNumber: string;
}
