#!/usr/bin/env bash
# A month of a large cluster in the ledger, and the 30-day namespace report from it, through the
# CLI and through `gpucost serve`'s API, with and without the hourly and daily roll-ups.
#
# The ledger is filled day by day from one snapshot of a simulated cluster (NODES x GPUS; the
# snapshot's timestamps moved to the first and last minute of each day, --staleness 1d) at STEP
# steps; `ledger write` rolls each written day up. A month of 60 s steps for 1,000 nodes is
# ~770 M records, beyond what this script can write in reasonable time; the roll-ups a report
# reads are the same rows at any step (one per unit, holder and day), so STEP changes what the
# --no-rollups read costs, not what the roll-up read costs. docs/perf.md ("The cost ledger")
# records results.
#
#   bench/ledger-month.sh                              release build, 1000 nodes x 8 GPUs, 30 d, 1 h
#   BUILD=build/dev NODES=100 DAYS=7 bench/ledger-month.sh
#   DATA=/tmp/month bench/ledger-month.sh              keep (and reuse) the ledger there
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD:-build/release}"
nodes="${NODES:-1000}"
gpus="${GPUS:-8}"
days="${DAYS:-30}"
step="${STEP:-1h}"
requests="${REQUESTS:-30}"
if [ -z "${BUILD:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target gpucost
fi
gpucost="$build/src/cli/gpucost"
if [ -n "${DATA:-}" ]; then
  dir="$DATA"
  mkdir -p "$dir"
else
  dir=$(mktemp -d -t gpucost-ledger-month-XXXXXX)
fi
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "${DATA:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT INT TERM

ledger="$dir/costs-${nodes}x${gpus}-${days}d-${step}.db"
t0=1790812800  # 2026-10-01T00:00:00Z, where the simulator starts
if [ ! -s "$ledger" ]; then
  "$gpucost" simulate --nodes "$nodes" --gpus-per-node "$gpus" --duration 60s \
    --scrape-interval 60s --out "$dir/snapshot.om" >/dev/null
  start=$(date +%s.%N)
  for d in $(seq 0 $((days - 1))); do
    ts=$((t0 + d * 86400))
    # The snapshot at the day's start and again at its last minute: the cluster holds still.
    {
      sed -E -e '/^# EOF/d' -e "s/ ${t0}\$/ ${ts}/" "$dir/snapshot.om"
      grep -v '^#' "$dir/snapshot.om" | sed -E "s/ ${t0}\$/ $((ts + 86340))/"
      echo "# EOF"
    } >"$dir/day.om"
    "$gpucost" ledger write "$ledger.tmp" --input "$dir/day.om" --window "$ts,$((ts + 86400))" \
      --step "$step" --staleness 1d --price-per-gpu-hour 2.5 >"$dir/write.log" 2>&1 ||
      { cat "$dir/write.log"; exit 1; }
  done
  mv "$ledger.tmp" "$ledger"
  rm -f "$dir/day.om" "$dir/snapshot.om"
  echo "filled in $(echo "$(date +%s.%N) - $start" | bc) s"
fi
"$gpucost" ledger info "$ledger"
sqlite3 "$ledger" "SELECT 'roll-up rows, ' || (period_ms / 3600000) || ' h periods: ' || COUNT(*) FROM rollups GROUP BY period_ms"
echo "file: $(du -b "$ledger" | cut -f1) bytes"

window="$t0,$((t0 + days * 86400))"
percentiles() {  # seconds on stdin -> "p50 X ms, p99 Y ms (N)"
  sort -n | awk '{v[NR]=$1} END {i50=int((NR-1)*0.5)+1; i99=int((NR-1)*0.99)+1;
    printf "p50 %.0f ms, p99 %.0f ms (%d runs)\n", v[i50]*1000, v[i99]*1000, NR}'
}
cli() {  # runs the report N times with extra flags: "wall-seconds peak-RSS-KB" lines
  local n=$1; shift
  for _ in $(seq "$n"); do
    /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$gpucost" report --ledger "$ledger" \
      --window "$window" --accumulate --by namespace --format json "$@" >"$dir/report.json"
    cat "$dir/time.txt"
  done
}
summary() {  # "wall-seconds peak-RSS-KB" lines -> percentiles and the largest RSS
  echo "$(cut -d' ' -f1 "$1" | percentiles), peak RSS $(sort -n -k2 "$1" | tail -1 | awk '{print int($2/1024)}') MB"
}
cli 10 >"$dir/cli-rolled.txt"
cp "$dir/report.json" "$dir/rolled.json"
cli 3 --no-rollups >"$dir/cli-records.txt"
echo "CLI, roll-ups:     $(summary "$dir/cli-rolled.txt")"
echo "CLI, every record: $(summary "$dir/cli-records.txt")"
python3 - "$dir/rolled.json" "$dir/report.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("cost_usd", "allocated_usd", "effective_usd", "waste_usd", "utilization"):
    x, y = a["totals"][k], b["totals"][k]
    assert abs(x - y) <= 1e-9 * max(1, abs(x)), (k, x, y)
assert len(a["rows"]) == len(b["rows"])
print("the two reports agree (totals to 1e-9, %d rows)" % len(a["rows"]))
EOF

# The API: serve on the ledger (its source is unreachable, so it only answers).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$gpucost" serve --ledger "$ledger" --price-per-gpu-hour 2.5 --read-only \
  --listen "127.0.0.1:$port" >"$dir/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf -o /dev/null "127.0.0.1:$port/healthz" && break; sleep 0.2; done
api() {
  for _ in $(seq "$1"); do
    curl -sf -o /dev/null -w '%{time_total}\n' \
      "127.0.0.1:$port/api/v1/report?by=namespace&window=$window$2"
  done
}
api 2 "" >/dev/null  # warm the page cache
echo "API, roll-ups:     $(api "$requests" "" | percentiles)"
echo "API, every record: $(api 3 "&rollups=false" | percentiles)"
