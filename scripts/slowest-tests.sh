#!/usr/bin/env bash
# Prints the slowest tests of a preset's last ctest run (ctest keeps each test's time in
# Testing/Temporary/CTestCostData.txt): scripts/slowest-tests.sh dev [N].
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-dev}"
count="${2:-20}"
costs="build/$preset/Testing/Temporary/CTestCostData.txt"
[ -f "$costs" ] || exit 0
echo "slowest $count tests ($preset):"
# Lines are "name runs seconds" up to a "---" line (the failed tests follow it). awk reads all of
# sort's output and prints the first N: a `head` here closes the pipe early, and under pipefail the
# SIGPIPE that sort then takes fails the step (exit 141) once the list is long enough.
sed '/^---/,$d' "$costs" | sort -k3 -rn | awk -v n="$count" 'NR <= n {printf "  %7.2f s  %s\n", $3, $1}'
