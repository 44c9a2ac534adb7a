// Small string helpers used across modules: concatenation, trimming, splitting, hashing and a
// shortest-round-trip number format. Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace gpucost {

// Shortest text that reads back as the same double ("0.1", "1e+21", "NaN", "+Inf").
std::string FormatDouble(double v);

namespace strings_internal {
inline void Append(std::string& out, std::string_view s) { out.append(s); }
inline void Append(std::string& out, const char* s) { out.append(s); }
inline void Append(std::string& out, const std::string& s) { out.append(s); }
inline void Append(std::string& out, char c) { out.push_back(c); }
template <typename T>
  requires std::is_arithmetic_v<T>
void Append(std::string& out, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    out += FormatDouble(static_cast<double>(v));
  } else {
    out += std::to_string(v);
  }
}
}  // namespace strings_internal

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (strings_internal::Append(out, args), ...);
  return out;
}

std::string_view Trim(std::string_view s);
// 3 when `s` starts with a UTF-8 byte order mark (EF BB BF, which some editors write), else 0.
inline size_t Utf8BomBytes(std::string_view s) { return s.starts_with("\xEF\xBB\xBF") ? 3 : 0; }
std::vector<std::string_view> Split(std::string_view s, char sep);
// "a, b,,c " -> {"a", "b", "c"}: the parts trimmed, empty ones dropped (flag lists).
std::vector<std::string> SplitList(std::string_view s, char sep = ',');
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
std::string ToLower(std::string_view s);
// One CSV field (RFC 4180): as is, or quoted with quotes doubled when it holds , " or LF; bytes
// that are not UTF-8 and control characters other than LF and tab (an ESC that would drive a
// terminal showing the file, a CR) are written as U+FFFD (core/utf8.h, PrintableLines).
std::string CsvField(std::string_view s);

// Fast 64-bit hash (XXH3) of a byte string.
uint64_t Hash64(std::string_view bytes);
uint64_t HashCombine(uint64_t seed, uint64_t value);

}  // namespace gpucost
