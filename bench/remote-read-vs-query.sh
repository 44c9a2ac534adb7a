#!/usr/bin/env bash
# Remote read against the query API on the same TSDB and window: a generated cluster
# (`gpucost simulate --format prom`, docs/simulate.md) imported into a real Prometheus with
# promtool, then
# `gpucost report --prometheus` with --prometheus-api remote-read and query, and --input on the
# same file, each timed with /usr/bin/time -v (wall, peak RSS) while Prometheus' CPU time
# (/proc/<pid>/stat) is read before and after each run. All three reports must be equal (every
# number to 1e-9 relative). docs/perf.md ("Remote read") records results.
#
#   bench/remote-read-vs-query.sh                       release preset, 10 nodes x 1 day, 60 s
#   BUILD=build/bench NODES=10 DAYS=1 CHUNK=2h bench/remote-read-vs-query.sh
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD:-build/release}"
nodes="${NODES:-10}"
days="${DAYS:-1}"
interval="${INTERVAL:-60}"
chunk="${CHUNK:-2h}"
data="${DATA:-bench/data}"
if [ -z "${BUILD:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target gpucost
fi
gpucost="$build/src/cli/gpucost"
mkdir -p "$data"
base="$data/cluster-${nodes}n-${days}d-${interval}s-seed1"
if [ ! -s "$base.prom" ] || [ ! -s "$base.meta" ]; then
  "$gpucost" simulate --nodes "$nodes" --duration "${days}d" --scrape-interval "${interval}s" \
    --seed 1 --format prom --out "$base.prom" 2>"$base.meta"
fi
# shellcheck disable=SC1090
. <(sed 's/^/m_/' "$base.meta")

work=$(mktemp -d)
prom_pid=""
cleanup() {
  if [ -n "$prom_pid" ]; then kill "$prom_pid" 2>/dev/null || true; wait "$prom_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Prometheus text (ms timestamps) -> OpenMetrics (second timestamps) for promtool.
awk '!/^#/ && NF { ms = $NF; $NF = sprintf("%d.%03d", int(ms / 1000), ms % 1000); print } END { print "# EOF" }' \
  "$base.prom" >"$work/in.om"
t0=$(date +%s.%N)
promtool tsdb create-blocks-from openmetrics "$work/in.om" "$work/tsdb" >/dev/null
t1=$(date +%s.%N)
rm "$work/in.om"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 1h\n' >"$work/prometheus.yml"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
  >"$work/prometheus.log" 2>&1 &
prom_pid=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break
  sleep 0.2
done
url="http://127.0.0.1:$port"
window="$m_start,$m_end"
flags="--window $window --by namespace --accumulate --price-per-gpu-hour 2.5 --format json"

prom_cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$prom_pid/stat"; }
wall_of() {
  awk '/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }' "$1"
}
rss_of() { awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); printf "%d", $2 / 1024 }' "$1"; }

echo "samples=$m_samples window=$window chunk=$chunk import=$(python3 -c "print(f'{$t1 - $t0:.1f}')")s" >&2
printf '| source | wall s | gpucost user+sys s | gpucost peak RSS MB | Prometheus CPU s |\n|---|---|---|---|---|\n'
for mode in query remote-read query remote-read file; do
  before=$(prom_cpu)
  if [ "$mode" = file ]; then
    src="--input $base.prom"
  else
    src="--prometheus $url --prometheus-api $mode --prometheus-chunk $chunk"
  fi
  # shellcheck disable=SC2086
  /usr/bin/time -v "$gpucost" report $src $flags >"$work/$mode.json" 2>"$work/$mode.time"
  after=$(prom_cpu)
  cpu=$(awk '/User time|System time/ { s += $NF } END { printf "%.2f", s }' "$work/$mode.time")
  printf '| %s | %s | %s | %s | %s |\n' "$mode" "$(wall_of "$work/$mode.time")" "$cpu" \
    "$(rss_of "$work/$mode.time")" "$(python3 -c "print(f'{$after - $before:.2f}')")"
done
python3 - "$work" <<'PY'
import json, sys
d = sys.argv[1]
docs = {m: json.load(open(f"{d}/{m}.json")) for m in ("query", "remote-read", "file")}
def same(a, b, where):
    if isinstance(b, dict):
        for k in b:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(b, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(b, float) or isinstance(a, float):
        assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), f"{where}: {a} != {b}"
    else:
        assert a == b, f"{where}: {a} != {b}"
for m in ("query", "remote-read"):
    same(docs[m]["rows"], docs["file"]["rows"], m)
    same(docs[m]["totals"], docs["file"]["totals"], m)
print("reports equal: query = remote-read = file", file=sys.stderr)
PY
