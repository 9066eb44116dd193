import { expect, test, type Page } from '@playwright/test';

const toast = (page: Page) => page.getByTestId('toast').last();

test('register, complete the profile, log out and sign in again', async ({ page }) => {
  // About 60 steps, the first test of its worker (a browser to launch): 20 s on a quiet machine, 34 s on a loaded one.
  test.setTimeout(60_000);
  const email = `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'correct horse battery';

  await page.goto('/auth');
  await page.getByRole('tab', { name: 'Register' }).click();
  await expect(page.getByPlaceholder('Create a password (min 6 characters)')).toBeVisible();
  // Client-side validation: a short password is refused before any request.
  await page.getByLabel('Email').fill(email);
  await page.getByPlaceholder('Create a password (min 6 characters)').fill('12345');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByText('Password must be at least 6 characters')).toBeVisible();

  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Lovelace');
  await page.getByPlaceholder('Create a password (min 6 characters)').fill(password);
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(toast(page)).toContainText('Your account has been created successfully.');
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('tab', { name: 'Overview' })).toBeVisible();
  for (const tab of ['Funding Sources', 'bcards', 'Transactions', 'Settings']) {
    await expect(page.getByRole('tab', { name: tab })).toBeVisible();
  }

  // Profile: a missing required field is refused with a toast, then a complete save persists.
  await page.getByTestId('profile-menu').click();
  await expect(page.getByRole('menu')).toContainText(email);
  await page.getByRole('menuitem', { name: 'View Profile' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Ada Lovelace');
  await dialog.getByTestId('profile-edit').click();
  await dialog.locator('#phoneNumber').fill('+1 555 010 2025');
  await dialog.locator('#line1').fill('');
  await dialog.locator('#city').fill('');
  await dialog.getByTestId('profile-save').click();
  await expect(toast(page)).toContainText('Incomplete Information');
  await expect(toast(page)).toContainText('Please fill in all required fields.');

  await dialog.locator('#line1').fill('1 Market Street');
  await dialog.locator('#city').fill('San Francisco');
  await dialog.locator('#state').fill('ca');
  await dialog.locator('#postal_code').fill('94105');
  await dialog.getByTestId('profile-save').click();
  await expect(toast(page)).toContainText('Profile Updated');
  await expect(dialog).toContainText('1 Market Street');
  await expect(dialog).toContainText('CA');
  await dialog.getByTestId('profile-close').click();
  await expect(dialog).toBeHidden();

  const saved = await (await page.request.get('/api/auth/user')).json();
  expect(saved.phoneNumber).toBe('+1 555 010 2025');
  expect(saved.address).toMatchObject({ line1: '1 Market Street', city: 'San Francisco', state: 'CA', country: 'US' });

  // Log out through the profile menu.
  await page.getByTestId('profile-menu').click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(toast(page)).toContainText('You have been successfully logged out.');
  await expect(page.locator('#pricing')).toBeAttached();
  expect((await page.request.get('/api/auth/user')).status()).toBe(401);

  // A wrong password shows the server's message.
  await page.goto('/auth');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign In' }).last().click();
  await expect(toast(page)).toContainText('Login failed');
  await expect(toast(page)).toContainText('Invalid email or password.');

  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).last().click();
  await expect(toast(page)).toContainText('Welcome back!');
  await expect(page.getByRole('tab', { name: 'Overview' })).toBeVisible();

  // Signed in, /auth sends you home.
  await page.goto('/auth');
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('tab', { name: 'Overview' })).toBeVisible();
});

test('registering an e-mail that exists shows the server message', async ({ page, request }) => {
  const email = `dup-${Date.now()}@example.com`;
  const first = await request.post('/api/auth/register', {
    data: { email, password: 'violet kettle orbit', firstName: 'A', lastName: 'B' },
  });
  expect(first.status()).toBe(201);
  await page.goto('/auth');
  await page.getByRole('tab', { name: 'Register' }).click();
  await page.getByLabel('Email').fill(email.toUpperCase());
  await page.getByPlaceholder('Create a password (min 6 characters)').fill('violet kettle orbit');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(toast(page)).toContainText('Registration failed');
  await expect(toast(page)).toContainText('An account with this email already exists.');
});

test('a common password is refused at registration, saying why and what would be better', async ({ page }) => {
  const email = `weak-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await page.goto('/auth');
  await page.getByRole('tab', { name: 'Register' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByPlaceholder('Create a password (min 6 characters)').fill('iloveyou');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(toast(page)).toContainText('Registration failed');
  const fieldError = page.locator('#register-password-error');
  await expect(fieldError).toContainText('This password is too easy to guess.');
  await expect(fieldError).toContainText('This is a frequently used password.');
  await expect(fieldError).toContainText('A few unrelated words');
  expect((await page.request.get('/api/auth/user')).status()).toBe(401);

  // A strong one is accepted.
  await page.getByPlaceholder('Create a password (min 6 characters)').fill('violet kettle orbit');
  await expect(fieldError).toBeHidden();
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(toast(page)).toContainText('Your account has been created successfully.');
});

test('in Arabic, the reason a password is refused is Arabic too', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('bpay-language', 'ar'));
  await page.goto('/auth');
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl');
  await page.getByRole('tab', { name: 'إنشاء حساب' }).click();
  await page.locator('#register-email').fill(`weak-ar-${Date.now()}@example.com`);
  await page.locator('#register-password').fill('password');
  await page.getByRole('button', { name: 'إنشاء الحساب' }).click();
  const fieldError = page.locator('#register-password-error');
  await expect(fieldError).toContainText('كلمة المرور هذه سهلة التخمين.');
  await expect(fieldError).toContainText('هذه من أكثر كلمات المرور استخدامًا.');
  await expect(toast(page)).toContainText('فشل إنشاء الحساب');
});
