// Whether the test is built with AddressSanitizer (GCC says so with __SANITIZE_ADDRESS__, clang
// with __has_feature). That build checks memory, not speed: it runs several times slower, so the
// tests that take long do fewer rounds there and the full count in the optimised build.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
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
