#!/usr/bin/env bash
# The entry of the benches that load bpay over HTTP (package.json bench:http): the load generator first (wrk from
# Debian when it can be had, never fatal), then `bun <bench file> <its flags>`.
# Usage: bash scripts/bench.sh bench/http.ts [--runs=3] [--seconds=5] …
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ensure_bun
ensure_wrk
cd "$ROOT"
exec bun "$@"
