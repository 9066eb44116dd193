import { createClient } from '@libsql/client';
import { expect, test, type Page } from '@playwright/test';
import { E2E_BANK_ACCOUNT_NUMBERS } from './cards';

/*
 * Issue 25 item 2 in Chromium: what a transaction says is true. A bank debit the bank returns reads as such in Arabic
 * at 390 px (row and detail, on screen); an unused bcard that is canceled reads "Canceled ($X returned)", an unused
 * live one "Active ($X held)", never "Completed".
 *
 * A debit settles (or comes back) four days after it is made, by the simulated bank's clock. The test moves that one
 * debit's date back in the server's database (the simulator's own record of it, nothing of bpay's), and the server's
 * money sweep (every 30 s) then finds it returned R01, as it would four days later.
 */

const PORT = Number(process.env.E2E_PORT ?? 3100);
const DATA_DIR = process.env.E2E_DATA_DIR ?? (PORT === 3100 ? './data/e2e' : `./data/e2e-${PORT}`);
const R01_ACCOUNT = E2E_BANK_ACCOUNT_NUMBERS[1]!;
const FOUR_DAYS_AND_AN_HOUR_MS = (4 * 24 + 1) * 3_600_000;

async function register(page: Page, prefix: string): Promise<string> {
  const email = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  return ((await (await page.request.get('/api/auth/user')).json()) as { id: string }).id;
}

async function addCard(page: Page): Promise<string> {
  const res = await page.request.post('/api/funding-sources', {
    data: { cardNumber: '4242424242424242', expiryMonth: '12', expiryYear: '2030', cvv: '917', name: 'Ada Lovelace', type: 'credit_card', defaultSplitPercentage: 50 },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).id;
}

async function createBcard(page: Page, name: string, balance: string, split: Array<[string, number]>) {
  const res = await page.request.post('/api/virtual-cards', {
    data: { name, balance, fundingSources: split.map(([fundingSourceId, percentage]) => ({ fundingSourceId, percentage })) },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: string; transactionId: string; totalCharged: string };
}

test('a bank debit returned by the bank reads as such in Arabic at 390 px', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 390, height: 844 });
  const userId = await register(page, 'statuses-bank');
  const card = await addCard(page);
  const added = await page.request.post('/api/funding-sources/bank-accounts', {
    data: { routingNumber: '110000000', accountNumber: R01_ACCOUNT, accountType: 'checking', name: 'Ada Lovelace', defaultSplitPercentage: 50 },
  });
  expect(added.status(), await added.text()).toBe(201);
  const bank = (await added.json()).id as string;
  const verified = await page.request.post(`/api/funding-sources/${bank}/verify-microdeposits`, { data: { amounts: ['0.32', '0.45'] } });
  expect(verified.status(), await verified.text()).toBe(200);
  const made = await createBcard(page, 'Split with the bank', '20.00', [[card, 50], [bank, 50]]);

  // While the debit settles the transaction is pending, never completed.
  const before = await (await page.request.get(`/api/transactions/${made.transactionId}`)).json();
  expect(before).toMatchObject({ status: 'pending', bankDebit: 'pending' });

  // Four days on for this debit at the simulated bank; the sweep finds it returned.
  const db = createClient({ url: `file:${DATA_DIR}/bpay.db` });
  try {
    await db.execute('PRAGMA busy_timeout = 10000');
    const moved = await db.execute({
      sql: 'UPDATE sim_holds SET created_at = created_at - ? WHERE id IN (SELECT vendor_debit_id FROM bank_debits WHERE user_id = ?)',
      args: [FOUR_DAYS_AND_AN_HOUR_MS, userId],
    });
    expect(moved.rowsAffected).toBe(1);
  } finally {
    db.close();
  }
  await expect
    .poll(async () => (await (await page.request.get(`/api/transactions/${made.transactionId}`)).json()).bankDebit, { timeout: 75_000, intervals: [2_000] })
    .toBe('returned');

  await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
  await page.goto('/');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByRole('tab', { name: 'المعاملات' }).click();
  const row = page.getByTestId('transaction-row').filter({ hasText: 'Split with the bank' });
  await expect(row.getByTestId('bank-debit-status')).toHaveText('أعاده البنك');
  await expect(row.getByTestId('bank-debit-status')).toHaveAttribute('data-state', 'returned');
  // The unused bcard was canceled when its debit came back, and its card share returned: never "completed".
  await expect(row.getByTestId('transaction-status')).toHaveAttribute('data-stage', 'canceled');
  await expect(row.getByTestId('transaction-status')).toContainText('ملغاة');
  await expect(row).not.toContainText('مكتملة');
  await expect(row).not.toContainText('returned');
  for (const id of ['bank-debit-status', 'transaction-status', 'transaction-view']) {
    const box = await row.getByTestId(id).boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390, id).toBe(true);
  }

  // The filter finds it; the detail names the returned share.
  await page.getByTestId('transaction-filter').selectOption('bank_returned');
  await expect(page.getByTestId('transaction-row')).toHaveCount(1);
  await page.getByTestId('transaction-view').click();
  const dialog = page.getByTestId('transaction-detail-dialog');
  await expect(dialog.getByTestId('bank-debit-status')).toHaveText('أعاده البنك');
  await expect(dialog.locator('[data-testid="transaction-share"][data-stage="returned"]').getByTestId('transaction-share-stage')).toHaveText('أعاده البنك');
  await expect(dialog.locator('[data-testid="transaction-share"][data-stage="refunded"]')).toHaveCount(1);
  const box = await dialog.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
});

