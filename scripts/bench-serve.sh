#!/usr/bin/env bash
# `gpucost serve` in steady state on a large simulated cluster, scraped directly: the
# kube-state-metrics and dcgm-exporter endpoints of a `gpucost simulate` cluster of NODES nodes x
# GPUS GPUs, scraped every 30 s, attributed every minute into a SQLite ledger. After a warm-up it
# samples serve's CPU time and RSS from /proc for MEASURE seconds, the growth of the ledger and
# of the scrape spool, and the latency of /api/v1/report?by=namespace over everything the ledger
# holds. docs/perf.md ("gpucost serve in steady state") records results.
#
#   scripts/bench-serve.sh                         release build, 1000 nodes x 8 GPUs
#   BUILD=build/dev NODES=100 WARMUP=120 MEASURE=300 scripts/bench-serve.sh
#   GRACE=0s STALENESS=2m scripts/bench-serve.sh   tuned for a scrape source
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD:-build/release}"
nodes="${NODES:-1000}"
gpus="${GPUS:-8}"
warmup="${WARMUP:-240}"
measure="${MEASURE:-600}"
requests="${REQUESTS:-40}"
grace="${GRACE:-auto}"         # serve's default: 0s for a scrape source, which has no late data
staleness="${STALENESS:-5m}"
if [ -z "${BUILD:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target gpucost
fi
gpucost="$build/src/cli/gpucost"
dir=$(mktemp -d -t gpucost-bench-serve-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
sim_port=$(free_port)
port=$(free_port)

# One snapshot of the simulated cluster's exporters, served as static files: generating a
# 1,000-node scrape live takes the simulator longer than a scrape interval on a small machine,
# and serve's work is the same for a cluster that holds still.
"$gpucost" simulate --nodes "$nodes" --gpus-per-node "$gpus" --scrape-interval 30s \
  --serve "127.0.0.1:$sim_port" >"$dir/simulate.log" 2>&1 &
sim=$!
mkdir -p "$dir/exporters/metrics"
for _ in $(seq 600); do curl -sf -o /dev/null "127.0.0.1:$sim_port/metrics/dcgm-exporter" && break; sleep 0.5; done
curl -sf -o "$dir/exporters/metrics/kube-state-metrics" "127.0.0.1:$sim_port/metrics/kube-state-metrics"
curl -sf -o "$dir/exporters/metrics/dcgm-exporter" "127.0.0.1:$sim_port/metrics/dcgm-exporter"
kill "$sim"; wait "$sim" 2>/dev/null || true
ksm_bytes=$(wc -c <"$dir/exporters/metrics/kube-state-metrics")
dcgm_bytes=$(wc -c <"$dir/exporters/metrics/dcgm-exporter")
python3 -m http.server --bind 127.0.0.1 --directory "$dir/exporters" "$sim_port" \
  >"$dir/exporters.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf -o /dev/null "127.0.0.1:$sim_port/metrics/dcgm-exporter" && break; sleep 0.2; done

"$gpucost" serve --ledger "$dir/costs.db" --price-per-gpu-hour 2.5 \
  --scrape "kube-state-metrics=http://127.0.0.1:$sim_port/metrics/kube-state-metrics" \
  --scrape "dcgm-exporter=http://127.0.0.1:$sim_port/metrics/dcgm-exporter" \
  --scrape-interval 30s --scrape-timeout 25s --interval 1m --step 1m --lag 1m --grace "$grace" \
  --staleness "$staleness" \
  --listen "127.0.0.1:$port" >"$dir/serve.log" 2>&1 &
serve=$!
pids+=($serve)

ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$serve/stat"; }
ledger_bytes() { du -cb "$dir"/costs.db "$dir"/costs.db-wal 2>/dev/null | tail -1 | cut -f1; }
records() { "$gpucost" ledger info --format json "$dir/costs.db" | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])'; }
spool_bytes() { du -sb "$dir/costs.db.scrape" | cut -f1; }

sleep "$warmup"
records0=$(records); cpu0=$(cpu); ledger0=$(ledger_bytes); spool0=$(spool_bytes); t0=$(date +%s.%N)
rss_max=0; rss_sum=0; samples=0
end=$(( $(date +%s) + measure ))
while [ "$(date +%s)" -lt "$end" ]; do
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$serve/status")
  rss_sum=$((rss_sum + rss)); samples=$((samples + 1))
  [ "$rss" -gt "$rss_max" ] && rss_max=$rss
  sleep 5
done
cpu1=$(cpu); ledger1=$(ledger_bytes); spool1=$(spool_bytes); t1=$(date +%s.%N); records1=$(records)
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$serve/status")

for _ in $(seq "$requests"); do
  curl -s -o /dev/null -w '%{time_total}\n' "127.0.0.1:$port/api/v1/report?by=namespace"
done | sort -n >"$dir/latency"

python3 - "$cpu0" "$cpu1" "$ticks" "$t0" "$t1" "$rss_max" "$rss_sum" "$samples" "$hwm" \
  "$ledger0" "$ledger1" "$spool0" "$spool1" "$dir/latency" "$records1" "$nodes" "$gpus" \
  "$ksm_bytes" "$dcgm_bytes" "$records0" "$grace" "$staleness" <<'PY'
import sys
a = sys.argv[1:]
cpu0, cpu1, ticks = float(a[0]), float(a[1]), float(a[2])
t0, t1 = float(a[3]), float(a[4])
secs = t1 - t0
lat = [float(x) for x in open(a[13]) if x.strip()]
def q(p): return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000
day = 86400 / secs
print(f"cluster: {a[15]} nodes x {a[16]} GPUs; scrapes of {int(a[17])/1e6:.1f} MB (kube-state-metrics) "
      f"+ {int(a[18])/1e6:.1f} MB (dcgm-exporter) every 30 s")
print(f"measured over {secs:.0f} s after warm-up, serve --grace {a[20]} --staleness {a[21]}")
print(f"CPU: {100 * (cpu1 - cpu0) / ticks / secs:.1f}% of one core")
print(f"RSS: mean {int(a[6]) / int(a[7]) / 1024:.0f} MiB, max sampled {int(a[5]) / 1024:.0f} MiB, peak (VmHWM) {int(a[8]) / 1024:.0f} MiB")
added = int(a[14]) - int(a[19])
per_record = int(a[10]) / int(a[14])  # the file and its log over what they hold
print(f"ledger: {int(a[14])} records, {per_record:.0f} B/record; {added / secs * 60:.0f} records/min, "
      f"growth {added * day * per_record / 1e9:.2f} GB/day")
print(f"spool growth: {(int(a[12]) - int(a[11])) * day / 1e9:.1f} GB/day")
print(f"/api/v1/report?by=namespace over the whole ledger: p50 {q(0.5):.0f} ms, p99 {q(0.99):.0f} ms ({len(lat)} requests)")
PY
