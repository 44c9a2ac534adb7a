#!/usr/bin/env bash
# Runs one step of the build or the tests and says how long it took: "phase NAME: N s". With
# GPUCOST_PHASE_LOG set, also appends "NAME N" there (.ci/run sums the steps and guards the total).
set -uo pipefail
name="$1"
shift
start=$(date +%s%N)
"$@"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
secs=$(printf '%d.%01d' $((ms / 1000)) $((ms % 1000 / 100)))
echo "phase $name: $secs s$([ "$rc" -ne 0 ] && echo " (failed, exit $rc)")"
if [ -n "${GPUCOST_PHASE_LOG:-}" ]; then
  echo "$name $secs" >>"$GPUCOST_PHASE_LOG"
fi
exit "$rc"