test('an unused bcard never reads Completed: active holds its money, canceled says what came back', async ({ page }) => {
  test.setTimeout(60_000);
  await register(page, 'statuses-unused');
  const card = await addCard(page);
  const canceled = await createBcard(page, 'Changed my mind', '10.00', [[card, 100]]);
  const active = await createBcard(page, 'Still open', '12.00', [[card, 100]]);

  await page.goto('/');
  await page.getByRole('tab', { name: 'bcards' }).click();
  const tile = page.getByTestId('bcard-tile').filter({ hasText: 'Changed my mind' });
  await tile.getByTestId('bcard-cancel').click();
  await page.getByTestId('bcard-cancel-confirm').click();
  await expect(tile).toHaveAttribute('data-status', 'canceled');
  await expect(tile.getByTestId('bcard-stage')).toHaveText(`Canceled (${'$' + canceled.totalCharged} returned)`);

  await page.getByRole('tab', { name: 'Transactions' }).click();
  const canceledRow = page.getByTestId('transaction-row').filter({ hasText: 'Changed my mind' });
  await expect(canceledRow.getByTestId('transaction-status')).toHaveText(`Canceled ($${canceled.totalCharged} returned)`);
  const activeRow = page.getByTestId('transaction-row').filter({ hasText: 'Still open' });
  await expect(activeRow.getByTestId('transaction-status')).toHaveText('Active ($12.00 held)');
  await expect(page.getByTestId('transaction-list')).not.toContainText('Completed');

  // Filters: the live one under Active, the canceled one under Expired or canceled; Completed has neither.
  await page.getByTestId('transaction-filter').selectOption('active');
  await expect(page.getByTestId('transaction-row')).toHaveCount(1);
  await expect(page.getByTestId('transaction-row')).toContainText('Still open');
  await page.getByTestId('transaction-filter').selectOption('returned');
  await expect(page.getByTestId('transaction-row')).toHaveCount(1);
  await expect(page.getByTestId('transaction-row')).toContainText('Changed my mind');
  await page.getByTestId('transaction-filter').selectOption('completed');
  await expect(page.getByTestId('transactions-no-match')).toBeVisible();
  expect(active.id).toBeTruthy();
});

test("the language switch is kept on the account, and bpay's own words follow the screen's language", async ({ page }) => {
  test.setTimeout(60_000);
  await register(page, 'statuses-language');
  const card = await addCard(page);
  await createBcard(page, 'Words', '10.00', [[card, 100]]);
  const accountLanguage = async () => ((await (await page.request.get('/api/auth/user')).json()) as { language: string }).language;
  expect(await accountLanguage()).toBe('en');

  await page.goto('/');
  await page.getByRole('tab', { name: 'Transactions' }).click();
  const row = page.getByTestId('transaction-row').filter({ hasText: 'Words' });
  await expect(row).toContainText('bcard funded from 1 source');

  // The switch while signed in: the screen turns Arabic, the row is read again in Arabic, and the account keeps it
  // (mail and notices are written in it from now on).
  await page.getByTestId('profile-menu').click();
  await page.getByTestId('language-switch').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
  await expect(row).toContainText('بطاقة bcard مموّلة من مصدر واحد');
  await expect.poll(accountLanguage).toBe('ar');

  // Elsewhere the account goes back to English; this browser remembers Arabic and keeps it on screen. bpay's words on
  // this screen are still Arabic (the screen names its language), while the account stays English.
  const patched = await page.request.patch('/api/auth/user', { data: { language: 'en' } });
  expect(patched.status()).toBe(200);
  await page.reload();
  await page.getByRole('tab', { name: 'المعاملات' }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ar');
  await expect(page.getByTestId('transaction-row').filter({ hasText: 'Words' })).toContainText('بطاقة bcard مموّلة من مصدر واحد');
  expect(await accountLanguage()).toBe('en');
});
