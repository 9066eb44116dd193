import { expect, test, type Page } from '@playwright/test';

/*
 * /kyc-verification in Chromium: the wizard's guards and progress, a real multipart upload of a PNG made here,
 * the step-4 confirmation with its toasts, and the status view ('Pending Review'). Admin review and the
 * verified view are covered by the admin e2e and the API tests (applyKycDecision).
 */

const toast = (page: Page) => page.getByTestId('toast').last();

/** A valid 1×1 PNG, built byte by byte (signature, IHDR, IDAT, IEND). */
function tinyPng(): Buffer {
  return Buffer.from(
    '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
      '1f15c4890000000d49444154789c636000010000050001' +
      '0d0a2db40000000049454e44ae426082',
    'hex',
  );
}

async function registerAndOpen(page: Page) {
  const email = `kyc-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  await page.goto('/kyc-verification');
}

test('signed out: /kyc-verification asks to sign in', async ({ page }) => {
  await page.goto('/kyc-verification');
  await expect(page.getByTestId('kyc-wizard')).toHaveCount(0);
  await expect(page.getByTestId('access-required')).toBeVisible();
  await expect(page.getByTestId('access-sign-in')).toHaveAttribute('href', '/auth?next=%2Fkyc-verification');
  // It says what the page is for, not the merchant pages' text.
  await expect(page.getByTestId('access-required-body')).toHaveText('Please sign in to verify your identity.');
});

test('a consumer submits a PNG through the wizard and sees Pending Review', async ({ page }) => {
  await registerAndOpen(page);
  const wizard = page.getByTestId('kyc-wizard');
  await expect(wizard).toBeVisible();
  await expect(page.getByTestId('kyc-step')).toHaveText('Step 1 of 3');
  await expect(page.getByTestId('kyc-progress')).toContainText('33%');

  // Step 1: Continue waits for all three choices.
  const cont = page.getByTestId('kyc-continue');
  await expect(cont).toBeDisabled();
  await page.getByTestId('kyc-verification-type').selectOption('identity_document');
  await page.getByTestId('kyc-document-type').selectOption('passport');
  await expect(cont).toBeDisabled();
  await page.getByTestId('kyc-document-country').selectOption('UK');
  await cont.click();

  // Step 2: first, last name and date of birth; the number is optional. Back keeps what was chosen.
  await expect(page.getByTestId('kyc-step')).toHaveText('Step 2 of 3');
  await expect(page.getByTestId('kyc-progress')).toContainText('67%');
  await page.getByTestId('kyc-first-name').fill('Ada');
  await page.getByTestId('kyc-last-name').fill('Lovelace');
  await expect(page.getByTestId('kyc-continue')).toBeDisabled();
  await page.getByTestId('kyc-dob').fill('1990-12-10');
  await page.getByTestId('kyc-back').click();
  await expect(page.getByTestId('kyc-document-country')).toHaveValue('UK');
  await page.getByTestId('kyc-continue').click();
  await expect(page.getByTestId('kyc-first-name')).toHaveValue('Ada');
  await page.getByTestId('kyc-document-number').fill('P1234567');
  await page.getByTestId('kyc-continue').click();

  // Step 3: submit waits for a file; the list shows its name and size in MB.
  await expect(page.getByTestId('kyc-step')).toHaveText('Step 3 of 3');
  await expect(page.getByTestId('kyc-progress')).toContainText('100%');
  await expect(page.getByText('Accepted formats: JPG, JPEG, PNG, PDF. Max 10MB each.')).toBeVisible();
  const submit = page.getByTestId('kyc-submit');
  await expect(submit).toBeDisabled();
  await page.getByTestId('kyc-files').setInputFiles({ name: 'passport.png', mimeType: 'image/png', buffer: tinyPng() });
  await expect(page.getByTestId('kyc-file-list')).toContainText('passport.png');
  await expect(page.getByTestId('kyc-file-list')).toContainText('0.00 MB');
  await expect(submit).toBeEnabled();
  await submit.click();

  // Step 4: the confirmation and the toasts.
  await expect(page.getByTestId('kyc-step-4')).toBeVisible();
  await expect(toast(page)).toContainText('KYC verification submitted successfully');
  await expect(toast(page)).toContainText('Your documents are being reviewed');
  await expect(page.getByTestId('kyc-back-dashboard')).toHaveAttribute('href', '/');

  // The status view, now and after a reload.
  await page.getByTestId('kyc-view-status').click();
  await expect(page.getByTestId('kyc-status-badge')).toHaveText('Pending Review');
  await expect(page.getByTestId('kyc-verification-type')).toHaveText('Identity document');
  await expect(page.getByTestId('kyc-document-type')).toHaveText('Passport');
  await expect(page.getByTestId('kyc-risk')).toHaveCount(0);
  await expect(page.getByTestId('kyc-submit-new')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('kyc-status-badge')).toHaveText('Pending Review');

  // The uploaded document is readable by its owner, as a PNG.
  const status = await page.request.get('/api/kyc/status');
  const doc = (await status.json()).verifications[0].documents[0];
  const file = await page.request.get(`/api/kyc/documents/${doc.id}`);
  expect(file.status()).toBe(200);
  expect(file.headers()['content-type']).toBe('image/png');
  expect(file.headers()['content-disposition']).toMatch(/^attachment; filename="passport\.png"/);
});

test('a file that is not really a PNG is refused with a destructive toast and the wizard stays on step 3', async ({ page }) => {
  await registerAndOpen(page);
  await page.getByTestId('kyc-verification-type').selectOption('selfie');
  await page.getByTestId('kyc-document-type').selectOption('id_card');
  await page.getByTestId('kyc-document-country').selectOption('FR');
  await page.getByTestId('kyc-continue').click();
  await page.getByTestId('kyc-first-name').fill('Ada');
  await page.getByTestId('kyc-last-name').fill('Lovelace');
  await page.getByTestId('kyc-dob').fill('1990-12-10');
  await page.getByTestId('kyc-continue').click();
  await page.getByTestId('kyc-files').setInputFiles({
    name: 'photo.png',
    mimeType: 'image/png',
    buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'),
  });
  await page.getByTestId('kyc-submit').click();
  await expect(toast(page)).toContainText('Failed to submit verification');
  await expect(toast(page)).toContainText('not a JPG, PNG or PDF');
  await expect(page.getByTestId('kyc-step')).toHaveText('Step 3 of 3');
  await expect(page.getByTestId('kyc-submit')).toHaveText('Submit Verification');
});
