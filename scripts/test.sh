#!/usr/bin/env bash
# README command 2 (and CI): every check. Typecheck, unit and API tests, then browser end-to-end tests.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_bun
install_deps
ensure_python_stripe
echo "==> generated API types (sdk/openapi.json, sdk/src/schema.d.ts) match the API"
bun scripts/generate-sdk.ts --check
echo "==> typecheck"
bun run typecheck
echo "==> unit and API tests (bun test)"
# --timeout is a hang guard, not a speed target: sign-in tests run dozens of argon2id checks on two shared cores, and
# Bun's default 5 s cut one off on a loaded machine. (setDefaultTimeout in a preload reaches only the first file.)
bun test --timeout 20000
echo "==> the money, concurrency, crash and idempotency suites again, against a libSQL server (the Hrana stand-in)"
bun run test:remote
echo "==> browser end-to-end tests"
bash scripts/e2e.sh
echo "==> all checks passed"
