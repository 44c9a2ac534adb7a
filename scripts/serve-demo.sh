#!/usr/bin/env bash
# `make serve-demo`: gpucost serve on a live simulated cluster, end to end on one machine.
#   - `gpucost simulate --serve` plays a 20-node cluster's kube-state-metrics and dcgm-exporter;
#   - `gpucost serve` scrapes both every 15 s, attributes every 30 s into a SQLite ledger, and
#     serves the web UI, /metrics, /api/v1/report and /allocation on 127.0.0.1:9464;
#   - a local Prometheus (Debian's package) receives the cost series by remote-write on :9095.
# Ctrl-C stops all three. Everything lives in a temporary folder (kept with KEEP=1).
# `serve-demo.sh --print-commands` prints the commands to try and exits (the tests run them).
set -euo pipefail

bin=${GPUCOST:-build/release/src/cli/gpucost}
serve_port=${SERVE_PORT:-9464}
sim_port=${SIM_PORT:-9466}
prom_port=${PROM_PORT:-9095}

# The commands to try, one a line, each as it can be pasted into a shell; with PromQL's spaces
# and parentheses URL-encoded by curl (-G --data-urlencode), not left raw in the URL. $1: 1 when
# Prometheus runs.
print_commands() {
  echo "  curl -s localhost:$serve_port/metrics | grep gpucost_allocated_usd_total"
  echo "  curl -s 'localhost:$serve_port/api/v1/report?by=team'"
  echo "  curl -s 'localhost:$serve_port/allocation?window=1h&aggregate=namespace'"
  if [ "$1" = 1 ]; then
    echo "  curl -s -G localhost:$prom_port/api/v1/query" \
      "--data-urlencode 'query=sum by (team) (gpucost_allocated_usd_total)'"
  fi
}
if [ "${1:-}" = --print-commands ]; then
  print_commands 1
  exit 0
fi
dir=$(mktemp -d -t gpucost-serve-demo-XXXXXX)
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT INT TERM

"$bin" simulate --nodes 20 --seed 7 --scrape-interval 15s --serve "127.0.0.1:$sim_port" \
  >"$dir/simulate.log" 2>&1 &
pids+=($!)

remote_write=()
if command -v prometheus >/dev/null; then
  printf 'global:\n  scrape_interval: 15s\n' >"$dir/prometheus.yml"
  prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" --web.enable-remote-write-receiver \
    >"$dir/prometheus.log" 2>&1 &
  pids+=($!)
  remote_write=(--remote-write "http://127.0.0.1:$prom_port/api/v1/write")
fi

sleep 1
"$bin" serve --ledger "$dir/costs.db" --price-per-gpu-hour 2.5 \
  --scrape "kube-state-metrics=http://127.0.0.1:$sim_port/metrics/kube-state-metrics" \
  --scrape "dcgm-exporter=http://127.0.0.1:$sim_port/metrics/dcgm-exporter" \
  --scrape-interval 15s --interval 30s --step 30s --lag 30s --grace 2m \
  --listen "127.0.0.1:$serve_port" "${remote_write[@]}" >"$dir/serve.log" 2>&1 &
pids+=($!)

cat <<MSG
gpucost serve is attributing a simulated 20-node cluster (logs in $dir). Costs appear after
the first minute.

The web UI: http://127.0.0.1:$serve_port/

Or try:

MSG
print_commands "$([ "${#remote_write[@]}" -gt 0 ] && echo 1 || echo 0)"
echo
echo "Ctrl-C stops it."
wait "${pids[-1]}"
