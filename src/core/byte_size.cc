#include "core/byte_size.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

#include "core/strings.h"

namespace gpucost {
namespace {

constexpr std::array<std::pair<std::string_view, double>, 11> kUnits = {{
    {"B", 1.0},
    {"KiB", 1024.0},
    {"MiB", 1024.0 * 1024},
    {"GiB", 1024.0 * 1024 * 1024},
    {"TiB", 1024.0 * 1024 * 1024 * 1024},
    {"kB", 1e3},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"", 1.0},
}};

}  // namespace

Result<uint64_t> ParseByteSize(std::string_view text) {
  const std::string_view s = Trim(text);
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(StrCat("bad size \"", s, "\": ", why));
  };
  const size_t digits = s.find_first_not_of("0123456789.");
  const std::string_view number = s.substr(0, digits);
  const std::string_view unit = digits == std::string_view::npos ? "" : Trim(s.substr(digits));
  double n = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
  if (number.empty() || ec != std::errc() || ptr != number.data() + number.size()) {
    return bad("expected a number of bytes, with a unit such as MiB or GiB");
  }
  for (const auto& [name, factor] : kUnits) {
    if (unit != name) continue;
    const double bytes = std::floor(n * factor);
    if (!(bytes < 1.8e19)) return bad("too large");
    return static_cast<uint64_t>(bytes);
  }
  return bad("unknown unit (B, KiB, MiB, GiB, TiB, kB, MB, GB, TB)");
}

std::string FormatByteSize(uint64_t bytes) {
  constexpr std::array<std::string_view, 5> kNames = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  size_t i = 0;
  while (v >= 1024 && i + 1 < kNames.size()) {
    v /= 1024;
    ++i;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return StrCat(buf, kNames[i]);
}

}  // namespace gpucost
