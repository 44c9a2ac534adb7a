#!/usr/bin/env bash
# The web UI's overview of a 30-day window of the 1,000-node ledger of bench/ledger-month.sh,
# timed in Chromium from the page's request to its figures and chart drawn, through a read-only
# `gpucost serve` just started on the ledger (bench/ui_overview.mjs). docs/perf.md ("The web UI's
# overview of a month") records results.
#
#   DATA=/tmp/month bench/ui-overview.sh               the ledger there (made by ledger-month.sh
#                                                       when missing), release build
#   BUILD=build/dev DATA=/tmp/month RUNS=20 bench/ui-overview.sh
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD:-build/release}"
data="${DATA:-/tmp/gpucost-month}"
nodes="${NODES:-1000}"
days="${DAYS:-30}"
runs="${RUNS:-10}"
if [ -z "${BUILD:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target gpucost
fi
gpucost="$build/src/cli/gpucost"
modules="${MODULES:-build/dev/src/serve/ui/node_modules}"
[ -d "$modules/puppeteer-core" ] || { echo "no puppeteer-core in $modules (build the dev preset, or MODULES=)" >&2; exit 2; }
ledger="$data/costs-${nodes}x8-${days}d-1h.db"
if [ ! -s "$ledger" ]; then
  BUILD="$build" DATA="$data" NODES="$nodes" DAYS="$days" REQUESTS=1 bench/ledger-month.sh
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$gpucost" serve --ledger "$ledger" --read-only --price-per-gpu-hour 2.5 \
  --listen "127.0.0.1:$port" >"$data/ui-serve.log" 2>&1 &
serve=$!
trap 'kill $serve 2>/dev/null || true; wait 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 100); do curl -sf -o /dev/null "127.0.0.1:$port/healthz" && break; sleep 0.2; done
node bench/ui_overview.mjs --url "http://127.0.0.1:$port/#/overview?window=30d&by=team" \
  --modules "$modules" --runs "$runs" --chromium "$(command -v chromium)"
