#!/usr/bin/env bash
# CUR import throughput and peak memory: generates a legacy CUR of ~1 M rows (125 p5.48xlarge
# nodes x 730 hours x 11 rows: instance usage, 8 EKS split rows, EBS, data transfer), plain and
# gzip, and imports each with /usr/bin/time. docs/perf.md records results.
#
#   scripts/bench-cur.sh                    build the release preset, generate, time
#   BUILD=build/dev scripts/bench-cur.sh    use an existing build folder instead
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD:-build/release}"
runs="${RUNS:-3}"
if [ -z "${BUILD:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target cur_load
fi
tool="$build/bench/cur_load"
for file in "$build/bench-cur-1m.csv" "$build/bench-cur-1m.csv.gz"; do
  [ -s "$file" ] || "$tool" --generate="$file"
  cat "$file" >/dev/null  # page cache
  echo "file: $file ($(stat -c %s "$file") bytes)"
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "  wall %e s, user %U s, sys %S s, peak RSS %M KB" "$tool" "$file"
  done
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
