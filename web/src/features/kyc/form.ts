import type { KycSubmitBody } from './api';

/*
 * The wizard's form: its choices are the values POST /api/kyc/submit documents (read from the schema), and its
 * state holds '' for a choice not made yet.
 */

export type VerificationType = KycSubmitBody['verificationType'];
export type DocumentType = KycSubmitBody['documentType'];
export type DocumentCountry = KycSubmitBody['documentCountry'];

export const VERIFICATION_TYPES = ['identity_document', 'selfie', 'address'] as const satisfies readonly VerificationType[];
export const DOCUMENT_TYPES = ['passport', 'driving_license', 'id_card'] as const satisfies readonly DocumentType[];
export const DOCUMENT_COUNTRIES = ['US', 'CA', 'UK', 'DE', 'FR', 'AU'] as const satisfies readonly DocumentCountry[];

/* Each list offers every value the server takes: a value added to the API's enum breaks the typecheck until it is. */
type Unlisted<All, Listed extends readonly unknown[]> = Exclude<All, Listed[number]>;
const everyValueOffered: [
  Unlisted<VerificationType, typeof VERIFICATION_TYPES>,
  Unlisted<DocumentType, typeof DOCUMENT_TYPES>,
  Unlisted<DocumentCountry, typeof DOCUMENT_COUNTRIES>,
] extends [never, never, never]
  ? true
  : false = true;
void everyValueOffered;

/** The wizard's state. */
export interface KycSubmission {
  verificationType: VerificationType | '';
  documentType: DocumentType | '';
  documentCountry: DocumentCountry | '';
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  documentNumber: string;
}

/** The state once step 1 is done: every choice made, as the server takes it. */
export type ReadyKycSubmission = KycSubmission & Pick<KycSubmitBody, 'verificationType' | 'documentType' | 'documentCountry'>;
