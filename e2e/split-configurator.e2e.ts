import { expect, test, type Page } from '@playwright/test';
import { addCard, E2E_CARD_NUMBERS } from './cards';

const toast = (page: Page) => page.getByTestId('toast').last();

test('Create bcard in fixed-amount mode: a wrong total is refused with the spec text, the right one creates the card', async ({
  page,
}) => {
  test.setTimeout(60_000);
  await page.setViewportSize({ width: 390, height: 844 });
  const email = `split-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const res = await page.request.post('/api/auth/register', {
    data: { email, password: 'correct horse battery', firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status()).toBe(201);
  await page.goto('/');
  await page.getByRole('tab', { name: 'Funding Sources' }).click();
  await addCard(page, E2E_CARD_NUMBERS[0]!, { split: '70' });
  await addCard(page, E2E_CARD_NUMBERS[1]!, { threeDS: true, split: '30' });

  await page.getByRole('tab', { name: 'bcards' }).click();
  await page.getByTestId('create-bcard-tile').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('bcard-name').fill('Concert');
  await dialog.getByTestId('bcard-amount').fill('100');
  await dialog.getByTestId('bcard-next').click();

  // The rows start cleared (spec §4), not from each source's default; both sources are used, so nothing is left to add.
  const split = dialog.getByTestId('split-configurator');
  await expect(split.getByTestId('split-percentage-input')).toHaveCount(2);
  await expect(split.getByTestId('split-percentage-input').nth(0)).toHaveValue('');
  await expect(split.getByTestId('split-percentage-input').nth(1)).toHaveValue('');
  await expect(split.getByTestId('split-add')).toHaveCount(0);
  await expect(dialog.getByTestId('bcard-total')).toHaveText('$102.90');

  // Removing a row offers Add Payment Source again; adding brings the source back.
  await split.getByTestId('split-remove').nth(1).click();
  await expect(split.getByTestId('split-row')).toHaveCount(1);
  await expect(split.getByTestId('split-remove')).toHaveCount(0);
  await split.getByTestId('split-add').click();
  await expect(split.getByTestId('split-row')).toHaveCount(2);

  // Fixed amounts: $60.00 + $42.00 is not $102.90.
  await split.getByTestId('split-mode-fixed').click();
  await expect(split.getByTestId('split-mode-fixed')).toHaveAttribute('aria-pressed', 'true');
  const fixed = split.getByTestId('split-fixed-input');
  await fixed.nth(0).fill('60');
  await fixed.nth(1).fill('42');
  await expect(dialog.getByTestId('bcard-split-error')).toContainText(
    'Total fixed amounts ($102.00) must equal the total payment amount ($102.90) including fees.',
  );
  await expect(dialog.getByTestId('bcard-create')).toBeDisabled();

  await fixed.nth(1).fill('42.90');
  await expect(dialog.getByTestId('bcard-split-error')).toHaveCount(0);
  await expect(split.getByTestId('split-row-amount').nth(1)).toHaveText('$42.90');
  await expect(dialog.getByTestId('bcard-create')).toBeEnabled();
  await dialog.getByTestId('bcard-create').click();
  await expect(toast(page)).toContainText('bcard Created Successfully!');
  await expect(page.getByTestId('bcard-tile').first()).toContainText('Concert');

  // The server split by the fixed amounts, exactly as typed.
  const cards = await (await page.request.get('/api/virtual-cards')).json();
  expect(cards[0].totalCharged).toBe('102.90');
  expect(cards[0].fundingSources.map((s: { amount: string }) => s.amount).sort()).toEqual(['42.90', '60.00']);
});
