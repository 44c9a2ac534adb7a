# Entry points. `make demo` and `make test` work on a fresh Debian 12 machine: they install what
# they need first (scripts/install-deps.sh, idempotent).
.PHONY: deps demo serve-demo build release image check check-all test-dev test-optimised test asan fuzz bench \
	format clean

JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 8
GPUCOST_WERROR ?= $(if $(CI),ON,OFF)
export GPUCOST_WERROR
# Each step of `make test` says how long it took ("phase NAME: N s"); .ci/run sums them.
PHASE := scripts/phase.sh

deps:
	@$(PHASE) deps scripts/install-deps.sh

# Build the release binary and run the built-in demo cluster.
demo: release
	@build/release/src/cli/gpucost demo

# gpucost serve on a live simulated cluster, with a local Prometheus receiving its remote-write.
serve-demo: release
	@scripts/serve-demo.sh

release: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# The OCI images of gpucost and gpucost-agent from the release binaries and Debian packages, in
# build/image (docs/install.md, "Images").
image: release
	@scripts/build-image.sh build/release/src/cli build/image

build: deps
	@cmake --preset dev >/dev/null
	@$(PHASE) dev-build cmake --build --preset dev -j $(JOBS)

# The loop while developing: rebuilds what the modules you changed need and runs their tests
# (`make check M="report cli"` names them; scripts/check.sh). `make check-all`: every dev test.
check: deps
	@scripts/check.sh $(M)

check-all: build
	@ctest --preset dev

# Everything CI runs: the tests of the optimised binary in the dev build (test-optimised), every
# other test under ASan+UBSan (clang), and each fuzz target on its committed corpus and then for
# FUZZ_SECONDS of new inputs; the fuzz build runs in the background meanwhile, at the lowest
# priority (scripts/test.sh).
test: deps
	@scripts/test.sh $(FUZZ_SECONDS)

# Every dev test.
test-dev: build
	@scripts/run-tests.sh dev

# The dev build's binaries, its benchmarks and the tests that check the optimised binary
# (GPUCOST_OPTIMISED_TEST_MODULES, tests/CMakeLists.txt): what `make test` runs in the dev build.
test-optimised: deps
	@cmake --preset dev >/dev/null
	@$(PHASE) dev-build cmake --build --preset dev -j $(JOBS) --target optimised_tests benchmarks
	@scripts/run-tests.sh dev --optimised

asan: deps
	@cmake --preset asan >/dev/null
	@$(PHASE) asan-build cmake --build --preset asan -j $(JOBS)
	@scripts/run-tests.sh asan

fuzz: deps
	@scripts/fuzz.sh $(FUZZ_SECONDS)

bench: build
	@scripts/bench.sh

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf build
