#!/usr/bin/env bash
# Browser end-to-end tests: Playwright driving Debian's Chromium against a production build on a fresh database.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_bun
ensure_chromium
echo "==> building the web app"
bun run build:web
# Playwright's runner is a Node program; it loads the *.e2e.ts files itself.
node node_modules/@playwright/test/cli.js test "$@"
# No card number or CVV typed in the browser may have reached the database, its WAL or the server log.
bun scripts/scan-card-data.ts data/e2e
