#!/usr/bin/env bash
# `make test` after the dev build: the dev tests, the same tests under ASan+UBSan (clang), and each
# fuzz target on its committed corpus and then for FUZZ_SECONDS of new inputs.
#
# The tests leave part of the two cores idle while they wait on the servers and processes they
# start (the dev tests use about 1.4 of 2 cores, the ASan tests 1.8), and the builds fill both.
# So the ASan build runs beside the dev tests and the fuzz build beside the ASan tests, at the
# lowest CPU priority (nice 19): they take the cycles the tests leave and yield the rest at once.
# Each build is waited for before its tests run; the time spent waiting is its step "wait-NAME"
# (docs/perf.md, "CI"). A failed step stops the build beside it and fails the whole. The build
# stays in this script's session and process group: a new session (setsid) would get a
# scheduling group of its own where the kernel groups by session (sched_autogroup, on by
# default), and take half the cores whatever its nice; and whoever stops this run's process
# group stops the build too.
set -euo pipefail
cd "$(dirname "$0")/.."
phase=scripts/phase.sh
jobs="${JOBS:-$(nproc)}"
fuzz_seconds="${FUZZ_SECONDS:-12}"
logs=$(mktemp -d)
beside=""
# The build's processes, parents before children, all stopped at once.
tree() {
  local child
  echo "$1"
  for child in $(pgrep -P "$1"); do tree "$child"; done
}
stop_beside() {
  if [ -n "$beside" ]; then
    # shellcheck disable=SC2046  # one pid per word
    kill $(tree "$beside") 2>/dev/null || true
  fi
  rm -rf "$logs"
}
trap stop_beside EXIT

# Starts a build beside what follows; its output goes to a log that is printed when it fails.
start_beside() {
  local name="$1"
  shift
  nice -n 19 "$phase" "$name" "$@" >"$logs/$name.log" 2>&1 </dev/null &
  beside=$!
}
# Waits for the build beside, timed as wait-NAME; prints its phase line, or its log's end and
# fails when it failed.
wait_beside() {
  local name="$1" start rc=0
  start=$(date +%s%N)
  wait "$beside" || rc=$?
  beside=""
  local ms=$((($(date +%s%N) - start) / 1000000))
  local secs
  secs=$(printf '%d.%01d' $((ms / 1000)) $((ms % 1000 / 100)))
  [ -n "${GPUCOST_PHASE_LOG:-}" ] && echo "wait-$name $secs" >>"$GPUCOST_PHASE_LOG"
  if [ "$rc" -ne 0 ]; then
    tail -n 80 "$logs/$name.log"
    echo "test-all: $name failed (exit $rc)" >&2
    exit "$rc"
  fi
  grep "^phase $name:" "$logs/$name.log" || true
  echo "phase wait-$name: $secs s"
}

cmake --preset asan >/dev/null
cmake --preset fuzz >/dev/null
start_beside asan-build cmake --build --preset asan -j "$jobs"
scripts/seed-test-costs.sh dev
$phase dev-tests ctest --preset dev
scripts/slowest-tests.sh dev

wait_beside asan-build
# The fuzz build makes only the fuzz targets and what they link (scripts/fuzz.sh).
mapfile -t fuzzers < <(cd fuzz && ls ./*_fuzz.cc | sed 's|^\./||; s/\.cc$//')
start_beside fuzz-build cmake --build --preset fuzz -j "$jobs" --target "${fuzzers[@]}"
scripts/seed-test-costs.sh asan
$phase asan-tests ctest --preset asan
scripts/slowest-tests.sh asan

wait_beside fuzz-build
GPUCOST_FUZZ_RUN=1 $phase fuzz-run scripts/fuzz.sh "$fuzz_seconds"
