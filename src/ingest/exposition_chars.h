// Character classes and scanning helpers shared by the exposition line parser and the
// known-series table. Internal to the ingest module.
#pragma once

#include <array>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpucost::exposition_internal {

struct CharClasses {
  std::array<bool, 256> metric_start{};
  std::array<bool, 256> metric_char{};
  std::array<bool, 256> label_start{};
  std::array<bool, 256> label_char{};
};

constexpr CharClasses MakeCharClasses() {
  CharClasses t;
  for (int c = 0; c < 256; ++c) {
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    t.label_start[c] = alpha;
    t.label_char[c] = alpha || digit;
    t.metric_start[c] = alpha || c == ':';
    t.metric_char[c] = alpha || digit || c == ':';
  }
  return t;
}

inline constexpr CharClasses kChars = MakeCharClasses();

inline unsigned char U(char c) { return static_cast<unsigned char>(c); }
inline bool IsSpace(char c) { return c == ' ' || c == '\t'; }
inline void SkipSpace(const char*& p, const char* end) {
  while (p < end && IsSpace(*p)) ++p;
}
inline const char* TokenEnd(const char* p, const char* end) {
  while (p < end && !IsSpace(*p)) ++p;
  return p;
}

// The first '"' or '\\' in [p, end), or end. Label values are short, so one 16-byte compare
// usually finds the closing quote, instead of one memchr call for each character.
inline const char* FindQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i slash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const int mask =
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, slash)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

}  // namespace gpucost::exposition_internal
