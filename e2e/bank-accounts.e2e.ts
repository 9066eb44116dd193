import { expect, test, type Page } from '@playwright/test';
import { addCard, E2E_BANK_ACCOUNT_NUMBERS, E2E_CARD_NUMBERS } from './cards';

const toast = (page: Page) => page.getByTestId('toast').last();

async function register(page: Page, prefix: string) {
  const email = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
}

/** Fills and submits Add Bank Account (the Funding Sources tab is open). */
async function addBankAccount(page: Page, routing: string, account: string, split: string) {
  await page.getByTestId('add-bank-button').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('bank-routing').fill(routing);
  await dialog.getByTestId('bank-account').fill(account);
  await dialog.getByTestId('bank-type-checking').check();
  await expect(dialog.getByTestId('bank-holder')).toHaveValue('Ada Lovelace');
  await dialog.getByTestId('bank-split').fill(split);
  await dialog.getByTestId('add-bank-submit').click();
}

test('add a bank account through micro-deposits, then split a bcard between a card and the bank account', async ({ page }) => {
  test.setTimeout(90_000);
  await register(page, 'bank');
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await addCard(page, E2E_CARD_NUMBERS[0]!, { split: '50' });

  // A routing number failing the ABA checksum is caught in the form, on its field.
  await addBankAccount(page, '110000001', E2E_BANK_ACCOUNT_NUMBERS[0]!, '50');
  let dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('alert')).toContainText('This routing number is not valid');
  await expect(dialog.getByTestId('bank-routing')).toBeFocused();
  await dialog.getByTestId('bank-routing').fill('110000000');
  await dialog.getByTestId('add-bank-submit').click();
  await expect(toast(page)).toContainText('Bank account added');
  await expect(page.getByRole('dialog')).toBeHidden();

  const bankTile = page.getByTestId('funding-source').filter({ hasText: 'Bank · Checking' });
  await expect(bankTile).toContainText('6789');
  await expect(bankTile.getByTestId('bank-verification')).toHaveAttribute('data-status', 'pending');
  // No balance bpay cannot know, and not "Active" before it can fund anything (issue 25).
  await expect(bankTile.getByTestId('funding-source-balance')).toHaveCount(0);
  await expect(bankTile.getByTestId('funding-source-state')).toHaveText('Usable once verified');

  // A wrong answer: the server's message with the tries left, in a live region.
  await bankTile.getByTestId('bank-verify-button').click();
  dialog = page.getByRole('dialog');
  await dialog.getByTestId('microdeposit-1').fill('0.10');
  await dialog.getByTestId('microdeposit-2').fill('0.20');
  await dialog.getByTestId('verify-submit').click();
  await expect(dialog.getByTestId('verify-error')).toContainText('2 tries left');
  // The right amounts (Stripe's test values: 32 and 45 cents).
  await dialog.getByTestId('microdeposit-1').fill('0.32');
  await dialog.getByTestId('microdeposit-2').fill('0.45');
  await dialog.getByTestId('verify-submit').click();
  await expect(toast(page)).toContainText('Bank account verified');
  await expect(bankTile.getByTestId('bank-verification')).toHaveAttribute('data-status', 'verified');
  await expect(bankTile.getByTestId('bank-verification')).toHaveText('Verified');

  // Split a bcard 50/50 between the card and the bank account.
  await page.getByRole('tab', { name: 'bcards' }).click();
  await page.getByTestId('create-bcard-tile').click();
  dialog = page.getByRole('dialog');
  await dialog.getByTestId('bcard-name').fill('Groceries');
  await dialog.getByTestId('bcard-amount').fill('100');
  await dialog.getByTestId('bcard-next').click();
  const splits = dialog.getByTestId('split-percentage-input');
  await expect(splits).toHaveCount(2);
  await splits.nth(0).fill('50');
  await splits.nth(1).fill('50');
  await dialog.getByTestId('bcard-create').click();
  await expect(toast(page)).toContainText('bcard Created Successfully!');
  await expect(page.getByTestId('bcard-tile')).toHaveCount(1);

  const sources = await (await page.request.get('/api/funding-sources')).json();
  const bank = sources.find((s: { type: string }) => s.type === 'bank_account');
  expect(bank.bankAccount.verificationStatus).toBe('verified');
  const cards = await (await page.request.get('/api/virtual-cards')).json();
  expect(cards[0].fundingSources.map((s: { fundingSourceId: string }) => s.fundingSourceId)).toContain(bank.id);
  const standing = await (await page.request.get('/api/funding-sources/bank-standing')).json();
  expect(standing).toMatchObject({ owed: '0.00', restricted: false });
  expect(Number(standing.unsettledBankExposure)).toBeGreaterThan(0);
});

test('at 390 px in Arabic: the bank dialog fits and reads right to left; a debit card shows its badge', async ({ page }) => {
  test.setTimeout(60_000);
  await page.setViewportSize({ width: 390, height: 844 });
  await register(page, 'bank-ar');
  // Stripe's Visa debit test card, added through the API: the processor says debit.
  const added = await page.request.post('/api/funding-sources', {
    data: { cardNumber: '4000056655665556', expiryMonth: '12', expiryYear: '2030', cvv: '917', name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 50 },
  });
  expect((await added.json()).type).toBe('debit_card');
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await expect(page.getByTestId('funding-source-funding')).toHaveText('Debit');

  // Arabic: the page turns right to left and the dialog speaks Arabic.
  await page.evaluate(() => localStorage.setItem('bpay-language', 'ar'));
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByRole('tab', { name: 'مصادر التمويل' }).click();
  await expect(page.getByTestId('funding-source-funding')).toHaveText('خصم مباشر');
  await page.getByTestId('add-bank-button').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading')).toHaveText('إضافة حساب بنكي');
  const box = await dialog.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
  for (const id of ['bank-routing', 'bank-account', 'bank-holder', 'bank-split', 'add-bank-submit']) {
    const b = await dialog.getByTestId(id).boundingBox();
    expect(b && b.x >= 0 && b.x + b.width <= 390, id).toBe(true);
  }
});
