#!/usr/bin/env bash
# Shared by start.sh, test.sh and e2e.sh. Needs only Node and npm to begin with.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pinned Bun version lives in package.json ("packageManager": "bun@X.Y.Z").
BUN_VERSION="$(node -p "require('$ROOT/package.json').packageManager.split('@')[1]")"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

# Installs the pinned Bun from npm when it is missing or another version: globally when npm may write there,
# otherwise into ./.tools (no root needed). Bun's npm package ships the binary, so its skipped install script
# does not matter.
ensure_bun() {
  local local_bin="$ROOT/.tools/node_modules/.bin"
  if [ -x "$local_bin/bun" ]; then export PATH="$local_bin:$PATH"; fi
  if command -v bun >/dev/null 2>&1 && [ "$(bun --version)" = "$BUN_VERSION" ]; then return; fi
  echo "==> installing bun@$BUN_VERSION from npm"
  if npm install -g "bun@$BUN_VERSION" >/dev/null 2>&1 && command -v bun >/dev/null 2>&1 \
    && [ "$(bun --version)" = "$BUN_VERSION" ]; then
    return
  fi
  mkdir -p "$ROOT/.tools"
  npm install --no-save --prefix "$ROOT/.tools" "bun@$BUN_VERSION" >/dev/null
  export PATH="$local_bin:$PATH"
  [ "$(bun --version)" = "$BUN_VERSION" ] || { echo "could not install bun@$BUN_VERSION" >&2; exit 1; }
}

install_deps() {
  echo "==> installing dependencies (bun install --frozen-lockfile)"
  (cd "$ROOT" && bun install --frozen-lockfile)
  # npm scripts put node_modules/.bin first on PATH, and bun-plugin-tailwind's peer dependency puts a Bun there: it
  # must be the pinned one (a devDependency of the same version), or builds and tests silently run on another Bun.
  local local_bun="$ROOT/node_modules/.bin/bun"
  if [ -x "$local_bun" ] && [ "$("$local_bun" --version)" != "$BUN_VERSION" ]; then
    echo "node_modules/.bin/bun is $("$local_bun" --version), not the pinned $BUN_VERSION: pin devDependencies.bun" >&2
    exit 1
  fi
}

# Browser tests use Debian's Chromium, never a browser downloaded by Playwright.
ensure_chromium() {
  if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then return; fi
  if command -v chromium >/dev/null 2>&1; then export CHROMIUM_PATH="$(command -v chromium)"; return; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing chromium from Debian"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    export CHROMIUM_PATH="$(command -v chromium)"
    return
  fi
  echo "Chromium is missing. Install it as root: apt-get install -y chromium (or set CHROMIUM_PATH)." >&2
  exit 1
}

# Stripe's Python library for api/src/stripe-compat.python.test.ts: Debian's python3-stripe, installed when root may
# (as Chromium is). Never fatal: without it that test skips and says why.
ensure_python_stripe() {
  if /usr/bin/python3 -c 'import stripe' >/dev/null 2>&1 || python3 -c 'import stripe' >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing python3-stripe from Debian (for the stripe-python compatibility test)"
    if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-stripe >/dev/null 2>&1 \
      || { DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-stripe >/dev/null 2>&1; }; then
      return 0
    fi
  fi
  echo "note: python3-stripe is not installed (apt-get install -y python3-stripe as root): the stripe-python test will skip." >&2
  return 0
}

# wrk, the HTTP load generator of bench:http: Debian's package, installed when root may (as Chromium is). Never fatal:
# without it the bench loads with its own Bun client and says so in its first lines. Called by scripts/bench.sh (the
# bench scripts' entry), never by the test command.
ensure_wrk() {
  if command -v wrk >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing wrk from Debian (the HTTP bench's load generator)"
    if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1 \
      || { DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1; }; then
      return 0
    fi
  fi
  echo "note: wrk is not installed (apt-get install -y wrk as root): the bench falls back to its Bun client." >&2
  return 0
}
