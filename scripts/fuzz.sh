#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan) and runs each for a bounded time on its seed
# corpus. Exits non-zero on any crash, leak or sanitizer report.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
cmake --preset fuzz >/dev/null
# Build only the fuzz targets (and what they link), not the whole project again with clang.
mapfile -t names < <(cd fuzz && ls *_fuzz.cc | sed 's/\.cc$//')
cmake --build --preset fuzz -j "$(nproc)" --target "${names[@]}"
shopt -s nullglob
targets=(build/fuzz/fuzz/*_fuzz)
if [ "${#targets[@]}" -eq 0 ]; then
  echo "fuzz: no fuzz targets built" >&2
  exit 1
fi
mkdir -p fuzz/artifacts
for t in "${targets[@]}"; do
  name=$(basename "$t" _fuzz)
  work=$(mktemp -d)
  cp -r "fuzz/corpus/$name/." "$work/"
  echo "fuzz: $name for ${seconds}s"
  "$t" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=fuzz/artifacts/ -print_final_stats=1 "$work" 2>&1 | tail -n 12
  rm -rf "$work"
done
echo "fuzz: all targets ran clean"
