import { expect, test } from '@playwright/test';

/*
 * Swagger UI renders the real document (issue 28 §4): a shared model's response used to show as "string", because
 * its TypeBox $id made the UI resolve '#/components/schemas/Refund' against the model itself (api/src/openapi-tidy.ts).
 * This reads what an integrator reads first: POST /api/v1/refunds, its 200 and 400 examples and schemas.
 */
test('Swagger shows POST /api/v1/refunds with its description, a Refund for 200 and the error shape for 400', async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto('/swagger');
  await expect(page.locator('.opblock').first()).toBeVisible({ timeout: 30_000 });
  // Swagger UI renders operations as they scroll into view: scroll until the refunds' POST exists.
  const op = page.locator('#operations-Refunds-postApiV1Refunds');
  for (let i = 0; i < 200 && (await op.count()) === 0; i++) await page.mouse.wheel(0, 600);
  await op.scrollIntoViewIfNeeded();
  await expect(op.locator('.opblock-summary-path')).toHaveAttribute('data-path', '/api/v1/refunds');
  await op.locator('.opblock-summary-control').click();

  // The description, not only the summary.
  await expect(op.locator('.opblock-description-wrapper').first()).toContainText('Refunds a succeeded payment intent');

  const example = async (code: string) => {
    const row = op.locator(`.responses-table tr.response[data-code="${code}"]`);
    await expect(row).toBeVisible();
    const text = await row.locator('.example .highlight-code, .highlight-code').first().innerText();
    return { row, value: JSON.parse(text) as unknown };
  };

  const ok = await example('200');
  expect(ok.value).not.toBe('string');
  const refund = ok.value as Record<string, unknown>;
  expect(Object.keys(refund)).toEqual(expect.arrayContaining(['id', 'object', 'amount', 'currency', 'status', 'payment_intent', 'metadata', 'created']));
  expect(refund.object).toBe('refund');
  expect(typeof refund.amount).toBe('number');
  expect(['pending', 'succeeded', 'failed']).toContain(refund.status);

  const bad = await example('400');
  expect(bad.value).not.toBe('string');
  const error = (bad.value as { error: Record<string, unknown> }).error;
  expect(Object.keys(error)).toEqual(expect.arrayContaining(['type', 'code', 'message', 'param']));
  expect(error.type).toBe('invalid_request_error');

  // The schema view names the fields too (an unresolved reference showed only "string" there as well).
  await ok.row.getByRole('tab', { name: 'Schema' }).click();
  const schema = ok.row.locator('.model-example');
  await expect(schema).toContainText('Refund');
  await schema.getByRole('button', { name: 'Expand all' }).first().click();
  for (const field of ['id', 'object', 'amount', 'status', 'payment_intent', 'failure_reason']) await expect(schema).toContainText(field);
  await bad.row.getByRole('tab', { name: 'Schema' }).click();
  const errorSchema = bad.row.locator('.model-example');
  await errorSchema.getByRole('button', { name: 'Expand all' }).first().click();
  for (const field of ['error', 'type', 'code', 'message', 'param']) await expect(errorSchema).toContainText(field);
});
