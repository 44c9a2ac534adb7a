#!/usr/bin/env bash
# Gives a build's ctest the times of its long tests before its first run. ctest starts the tests it
# knows to be long first (from Testing/Temporary/CTestCostData.txt, which it keeps from earlier
# runs); a fresh clone has no such file, so its long tests would start in declaration order and
# some would run last, alone, while the other core waits. tests/costs/<preset>.txt holds the
# tests of 2 s or more of a CI run (refresh it from a CI run's file when the slowest tests
# change: scripts/seed-test-costs.sh --refresh PRESET). A build that has run its tests keeps its
# own file. Usage: scripts/seed-test-costs.sh PRESET
set -euo pipefail
cd "$(dirname "$0")/.."
refresh=0
if [ "${1:-}" = --refresh ]; then refresh=1; shift; fi
preset="$1"
data="build/$preset/Testing/Temporary/CTestCostData.txt"
seed="tests/costs/$preset.txt"
if [ "$refresh" -eq 1 ]; then
  awk 'NF==3 && $3>=2.0 {printf "%s 1 %.1f\n", $1, $3}' "$data" | sort -k3 -rn >"$seed"
  echo "seed-test-costs: $(wc -l <"$seed") tests in $seed"
  exit 0
fi
[ -f "$seed" ] && [ ! -s "$data" ] || exit 0
mkdir -p "$(dirname "$data")"
{ cat "$seed"; echo "---"; } >"$data"
