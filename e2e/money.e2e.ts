import { expect, test, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { addCard, E2E_CARD_NUMBERS } from './cards';

const toast = (page: Page) => page.getByTestId('toast').last();

test('add two cards (one through 3-D Secure), split a bcard 60/40, see it, export, and see a shortfall', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const email = `money-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await expect(page.getByText('No funding sources yet')).toBeVisible();

  await addCard(page, E2E_CARD_NUMBERS[0]!, { split: '60' });
  await addCard(page, E2E_CARD_NUMBERS[1]!, { threeDS: true, split: '40' });
  await expect(page.getByTestId('funding-source')).toHaveCount(2);
  // The free plan allows two sources.
  await expect(page.getByTestId('add-source-button')).toBeDisabled();
  await expect(page.getByTestId('add-source-button')).toContainText('Limit Reached');

  // Create a bcard split 60/40.
  await page.getByRole('tab', { name: 'bcards' }).click();
  await expect(page.getByText('No bcards yet')).toBeVisible();
  await page.getByTestId('create-bcard-tile').click();
  let dialog = page.getByRole('dialog');
  await dialog.getByTestId('bcard-name').fill('Groceries');
  await dialog.getByTestId('bcard-amount').fill('100');
  await dialog.getByTestId('bcard-next').click();
  const splits = dialog.getByTestId('split-percentage-input');
  await splits.nth(0).fill('60');
  await splits.nth(1).fill('40');
  await expect(dialog.getByTestId('bcard-create')).toBeEnabled();
  await dialog.getByTestId('bcard-create').click();
  await expect(toast(page)).toContainText('bcard Created Successfully!');
  await expect(page.getByTestId('bcard-tile')).toHaveCount(1);
  await expect(page.getByTestId('bcard-tile').first()).toContainText('Groceries');

  const cards = await (await page.request.get('/api/virtual-cards')).json();
  expect(cards[0].fundingSources.map((s: { amount: string }) => s.amount)).toEqual(['61.74', '41.16']);

  // The transaction is in the list, and the CSV export has it.
  await page.getByRole('tab', { name: 'Transactions' }).click();
  await expect(page.getByTestId('transaction-row')).toHaveCount(1);
  await expect(page.getByTestId('transaction-row').first()).toContainText('100.00');
  const download = page.waitForEvent('download');
  await page.getByTestId('transaction-export').click();
  const csv = readFileSync(await (await download).path(), 'utf8');
  expect(csv.split('\r\n')[0]).toContain('id,created_at,merchant,amount');
  expect(csv).toContain('Groceries');

  // An amount the sources cannot cover: the per-source message, and Create stays disabled.
  await page.getByRole('tab', { name: 'bcards' }).click();
  await page.getByTestId('create-bcard-tile').click();
  dialog = page.getByRole('dialog');
  await dialog.getByTestId('bcard-name').fill('Car');
  await dialog.getByTestId('bcard-amount').fill('19000');
  await dialog.getByTestId('bcard-next').click();
  await dialog.getByTestId('split-percentage-input').nth(0).fill('60');
  await dialog.getByTestId('split-percentage-input').nth(1).fill('40');
  const error = dialog.getByTestId('bcard-split-error');
  await expect(error).toContainText('Insufficient funds in funding sources.');
  await expect(error).toContainText(/needs \$[\d,]+\.\d\d, has \$[\d,]+\.\d\d/);
  await expect(dialog.getByTestId('bcard-create')).toBeDisabled();
});

test('reveal a bcard, view its transaction, filter, cancel it and see the money go back', async ({ page }) => {
  test.setTimeout(60_000);
  const email = `cancel-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  expect(
    (
      await page.request.post('/api/auth/register', {
        data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
      })
    ).status(),
  ).toBe(201);
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await addCard(page, E2E_CARD_NUMBERS[0]!, { split: '100' });

  await page.getByRole('tab', { name: 'bcards' }).click();
  await page.getByTestId('create-bcard-tile').click();
  const dialog = page.getByRole('dialog');
  // Spec validations of the details step.
  await dialog.getByTestId('bcard-next').click();
  await expect(toast(page)).toContainText('bcard Name Required');
  await dialog.getByTestId('bcard-name').fill('Flowers');
  await dialog.getByTestId('bcard-amount').fill('0');
  await dialog.getByTestId('bcard-next').click();
  await expect(toast(page)).toContainText('Invalid Amount');
  await dialog.getByTestId('bcard-amount').fill('40');
  await dialog.getByTestId('bcard-next').click();
  await dialog.getByTestId('split-percentage-input').nth(0).fill('99');
  await expect(dialog.getByTestId('bcard-split-error')).toContainText('Funding splits must add up to 100%');
  await expect(dialog.getByTestId('bcard-create')).toBeDisabled();
  await dialog.getByTestId('bcard-back').click();
  await expect(dialog.getByTestId('bcard-name')).toHaveValue('Flowers');
  await dialog.getByTestId('bcard-next').click();
  await dialog.getByTestId('split-percentage-input').nth(0).fill('100');
  await dialog.getByTestId('bcard-create').click();
  await expect(toast(page)).toContainText('bcard Created Successfully!');

  // Reveal the full number: 16 digits from the test range, and the reveal is what the API says.
  const tile = page.getByTestId('bcard-tile').first();
  await tile.getByTestId('bcard-reveal').click();
  const number = page.getByTestId('bcard-details-number');
  await expect(number).toContainText(/4000 009\d \d{4} \d{4}/);
  await page.keyboard.press('Escape');

  // The transaction's detail dialog lists its share.
  await page.getByRole('tab', { name: 'Transactions' }).click();
  await page.getByTestId('transaction-row').first().getByTestId('transaction-view').click();
  await expect(page.getByTestId('transaction-shares')).toContainText('41.16');
  await page.keyboard.press('Escape');
  await page.getByTestId('transaction-filter').selectOption('failed');
  await expect(page.getByText('No matching transactions')).toBeVisible();
  await expect(page.getByTestId('transaction-export')).toHaveAttribute('href', /status=failed/);
  // A live bcard holds its money unspent: never "completed" (issue 25), found under the active filter.
  await page.getByTestId('transaction-filter').selectOption('completed');
  await expect(page.getByText('No matching transactions')).toBeVisible();
  await page.getByTestId('transaction-filter').selectOption('active');
  await expect(page.getByTestId('transaction-row')).toHaveCount(1);

  // Cancel: deactivated, refunded in full (fee included).
  await page.getByRole('tab', { name: 'bcards' }).click();
  await tile.getByTestId('bcard-cancel').click();
  await page.getByTestId('bcard-cancel-confirm').click();
  await expect(tile).toContainText(/canceled/i);
  const sources = await (await page.request.get('/api/funding-sources')).json();
  expect(sources[0].balance).toBe('10000.00');
  const tx = await (await page.request.get('/api/transactions')).json();
  expect(tx[0].status).toBe('refunded');
});
