#!/usr/bin/env bash
# README command 1: install what is needed, build the web app, apply migrations and start bpay on one port.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_bun
install_deps
echo "==> building the web app"
bun run build:web
echo "==> building the browser extension (served at /downloads/bpay-extension.zip)"
bun run build:extension
echo "==> starting bpay (migrations apply at start)"
# server.ts sets the same umask itself; set here too so nothing the process starts with is created readable by others.
umask 077
exec bun --max-http-header-size=262144 api/src/server.ts
