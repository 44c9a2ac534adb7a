#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan); replays each target's committed corpus
# (fuzz/corpus/<name>/: the seeds and every input that once found a bug), then fuzzes it with new
# inputs for a bounded time. Exits non-zero on any crash, leak or sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
phase=scripts/phase.sh
if [ "${GPUCOST_FUZZ_RUN:-}" != 1 ]; then
  cmake --preset fuzz >/dev/null
  # Build only the fuzz targets (and what they link), not the whole project again with clang.
  mapfile -t names < <(cd fuzz && ls *_fuzz.cc | sed 's/\.cc$//')
  $phase "${GPUCOST_FUZZ_BUILD_PHASE:-fuzz-build}" \
    cmake --build --preset fuzz -j "$(nproc)" --target "${names[@]}"
  [ "${GPUCOST_FUZZ_BUILD_ONLY:-}" != 1 ] || exit 0
fi
shopt -s nullglob
targets=(build/fuzz/fuzz/*_fuzz)
if [ "${#targets[@]}" -eq 0 ]; then
  echo "fuzz: no fuzz targets built" >&2
  exit 1
fi
mkdir -p fuzz/artifacts
options=(-max_len=65536 -timeout=10 -rss_limit_mb=2048 -artifact_prefix=fuzz/artifacts/)
# One target: its committed corpus, every input once (a fixed regression suite), then new inputs
# mutated from a scratch copy of the corpus (the committed one stays as is). Non-zero when either
# run finds a crash, a leak or a sanitizer report.
run_one() {
  local t="$1" name work rc=0
  name=$(basename "$t" _fuzz)
  echo "fuzz: $name replays $(find "fuzz/corpus/$name" -type f | wc -l) committed inputs"
  "$t" "${options[@]}" -runs=0 "fuzz/corpus/$name" 2>&1 | tail -n 3 || rc=1
  work=$(mktemp -d)
  cp -r "fuzz/corpus/$name/." "$work/"
  echo "fuzz: $name for ${seconds}s"
  "$t" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 "$work" 2>&1 | tail -n 12 ||
    rc=1
  rm -rf "$work"
  [ "$rc" -eq 0 ] || echo "fuzz: $name FAILED (its artifacts are in fuzz/artifacts/)"
  return "$rc"
}
# Each fuzzer runs on one core: as many at once as there are cores, each one's output printed
# whole, in the targets' order, once all have ended.
run_all() {
  local logs i failed=0
  logs=$(mktemp -d)
  for i in "${!targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
    (if run_one "${targets[$i]}" >"$logs/$i.log" 2>&1; then echo 0; else echo 1; fi >"$logs/$i.rc") &
  done
  wait
  for i in "${!targets[@]}"; do
    cat "$logs/$i.log"
    [ "$(cat "$logs/$i.rc")" = 0 ] || failed=1
  done
  rm -rf "$logs"
  return "$failed"
}
if [ "${GPUCOST_FUZZ_RUN:-}" = 1 ]; then
  run_all
else
  # Timed as one step: this script again, past the build, with the same arguments.
  GPUCOST_FUZZ_RUN=1 $phase fuzz-run "$0" "$seconds"
  exit
fi
echo "fuzz: all targets ran clean"
