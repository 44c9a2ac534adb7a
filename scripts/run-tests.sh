#!/usr/bin/env bash
# Runs a build's tests as `make test` does: scripts/run-tests.sh dev|asan [--optimised]; with
# --optimised, only the modules that check the optimised binary (the labels tests/CMakeLists.txt
# writes to build/PRESET/optimised-test-labels: GPUCOST_OPTIMISED_TEST_MODULES). The tests that time
# their server's answers (the modules of GPUCOST_SERIAL_TEST_MODULES, tests/CMakeLists.txt, which
# ctest runs alone: RUN_SERIAL) run first. When scripts/test.sh builds in the background
# (GPUCOST_BACKGROUND_PGID, that build's process group), the build is stopped while they run, so
# that they time the server and not the compiler beside it. Then every other test, and the
# slowest of both runs.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="$1"
only=()
if [ "${2:-}" = --optimised ]; then
  only=(-L "$(cat "build/$preset/optimised-test-labels")")
fi
phase=scripts/phase.sh
alone='^chaos$'  # the labels of GPUCOST_SERIAL_TEST_MODULES
temp="build/$preset/Testing/Temporary"
source scripts/background.sh
scripts/seed-test-costs.sh "$preset"
status=0
rm -f "$temp/LastTest-alone.log"
# The sanitizer build has none of them (tests/CMakeLists.txt). (The list is read whole: `grep -q`
# in a pipe would end it early, and ctest's SIGPIPE would fail the test under pipefail.)
listed=$(ctest --preset "$preset" -N -L "$alone" "${only[@]}")
if grep -q '^ *Test *#' <<<"$listed"; then
  trap 'background CONT' EXIT
  background STOP
  $phase "$preset-tests-alone" ctest --preset "$preset" -L "$alone" "${only[@]}" || status=$?
  background CONT
  cp "$temp/LastTest.log" "$temp/LastTest-alone.log"
fi
$phase "$preset-tests" ctest --preset "$preset" -LE "$alone" "${only[@]}" || status=$?
scripts/slowest-tests.sh "$preset"
exit "$status"
