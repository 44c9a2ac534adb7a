#!/usr/bin/env bash
# Sourced by scripts/test.sh and scripts/run-tests.sh: `background SIGNAL` sends SIGNAL (STOP,
# CONT, TERM) to the build scripts/test.sh runs in the background (GPUCOST_BACKGROUND_PGID, the
# process group it started it in; nothing when unset). ninja starts each compiler and linker in a
# process group of its own, so a signal to the group alone reached ninja and not the compiles
# already running: the group first (a stopped ninja starts nothing more), then every process whose
# parents lead to the group's leader, twice, for one that was starting during the first pass.

background_tree() {
  ps -e -o pid=,ppid= | awk -v root="$GPUCOST_BACKGROUND_PGID" '{parent[$1] = $2}
    END {for (p in parent) {q = p; while (q != root && (q in parent) && q > 1) q = parent[q]
      if (q == root) print p}}'
}

background() {
  [ -n "${GPUCOST_BACKGROUND_PGID:-}" ] || return 0
  kill -"$1" -- "-$GPUCOST_BACKGROUND_PGID" 2>/dev/null || true
  local pass pid
  for pass in 1 2; do
    for pid in $(background_tree); do kill -"$1" "$pid" 2>/dev/null || true; done
  done
}
