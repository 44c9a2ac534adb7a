#include "core/money.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gpucost {

int64_t RoundUnits(double value, int decimals) {
  const double fine_value = value * std::pow(10.0, decimals + 4);
  // Past 9.2e18 (2^63 is 9.22e18) the finer units do not fit an int64_t; they mean nothing there
  // anyway, where a double's last bit is worth more than a unit.
  if (!(std::fabs(fine_value) < 9.2e18)) {
    const double units = value * std::pow(10.0, decimals);
    if (!(std::fabs(units) < static_cast<double>(kMaxUnits))) {
      return value < 0 ? -kMaxUnits : kMaxUnits;  // NaN too: "out of range", never a figure
    }
    return std::llround(units);
  }
  const int64_t fine = std::llround(fine_value);
  const int64_t whole = fine / 10000;
  const int64_t rest = fine % 10000;  // the sign of `fine`
  if (rest >= 5000) return whole + 1;
  if (rest <= -5000) return whole - 1;
  return whole;
}

int64_t AddUnits(int64_t a, int64_t b) {
  a = std::clamp(a, -kMaxUnits, kMaxUnits);
  b = std::clamp(b, -kMaxUnits, kMaxUnits);
  return std::clamp(a + b, -kMaxUnits, kMaxUnits);  // |a + b| <= 2e18 fits
}

std::string FormatGroupedUnits(int64_t units, int decimals) {
  if (units >= kMaxUnits || units <= -kMaxUnits) return std::string(kOutOfRangeText);
  const uint64_t magnitude =
      units < 0 ? 0 - static_cast<uint64_t>(units) : static_cast<uint64_t>(units);
  std::string digits = std::to_string(magnitude);
  const size_t frac_len = static_cast<size_t>(decimals < 0 ? 0 : decimals);
  if (digits.size() <= frac_len) digits = std::string(frac_len + 1 - digits.size(), '0') + digits;
  const size_t whole_len = digits.size() - frac_len;
  std::string out;
  out.reserve(digits.size() + whole_len / 3 + 2);
  if (units < 0) out.push_back('-');
  for (size_t i = 0; i < whole_len; ++i) {
    if (i > 0 && (whole_len - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  if (frac_len > 0) {
    out.push_back('.');
    out.append(digits, whole_len, std::string::npos);
  }
  return out;
}

std::string FormatDollarUnits(int64_t units, int decimals) {
  if (units >= kMaxUnits || units <= -kMaxUnits) return std::string(kOutOfRangeText);
  // Appended rather than `"$" + std::string`, which GCC 12 at -O2 wrongly warns about
  // (-Wrestrict) wherever it inlines it.
  std::string out = units < 0 ? "-$" : "$";
  return out.append(FormatGroupedUnits(units < 0 ? -units : units, decimals));
}

std::string FormatUsd(double usd) {
  if (!std::isfinite(usd)) return "unknown";
  return FormatDollarUnits(RoundUnits(usd, 2), 2);
}

std::string FormatSmallAmount(double value, int decimals) {
  if (std::isnan(value)) return "-";
  const int64_t units = RoundUnits(value, decimals);
  if (units == 0 && value != 0) {
    std::string least =
        decimals > 0 ? "0." + std::string(static_cast<size_t>(decimals - 1), '0') + "1" : "1";
    return (value < 0 ? ">-" : "<") + least;
  }
  return FormatGroupedUnits(units, decimals);
}

int RateDecimals(double usd) {
  if (!std::isfinite(usd)) return 2;
  int64_t units = RoundUnits(usd, 6);
  int decimals = 6;
  while (decimals > 2 && units % 10 == 0) {
    units /= 10;
    --decimals;
  }
  return decimals;
}

std::string FormatRateUsd(double usd, int decimals) {
  if (!std::isfinite(usd)) return "unknown";
  decimals = std::clamp(decimals, 2, 6);
  return FormatDollarUnits(RoundUnits(usd, decimals), decimals);
}

}  // namespace gpucost
