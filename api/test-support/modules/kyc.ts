import { call, type TestContext } from '../app';

/** The first bytes of a PNG: enough for the content check (magic bytes), small enough for any test. */
export const TEST_PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]);

/** A KYC submission as the wizard sends it: a passport scan for Ada Lovelace, born 1990. */
export function kycForm(): FormData {
  const fd = new FormData();
  const fields = {
    verificationType: 'identity_document',
    documentType: 'passport',
    documentCountry: 'UK',
    firstName: 'Ada',
    lastName: 'Lovelace',
    dateOfBirth: '1990-12-10',
    documentNumber: 'P1234567',
  };
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('documents', new File([TEST_PNG], 'passport.png', { type: 'image/png' }));
  return fd;
}

/** Submits kycForm() for the user behind `cookie`; answers the verification's id. */
export async function submitKyc(ctx: TestContext, cookie: string): Promise<string> {
  const res = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie, rawBody: kycForm() });
  if (res.status !== 201) throw new Error(`KYC submission failed: ${res.status} ${res.text}`);
  return res.body.id;
}
