#!/usr/bin/env bash
# The PromQL showdown: on the same TSDB, real Prometheus answering "allocated, effective and
# waste per namespace" with query_range (the AWS recipe's PromQL and the per-pod-join PromQL a
# careful engineer writes) against `gpucost report --prometheus` and `gpucost report --input` on
# the same data, for several cluster sizes and windows. Records wall time, peak RSS of both
# processes and Prometheus' failures (max-samples, timeouts). docs/perf.md ("The PromQL
# showdown") records results. Runs on a fresh Debian 12 machine after `make deps`.
#
#   bench/showdown.sh                              release build, 2/20/100 nodes x 1/7/30 days
#   BUILD=build/dev SCALES="2 20" DAYS="1 7" bench/showdown.sh
#   INTERVAL=120 (scrape interval and query step, s)   DATA=bench/data/showdown (kept)
#   QUERY_TIMEOUT=2m (Prometheus --query.timeout, its default)
#
# Data: `gpucost simulate --gpu-models a100-80gb:3,h100-80gb:1` (8-GPU nodes; the default sharing
# mix: whole, MIG, time-slicing, MPS, HAMi), seed 1, from 2026-10-01. One file per window (the
# shorter ones are prefixes of the longest: the simulator is deterministic); the longest is
# imported with promtool into one TSDB per scale. Every engine answers for
# [start, start + days), step = the scrape interval.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD:-build/release}"
scales="${SCALES:-2 20 100}"
days_list="${DAYS:-1 7 30}"
interval="${INTERVAL:-120}"
data="${DATA:-bench/data/showdown}"
query_timeout="${QUERY_TIMEOUT:-2m}"
price=2.5
start=1790812800
if [ -z "${BUILD:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target gpucost
fi
gpucost="$(pwd)/$build/src/cli/gpucost"
max_days=$(printf '%s\n' $days_list | sort -n | tail -1)
mkdir -p "$data"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
seconds() {  # "Elapsed (wall clock)" of /usr/bin/time -v
  awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$1"
}
rss_mb() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$1"; }
cpu_s() {  # user + system CPU seconds a process has used (/proc/PID/stat)
  awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$1/stat"
}

rows=()
for n in $scales; do
  dir="$data/n$n-${interval}s"
  mkdir -p "$dir"
  for d in $days_list; do
    f="$dir/d$d.om"
    if [ ! -s "$f" ] || [ ! -s "$f.meta" ]; then
      echo "simulate: $n nodes, $d days -> $f" >&2
      "$gpucost" simulate --nodes "$n" --gpu-models a100-80gb:3,h100-80gb:1 --seed 1 \
        --duration "${d}d" --scrape-interval "${interval}s" --out "$f" 2>"$f.meta.tmp"
      mv "$f.meta.tmp" "$f.meta"
    fi
  done
  tsdb="$dir/tsdb-${max_days}d"
  if [ ! -e "$tsdb.imported" ]; then
    rm -rf "$tsdb"
    echo "promtool: importing $dir/d$max_days.om" >&2
    /usr/bin/time -v promtool tsdb create-blocks-from openmetrics --max-block-duration=576h -q \
      "$dir/d$max_days.om" "$tsdb" >/dev/null 2>"$tsdb.import.time"
    echo "import_s=$(seconds "$tsdb.import.time") import_rss_mb=$(rss_mb "$tsdb.import.time") tsdb_mb=$(du -sm "$tsdb" | cut -f1)" >"$tsdb.imported"
  fi
  port=$(free_port)
  printf 'global:\n  scrape_interval: 1h\n' >"$dir/prometheus.yml"
  prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$tsdb" \
    --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
    --query.timeout="$query_timeout" >"$dir/prometheus.log" 2>&1 &
  prom_pid=$!
  trap 'kill $prom_pid 2>/dev/null || true' EXIT
  url="http://127.0.0.1:$port"
  for _ in $(seq 600); do curl -sf "$url/-/ready" >/dev/null 2>&1 && break; sleep 0.2; done
  gpus=$(sed -n 's/^gpus=//p' "$dir/d$max_days.om.meta")
  samples_max=$(sed -n 's/^samples=//p' "$dir/d$max_days.om.meta")

  for d in $days_list; do
    end=$((start + d * 86400))
    f="$dir/d$d.om"
    samples=$(sed -n 's/^samples=//p' "$f.meta")
    common=(--window "$start,$end" --by namespace --accumulate --price-per-gpu-hour "$price"
            --step "${interval}s" --format json)
    results=()
    for style in recipe join; do
      python3 bench/showdown_promql.py --url "$url" --pid "$prom_pid" --start "$start" --end "$end" \
        --step "$interval" --price "$price" --style "$style" >"$dir/d$d.$style.json"
      results+=("$(python3 -c "
import json; r = json.load(open('$dir/d$d.$style.json'))
print(f\"{r['wall_s']:.2f} s, {r['prometheus_peak_rss_kb'] / 1024:.0f} MB\" if r['ok'] else 'FAILED after ' + f\"{r['wall_s']:.1f} s: \" + r['error'][:120].replace('|', '/'))")")
    done
    # gpucost from Prometheus: Prometheus' peak RSS while gpucost reads, and gpucost's own.
    # Prometheus' CPU while it serves gpucost: its own read path, a floor under gpucost's time.
    echo 5 >"/proc/$prom_pid/clear_refs" 2>/dev/null || true
    cpu_before=$(cpu_s "$prom_pid")
    /usr/bin/time -v "$gpucost" report --prometheus "$url" "${common[@]}" >"$dir/d$d.api.json" 2>"$dir/d$d.api.time"
    prom_rss=$(awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$prom_pid/status")
    prom_cpu=$(python3 -c "print(f'{$(cpu_s "$prom_pid") - $cpu_before:.2f}')")
    # The same, the window read at once rather than in segments (--segment 0): memory.
    /usr/bin/time -v "$gpucost" report --prometheus "$url" --segment 0 "${common[@]}" >"$dir/d$d.api0.json" 2>"$dir/d$d.api0.time"
    cat "$f" >/dev/null  # the file from the page cache, as Prometheus reads its TSDB
    /usr/bin/time -v "$gpucost" report --input "$f" "${common[@]}" >"$dir/d$d.file.json" 2>"$dir/d$d.file.time"
    # Checks: the two gpucost reports agree; allocated + idle = cost = GPUs x price x hours.
    python3 - "$dir/d$d.api.json" "$dir/d$d.file.json" "$gpus" "$price" "$d" "$dir/d$d.api0.json" <<'PY'
import json, sys
api, fil = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
gpus, price, days = int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
whole = json.load(open(sys.argv[6]))
# Read a day at a time or at once: the same rows.
rows = {r["namespace"]: r for r in whole["rows"]}
assert len(rows) == len(api["rows"])
for r in api["rows"]:
    w = rows[r["namespace"]]
    for k in ("gpu_hours", "allocated_usd", "effective_usd", "idle_usd"):
        if isinstance(w.get(k), float):
            assert abs(r[k] - w[k]) <= 1e-9 * max(1, abs(w[k])), (r["namespace"], k, r[k], w[k])
want = gpus * price * 24 * days
for doc in (api, fil):
    t = doc["totals"]
    assert abs(t["cost_usd"] - want) <= 1e-6 * want, (t["cost_usd"], want)
    assert abs(t["allocated_usd"] + t["idle_usd"] - t["cost_usd"]) <= 1e-9 * want
for k in ("allocated_usd", "effective_usd", "idle_usd"):
    assert abs(api["totals"][k] - fil["totals"][k]) <= 1e-9 * want, k
assert len(api["rows"]) == len(fil["rows"])
PY
    api_s=$(seconds "$dir/d$d.api.time"); file_s=$(seconds "$dir/d$d.file.time")
    join_s=$(python3 -c "import json; r=json.load(open('$dir/d$d.join.json')); print(r['wall_s'] if r['ok'] else '')")
    ratio=$( [ -n "$join_s" ] && python3 -c "print(f'{$join_s / $api_s:.1f}x / {$join_s / $file_s:.1f}x')" || echo "-")
    rows+=("$n | $gpus | $d | $(python3 -c "print(f'{$samples/1e6:.1f} M')") | ${results[0]} | ${results[1]} | $api_s s, $(rss_mb "$dir/d$d.api.time") MB (Prometheus $prom_rss MB, $prom_cpu s CPU) | $(seconds "$dir/d$d.api0.time") s, $(rss_mb "$dir/d$d.api0.time") MB | $file_s s, $(rss_mb "$dir/d$d.file.time") MB | $ratio")
    echo "done: $n nodes, $d days" >&2
  done
  kill "$prom_pid"; wait "$prom_pid" 2>/dev/null || true
  trap - EXIT
  echo "tsdb n$n: $(cat "$tsdb.imported") samples=$samples_max" >&2
done

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(prometheus --version 2>&1 | head -1)"
echo "data: scrapes and query step every ${interval} s, seed 1, price \$$price/GPU-hour"
echo
echo "| nodes | GPUs | days | samples | Prometheus recipe PromQL | Prometheus per-pod join | gpucost --prometheus (in segments) | the same, --segment 0 (at once) | gpucost --input | join ÷ gpucost (api / file) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for row in "${rows[@]}"; do echo "| $row |"; done
