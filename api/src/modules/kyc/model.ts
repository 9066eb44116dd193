import { t } from 'elysia';
import {
  KYC_CONTENT_TYPES,
  KYC_COUNTRIES,
  KYC_DOCUMENT_TYPES,
  KYC_VERIFICATION_STATUSES,
  KYC_VERIFICATION_TYPES,
} from '@bpay/db/schema';

export const KycDocumentModel = t.Object({
  id: t.String(),
  name: t.String({ description: "The uploaded file name, sanitised, with the detected type's extension." }),
  contentType: t.UnionEnum(KYC_CONTENT_TYPES, { description: 'Detected from the file content.' }),
  size: t.Integer({ description: 'Bytes.' }),
});

export const KycVerificationModel = t.Object(
  {
    id: t.String(),
    submittedAt: t.String({ format: 'date-time' }),
    status: t.UnionEnum(KYC_VERIFICATION_STATUSES),
    verificationType: t.UnionEnum(KYC_VERIFICATION_TYPES),
    documentType: t.UnionEnum(KYC_DOCUMENT_TYPES),
    documentCountry: t.UnionEnum(KYC_COUNTRIES),
    riskScore: t.Union([t.Integer({ minimum: 0, maximum: 100 }), t.Null()]),
    errorMessage: t.Union([t.String(), t.Null()]),
    adminNotes: t.Union([t.String(), t.Null()]),
    documents: t.Array(KycDocumentModel),
  },
  { $id: '#/components/schemas/KycVerification' },
);

export const KycStatusModel = t.Object({ verifications: t.Array(KycVerificationModel) });

/** For the OpenAPI document only: the body is read by the handler itself (see routes.ts). */
export const KYC_SUBMIT_REQUEST_BODY = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['verificationType', 'documentType', 'documentCountry', 'firstName', 'lastName', 'dateOfBirth', 'documents'],
        properties: {
          verificationType: { type: 'string', enum: [...KYC_VERIFICATION_TYPES] },
          documentType: { type: 'string', enum: [...KYC_DOCUMENT_TYPES] },
          documentCountry: { type: 'string', enum: [...KYC_COUNTRIES] },
          firstName: { type: 'string', minLength: 1, maxLength: 100 },
          lastName: { type: 'string', minLength: 1, maxLength: 100 },
          dateOfBirth: { type: 'string', format: 'date', description: 'YYYY-MM-DD; the applicant must be 18 or older.' },
          documentNumber: { type: 'string', maxLength: 50, description: 'Optional. Stored encrypted.' },
          documents: {
            type: 'array',
            minItems: 1,
            maxItems: 5,
            items: { type: 'string', format: 'binary' },
            description:
              'One entry per file: JPEG, PNG or PDF (checked by content; a name extension or part Content-Type naming another type is refused), at most 10 MB each.',
          },
        },
      },
      example: {
        verificationType: 'identity_document',
        documentType: 'passport',
        documentCountry: 'US',
        firstName: 'Ada',
        lastName: 'Lovelace',
        dateOfBirth: '1990-12-10',
        documents: ['(binary: passport.png)'],
      },
    },
  },
};
