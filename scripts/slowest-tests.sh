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
# Lines are "name runs seconds" up to a "---" line (the failed tests follow it).
sed '/^---/,$d' "$costs" | sort -k3 -rn | head -n "$count" | awk '{printf "  %7.2f s  %s\n", $3, $1}'
