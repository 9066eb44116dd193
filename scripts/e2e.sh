#!/usr/bin/env bash
# Browser end-to-end tests: Playwright driving Debian's Chromium against a production build on a fresh database.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_bun
ensure_chromium
echo "==> building the web app"
bun run build:web
echo "==> building the browser extension for the e2e server's origin"
BPAY_PUBLIC_URL="http://localhost:${E2E_PORT:-3100}" bun run build:extension
# Playwright's runner is a Node program; it loads the *.e2e.ts files itself.
node node_modules/@playwright/test/cli.js test "$@"
# No card number or CVV typed in the browser may have reached the database, its WAL or the server log: scanned in the
# folder this run used (playwright.config.ts: E2E_DATA_DIR, else data/e2e, or data/e2e-<port> for another E2E_PORT).
port="${E2E_PORT:-3100}"
if [ -n "${E2E_DATA_DIR:-}" ]; then data_dir="$E2E_DATA_DIR"
elif [ "$port" = 3100 ]; then data_dir=data/e2e
else data_dir="data/e2e-$port"; fi
bun scripts/scan-card-data.ts "$data_dir"
