#!/usr/bin/env bash
# Prints the slowest tests of a preset's last ctest run: scripts/slowest-tests.sh dev [N].
# The times come from that run's logs (Testing/Temporary/LastTest.log, and LastTest-alone.log of
# the tests scripts/run-tests.sh runs alone first), not from ctest's cost data, which also keeps
# the times of tests that no longer run in this preset.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-dev}"
count="${2:-20}"
logs=(build/"$preset"/Testing/Temporary/LastTest*.log)
[ -f "${logs[0]}" ] || exit 0
echo "slowest $count tests ($preset):"
# awk reads all of sort's output and prints the first N: a `head` here closes the pipe early, and
# under pipefail the SIGPIPE that sort then takes fails the step (exit 141) once the list is long.
awk '/^[0-9]+\/[0-9]+ Test: /{name = $3} /^Test time = /{print $4, name}' "${logs[@]}" | sort -rn |
  awk -v n="$count" 'NR <= n {printf "  %7.2f s  %s\n", $1, $2}'
