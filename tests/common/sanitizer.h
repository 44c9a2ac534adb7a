// Whether the test is built with AddressSanitizer. The build says so (GPUCOST_TEST_UNDER_ASAN,
// tests/CMakeLists.txt), since the tests' own code is compiled without the sanitizers there; GCC
// and clang say so too when it is not (__SANITIZE_ADDRESS__, __has_feature). That build checks
// memory, not speed: it runs several times slower, so the tests that take long do fewer rounds
// there and the full count in the optimised build.
#pragma once

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

}  // namespace gpucost::testing_util
