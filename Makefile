# Entry points. `make demo` and `make test` work on a fresh Debian 12 machine: they install what
# they need first (scripts/install-deps.sh, idempotent).
.PHONY: deps demo serve-demo build release check test asan fuzz bench format clean

JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
GPUCOST_WERROR ?= $(if $(CI),ON,OFF)
export GPUCOST_WERROR

deps:
	@scripts/install-deps.sh

# Build the release binary and run the built-in demo cluster.
demo: release
	@build/release/src/cli/gpucost demo

# gpucost serve on a live simulated cluster, with a local Prometheus receiving its remote-write.
serve-demo: release
	@scripts/serve-demo.sh

release: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

build: deps
	@cmake --preset dev >/dev/null
	@cmake --build --preset dev -j $(JOBS)

# Fast loop while developing: the dev build and every ctest test.
check: build
	@ctest --preset dev

# Everything CI runs: dev tests, the same tests under ASan+UBSan, and a bounded fuzz run.
test: check asan fuzz

asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	@ctest --preset asan

fuzz: deps
	@scripts/fuzz.sh $(FUZZ_SECONDS)

bench: build
	@scripts/bench.sh

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf build
