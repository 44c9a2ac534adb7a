#include "ingest/exposition_numbers.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace gpucost::exposition_internal {
namespace {

constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Plain decimals with at most 15 digits ("42", "-3", "0.000000", "12.5") are exact as an integer
// mantissa divided by an exact power of ten, and IEEE division rounds correctly, so the result
// is the same double a full parser would give. Most exporter values take this path.
bool FastDecimal(std::string_view s, double& out) {
  size_t i = 0;
  const bool neg = !s.empty() && s[0] == '-';
  if (neg) i = 1;
  uint64_t mantissa = 0;
  int digits = 0;
  int frac = 0;
  bool dot = false;
  const size_t n = s.size();
  if (i == n) return false;
  for (; i < n; ++i) {
    const char c = s[i];
    if (IsDigit(c)) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
      ++digits;
      frac += dot ? 1 : 0;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  if (digits == 0 || digits > 15) return false;
  double v = static_cast<double>(mantissa);
  if (frac > 0) v /= kPow10[frac];
  out = neg ? -v : v;
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char c = (a[i] >= 'A' && a[i] <= 'Z') ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (c != lower[i]) return false;
  }
  return true;
}

bool SlowValue(std::string_view s, double& out) {
  bool neg = false;
  std::string_view body = s;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body.empty()) return false;
  if (EqualsIgnoreCase(body, "inf") || EqualsIgnoreCase(body, "infinity")) {
    out = neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return true;
  }
  if (EqualsIgnoreCase(body, "nan")) {
    if (body.size() != s.size()) return false;  // Go rejects a signed NaN
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  // from_chars takes no sign other than the one we stripped, and no "0x" prefix.
  if (body[0] == '+' || body[0] == '-') return false;
  std::chars_format fmt = std::chars_format::general;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    body.remove_prefix(2);
    fmt = std::chars_format::hex;
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v, fmt);
  if (ptr != body.data() + body.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // Overflow is an error (as in Go); underflow is a tiny number or zero.
    const std::string copy(s);
    const double approx = std::strtod(copy.c_str(), nullptr);
    if (std::isinf(approx)) return false;
    out = approx;
    return true;
  }
  if (ec != std::errc()) return false;
  out = neg ? -v : v;
  return true;
}

bool ParseInt64(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  const char* b = s.data();
  if (*b == '+') ++b;
  const auto [ptr, ec] = std::from_chars(b, s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool SecondsToMs(double seconds, int64_t& out_ms) {
  if (!std::isfinite(seconds)) return false;
  const double ms = std::round(seconds * 1000.0);
  if (std::fabs(ms) >= 9.2e18) return false;
  out_ms = static_cast<int64_t>(ms);
  return true;
}

}  // namespace

bool ParseSampleValue(std::string_view text, double& out) {
  if (text.empty()) return false;
  if (FastDecimal(text, out)) return true;
  return SlowValue(text, out);
}

bool ParseTimestampMs(std::string_view text, ExpositionFormat format, int64_t& out_ms) {
  constexpr int64_t kSecondsLimit = 100'000'000'000;  // 1e11
  int64_t i = 0;
  const bool integer = ParseInt64(text, i);
  switch (format) {
    case ExpositionFormat::kText:
      if (!integer) return false;
      out_ms = i;
      return true;
    case ExpositionFormat::kOpenMetrics:
      if (integer && i > -kSecondsLimit * 1000 && i < kSecondsLimit * 1000) {
        out_ms = i * 1000;
        return true;
      }
      break;
    case ExpositionFormat::kAuto:
      if (integer) {
        out_ms = (i > -kSecondsLimit && i < kSecondsLimit) ? i * 1000 : i;
        return true;
      }
      break;
  }
  double v = 0;
  if (!ParseSampleValue(text, v) || !std::isfinite(v)) return false;
  if (format == ExpositionFormat::kAuto && std::fabs(v) >= 1e11) {
    if (std::fabs(v) >= 9.2e18) return false;
    out_ms = static_cast<int64_t>(std::round(v));
    return true;
  }
  return SecondsToMs(v, out_ms);
}

}  // namespace gpucost::exposition_internal
