// Whether the test is built with AddressSanitizer. The build says so (GPUCOST_TEST_UNDER_ASAN,
// tests/CMakeLists.txt), since the tests' own code is compiled without the sanitizers there; GCC
// and clang say so too when it is not (__SANITIZE_ADDRESS__, __has_feature). That build checks
// memory, not speed: it runs several times slower, so the tests that take long do fewer rounds
// there and the full count in the optimised build (`ctest --preset dev`; `make test` runs their
// modules under ASan only, tests/CMakeLists.txt).
#pragma once

#include <string>

#if defined(GPUCOST_TEST_UNDER_ASAN)
#elif defined(__SANITIZE_ADDRESS__)
#define GPUCOST_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUCOST_TEST_UNDER_ASAN 1
#endif
#endif

namespace gpucost::testing_util {

#ifdef GPUCOST_TEST_UNDER_ASAN
inline constexpr bool kUnderAsan = true;
#else
inline constexpr bool kUnderAsan = false;
#endif

// `command` for /bin/sh, run as a one-shot child (gpucost report, ledger write, ...). Under ASan
// it runs without LeakSanitizer's check at its exit: that check scans the runtime's 10 MB of
// globals page by page and took about 50 ms of every child's 230 (docs/perf.md, "CI"), and memory
// a one-shot command still holds when it exits goes back with it. ASan and UBSan still check every
// access the child makes; the test binaries and the long-running children (serve, the agent,
// started as a ChildProcess) keep the leak check.
inline std::string OneShotCommand(const std::string& command) {
  if (!kUnderAsan) return command;
  return "export ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\"; " + command;
}

}  // namespace gpucost::testing_util
