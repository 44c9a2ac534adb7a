#!/usr/bin/env bash
# `make test`: everything CI runs. The dev build's binaries and benchmarks, with the tests that
# check the optimised binary (make test-optimised); the tests of every module under ASan+UBSan
# (clang); and each fuzz target on its committed corpus and then for N seconds of new inputs:
# scripts/test.sh N. Each test runs once, in the build where it checks most (docs/perf.md, "CI");
# `make test-dev` runs every test in the dev build.
#
# The fuzz build needs nothing the other steps make, so it starts at once, in the background and
# at the lowest CPU priority (nice 19): it takes the CPU the tests leave while they wait on their
# servers and child processes, and little of what they use (docs/perf.md, "CI"). Its log is
# printed when it is needed, after the ASan tests; then the fuzzers run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-8}"
phase=scripts/phase.sh
fuzz_log=$(mktemp)
# In its own process group (job control, set -m), so that a failing step can end the whole build
# with it; not in a session of its own (setsid): where the kernel groups processes by session for
# scheduling (autogroup), a new session would get an equal share of the CPU whatever its nice.
set -m
GPUCOST_FUZZ_BUILD_ONLY=1 GPUCOST_FUZZ_BUILD_PHASE=fuzz-build-bg nice -n 19 scripts/fuzz.sh \
  >"$fuzz_log" 2>&1 &
fuzz_build=$!
set +m
# The tests that time their server's answers stop it while they run (scripts/run-tests.sh).
export GPUCOST_BACKGROUND_PGID="$fuzz_build"
source scripts/background.sh
trap 'background TERM; background CONT; rm -f "$fuzz_log"' EXIT
make --no-print-directory test-optimised asan
# How long the run waited for the fuzz build once the other steps were done.
$phase fuzz-wait tail --pid="$fuzz_build" -f /dev/null
fuzz_rc=0
wait "$fuzz_build" || fuzz_rc=$?
unset GPUCOST_BACKGROUND_PGID  # ended: its number may be another process's now
cat "$fuzz_log"
if [ "$fuzz_rc" -ne 0 ]; then
  echo "the fuzz build failed (exit $fuzz_rc)" >&2
  exit "$fuzz_rc"
fi
GPUCOST_FUZZ_RUN=1 $phase fuzz-run scripts/fuzz.sh "$seconds"
