#!/usr/bin/env bash
# Whole-program parse throughput: `gpucost parse FILE` against `promtool check metrics < FILE`
# on the same generated file (dcgm-exporter + kube-state-metrics series, ~200 MB), in one run.
# Prints MB/s for both and the ratio. docs/perf.md records results.
#
#   scripts/bench-parse.sh                 build the release preset, generate, time
#   MB=50 scripts/bench-parse.sh           smaller file
#   BUILD=build/dev scripts/bench-parse.sh use an existing build folder instead
set -euo pipefail
cd "$(dirname "$0")/.."

mb="${MB:-200}"
build="${BUILD:-build/release}"
runs="${RUNS:-3}"
if [ -z "${BUILD:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target gpucost exposition_bench
fi
gpucost="${GPUCOST:-$build/src/cli/gpucost}"
bench="${BENCH:-$build/bench/exposition_bench}"
file="${FILE:-$build/bench-parse-${mb}mb.prom}"

if [ ! -s "$file" ]; then
  "$bench" --generate="$file" --mb="$mb"
fi
bytes=$(stat -c %s "$file")
cat "$file" >/dev/null  # warm the page cache so both tools read from memory

now() { date +%s.%N; }
mbps() { python3 -c "print(f'{$bytes / 1e6 / ($2 - $1):.1f}')"; }

# Check the output once: every non-comment line is a sample and none is malformed.
expected=$(grep -vc '^#' "$file")
summary=$("$gpucost" parse "$file" | grep '^total:')
echo "gpucost: $summary"
case "$summary" in
  *" $expected samples,"*"; 0 errors"*) ;;
  *) echo "bench-parse: expected $expected samples and no errors" >&2; exit 1 ;;
esac

best=""
for _ in $(seq "$runs"); do
  t0=$(now); "$gpucost" parse "$file" >/dev/null; t1=$(now)
  s=$(python3 -c "print($t1 - $t0)")
  if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $s < $best else 1)"; then best=$s; fi
done
gpucost_mbps=$(python3 -c "print(f'{$bytes / 1e6 / $best:.1f}')")

t0=$(now); promtool check metrics <"$file" >/dev/null 2>&1 || true; t1=$(now)
promtool_s=$(python3 -c "print($t1 - $t0)")
promtool_mbps=$(python3 -c "print(f'{$bytes / 1e6 / $promtool_s:.1f}')")

echo "file:     $file ($bytes bytes, $expected samples)"
echo "machine:  $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "gpucost:  $(printf '%.3f' "$best") s  $gpucost_mbps MB/s (best of $runs)"
echo "promtool: $(printf '%.3f' "$promtool_s") s  $promtool_mbps MB/s ($(promtool --version 2>&1 | head -1))"
echo "ratio:    $(python3 -c "print(f'{$gpucost_mbps / $promtool_mbps:.1f}')")x"
