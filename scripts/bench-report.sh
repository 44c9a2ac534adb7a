#!/usr/bin/env bash
# Whole `gpucost report` runs on generated clusters of 1, 10 and 100 nodes x 7 days (timestamped
# kube-state-metrics + dcgm-exporter text written by `gpucost simulate`, src/simulate/). Times each run with
# /usr/bin/time -v (wall time, peak RSS), checks the output once (allocated + idle = cost, cost =
# physical GPUs x price x hours, one row per namespace plus __idle__) and prints a table.
# docs/perf.md ("Whole report runs") records results.
#
#   scripts/bench-report.sh                     build the release preset, generate, run
#   BUILD=build/bench scripts/bench-report.sh   use an existing build folder instead
#   NODES="1 10" DAYS=7 INTERVAL=60 scripts/bench-report.sh
#   DATA=bench/data                             where the inputs go (kept between runs)
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD:-build/release}"
nodes_list="${NODES:-1 10 100}"
days="${DAYS:-7}"
interval="${INTERVAL:-60}"
seed="${SEED:-1}"
data="${DATA:-bench/data}"
price=2.5
if [ -z "${BUILD:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target gpucost
fi
gpucost="${GPUCOST:-$build/src/cli/gpucost}"
mkdir -p "$data"

rows=()
for n in $nodes_list; do
  base="$data/cluster-${n}n-${days}d-${interval}s-seed${seed}"
  file="$base.prom"
  meta="$base.meta"
  if [ ! -s "$file" ] || [ ! -s "$meta" ]; then
    echo "generating $file" >&2
    t0=$(date +%s.%N)
    "$gpucost" simulate --nodes "$n" --duration "${days}d" --scrape-interval "${interval}s" \
      --seed "$seed" --format prom --out "$file" 2>"$meta.tmp"
    t1=$(date +%s.%N)
    mv "$meta.tmp" "$meta"
    echo "  $(python3 -c "print(f'{$t1 - $t0:.1f}')") s" >&2
  fi
  # shellcheck disable=SC1090
  . <(sed 's/^/m_/' "$meta")
  bytes=$(stat -c %s "$file")

  out="$base.report.json"
  timing="$base.time.txt"
  /usr/bin/time -v "$gpucost" report --input "$file" --by namespace \
    --price-per-gpu-hour "$price" --format json >"$out" 2>"$timing"
  wall=$(python3 - "$timing" <<'EOF'
import sys
for line in open(sys.argv[1]):
    if "Elapsed (wall clock)" in line:
        t = line.rsplit(" ", 1)[1].strip().split(":")
        s = 0.0
        for part in t:
            s = s * 60 + float(part)
        print(f"{s:.2f}")
EOF
)
  rss_kb=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$timing")

  # Check the output: conservation, expected cost, rows.
  python3 - "$out" "$m_gpus" "$price" "$m_start" "$m_end" "$m_namespaces" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
gpus, price, start, end, namespaces = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
t = doc["totals"]
hours = (end - start) / 3600
want = gpus * price * hours
ok = True
def check(cond, what):
    global ok
    if not cond:
        ok = False
        print(f"bench-report: {sys.argv[1]}: {what}", file=sys.stderr)
check(t["cost_usd"] > 0, f"cost_usd {t['cost_usd']} not > 0")
check(abs(t["allocated_usd"] + t["idle_usd"] - t["cost_usd"]) <= 1e-9 * t["cost_usd"],
      f"allocated {t['allocated_usd']} + idle {t['idle_usd']} != cost {t['cost_usd']}")
check(abs(t["cost_usd"] - want) <= 1e-6 * want,
      f"cost_usd {t['cost_usd']} != {gpus} GPUs x {price} x {hours} h = {want}")
rows = doc["rows"]
names = [r["namespace"] for r in rows]
check(len(rows) == namespaces + 1 and names[-1] == "__idle__",
      f"{len(rows)} rows ({names}), want {namespaces} namespaces + __idle__")
check(abs(sum(r.get("allocated_usd", 0) for r in rows) - t["allocated_usd"]) <= 1e-9 * t["cost_usd"],
      "rows do not add up to totals.allocated_usd")
if not ok:
    sys.exit(1)
EOF

  row=$(python3 -c "
b, s, w, r = $bytes, $m_samples, $wall, $rss_kb
print(f'$n|$m_gpus|$m_units|{b / 1e9:.2f} GB|{s / 1e6:.1f} M|{w:.1f}|{b / 1e6 / w:.0f}|{s / 1e6 / w:.2f} M|{r / 1024:.0f} MB|{r * 1024 / s:.0f}')")
  rows+=("$row")
  echo "checked: $out (cost = $m_gpus GPUs x \$$price x $(( (m_end - m_start) / 3600 )) h, allocated + idle = cost)" >&2
done

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "inputs:  $days days, scrapes every ${interval} s, seed $seed"
echo
echo "| nodes | GPUs | units | file | samples | wall s | MB/s | samples/s | peak RSS | RSS bytes/sample |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  echo "| ${row//|/ | } |"
done
