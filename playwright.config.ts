import { defineConfig } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 3100);
/*
 * Several runs may share a checkout (one per E2E_PORT): each gets its own database folder, and BPAY_WEB_DIST
 * names the build it serves (`BPAY_WEB_DIST=web/dist-3101 bun run build:web` writes there).
 */
/** The SMTP server the e2e server sends to: e2e/password-reset.e2e.ts listens there while it runs. */
export const E2E_SMTP_PORT = PORT + 1000;
const DATA_DIR = process.env.E2E_DATA_DIR ?? (PORT === 3100 ? './data/e2e' : `./data/e2e-${PORT}`);

/*
 * Browser tests run against the production build served by the real server on a fresh database
 * (e2e/serve.ts deletes it first). Debian's Chromium only: Playwright never downloads a browser here.
 */
export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.e2e.ts',
  outputDir: PORT === 3100 ? 'test-results' : `test-results-${PORT}`,
  fullyParallel: true,
  workers: process.env.CI ? 2 : undefined,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 7_000 },
  reporter: [['list']],
  // A test that changes what every visitor sees (it creates an active subscription tier for a moment: the landing and
  // investor pages list the tiers) is tagged @global and runs alone, after the rest, so no other test reads it half-way.
  projects: [
    { name: 'main', grepInvert: /@global/ },
    { name: 'global', grep: /@global/, dependencies: ['main'] },
  ],
  use: {
    baseURL: `http://localhost:${PORT}`,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: 'bun --max-http-header-size=262144 e2e/serve.ts',
    url: `http://localhost:${PORT}/api/subscription/tiers`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(PORT),
      E2E_DATA_DIR: DATA_DIR,
      BPAY_DATABASE_URL: `file:${DATA_DIR}/bpay.db`,
      BPAY_UPLOADS_DIR: `${DATA_DIR}/uploads`,
      BPAY_WEB_DIST: process.env.BPAY_WEB_DIST ?? './web/dist',
      BPAY_SESSION_SECRET: 'e2e-session-secret-e2e-session-secret',
      BPAY_PUBLIC_URL: `http://localhost:${PORT}`,
      BPAY_LOG_LEVEL: 'debug',
      // The first admin account (issue 5); e2e/admin.e2e.ts signs in with a TOTP code from this secret.
      BPAY_ADMIN_USERNAME: 'root',
      BPAY_ADMIN_PASSWORD: 'correct horse battery staple',
      BPAY_ADMIN_TOTP_SECRET: 'JBSWY3DPEHPK3PXP',
      // Every browser test registers its users from this one loopback address.
      BPAY_REGISTRATIONS_PER_HOUR: '1000',
      // ... and adds their cards from it (50 an hour by default: the suite adds more than that).
      BPAY_CARD_ATTEMPTS_PER_ADDRESS_PER_HOUR: '1000',
      // Mail goes to a real SMTP server that e2e/password-reset.e2e.ts starts on this port (nothing listens otherwise:
      // other tests' sign-in notices wait and retry, harmlessly).
      BPAY_SMTP_URL: `smtp://127.0.0.1:${PORT + 1000}`,
    },
  },
});
