import { expect, type Page } from '@playwright/test';

/** The card numbers and CVVs the browser tests type; scripts/scan-card-data.ts looks for them afterwards. */
export const E2E_CARD_NUMBERS = ['4242424242424242', '4000002760003184', '5555555555554444'];
/** Distinctive CVVs, so finding one at rest means it was stored, not a coincidence. */
export const E2E_CVVS = ['917', '4083'];
export const E2E_CVV = '917';
/** The bank account numbers the browser tests type (the simulator's test accounts); never to be found at rest. */
export const E2E_BANK_ACCOUNT_NUMBERS = ['000123456789', '000222222227'];

/**
 * Adds a card through the dashboard's Funding Sources tab (already open), the way a person does: number, expiry,
 * CVV, split; `threeDS` for a card that asks for a one-time code (4000002760003184).
 */
export async function addCard(page: Page, number: string, opts: { threeDS?: boolean; split: string }) {
  await page.getByTestId('add-source-button').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('card-number').fill(number);
  await dialog.getByTestId('card-expiry').fill('12/30');
  await dialog.getByTestId('card-cvv').fill(E2E_CVV);
  await expect(dialog.getByTestId('card-name')).toHaveValue('Ada Lovelace');
  await dialog.getByTestId('card-split').fill(opts.split);
  await dialog.getByTestId('add-card-submit').click();
  if (opts.threeDS) {
    const code = dialog.getByTestId('3ds-code');
    await expect(code).toBeVisible();
    await expect(dialog.getByTestId('3ds-submit')).toBeDisabled();
    await code.fill('123456');
    await dialog.getByTestId('3ds-submit').click();
  }
  await expect(page.getByTestId('toast').last()).toContainText('Funding source added successfully');
  await expect(page.getByRole('dialog')).toBeHidden({ timeout: 10_000 });
}
