#!/usr/bin/env bash
# The quick loop while developing: rebuilds only what the given modules' tests need in the dev
# build and runs those tests. Modules default to the ones the working tree changes (src/<m>/ and
# tests/<m>/ against HEAD); a change elsewhere (CMake files, tests/common, bench) or none at all
# checks everything.
#   scripts/check.sh              # the modules your edits touch
#   scripts/check.sh report cli   # these modules
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${JOBS:-$(nproc)}"

modules=("$@")
if [ "${#modules[@]}" -eq 0 ]; then
  all=0
  while IFS= read -r file; do
    [ -n "$file" ] || continue
    if [[ "$file" =~ ^src/serve/ui/ ]]; then
      modules+=(ui)  # the web UI's sources: its type check and browser test
    elif [[ "$file" =~ ^(src|tests)/([a-z0-9_]+)/ ]] && [ "${BASH_REMATCH[2]}" != common ]; then
      modules+=("${BASH_REMATCH[2]}")
    elif [[ "$file" =~ ^(deploy/|scripts/build-image\.sh|scripts/gen-deploy\.sh) ]]; then
      modules+=(deploy)
    elif [[ "$file" =~ ^(docs/|README|examples/|data/|\.ci/) ]]; then
      continue  # no code
    else
      all=1
    fi
  done < <({ git diff --name-only HEAD; git ls-files --others --exclude-standard; } | sort -u)
  if [ "$all" -eq 1 ] || [ "${#modules[@]}" -eq 0 ]; then
    modules=()
  fi
fi

cmake --preset dev >/dev/null
if [ "${#modules[@]}" -eq 0 ]; then
  echo "check: every module"
  cmake --build --preset dev -j "$jobs"
  exec ctest --preset dev
fi

mapfile -t modules < <(printf '%s\n' "${modules[@]}" | sort -u)
targets=()
labels=()
for m in "${modules[@]}"; do
  if [ "$m" = deploy ]; then  # scripts over the binaries (tests/deploy)
    targets+=(gpucost gpucost-agent)
    labels+=(deploy)
  elif [ "$m" = ui ]; then  # the web UI in Chromium against the binary (tests/ui)
    targets+=(gpucost)
    labels+=(ui)
  elif [ -d "tests/$m" ]; then
    targets+=("${m}_tests")
    labels+=("$m")
  else
    echo "check: module $m has no tests of its own (tests/$m); building it only" >&2
    targets+=("gpucost")
  fi
done
echo "check: ${modules[*]}"
cmake --build --preset dev -j "$jobs" --target "${targets[@]}"
[ "${#labels[@]}" -eq 0 ] && exit 0
pattern="^($(IFS='|'; echo "${labels[*]}"))\$"
exec ctest --preset dev -L "$pattern"
