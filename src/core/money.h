// Money and drift-free sums. Usd is a double with its unit in the type; CompensatedSum (Neumaier)
// keeps a running sum's error independent of the number of terms, which is what lets
// conservation hold to 1e-9 relative over millions of additions. RoundUnits is the one rounding
// rule for printed money and hours. Value types, thread-compatible.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpucost {

class Usd {
 public:
  constexpr Usd() = default;
  constexpr explicit Usd(double dollars) : v_(dollars) {}
  constexpr double dollars() const { return v_; }

  constexpr Usd& operator+=(Usd o) { v_ += o.v_; return *this; }
  constexpr Usd& operator-=(Usd o) { v_ -= o.v_; return *this; }
  friend constexpr Usd operator+(Usd a, Usd b) { return Usd(a.v_ + b.v_); }
  friend constexpr Usd operator-(Usd a, Usd b) { return Usd(a.v_ - b.v_); }
  friend constexpr Usd operator*(Usd a, double k) { return Usd(a.v_ * k); }
  friend constexpr Usd operator*(double k, Usd a) { return Usd(a.v_ * k); }
  friend constexpr Usd operator/(Usd a, double k) { return Usd(a.v_ / k); }
  friend constexpr double operator/(Usd a, Usd b) { return a.v_ / b.v_; }
  friend constexpr auto operator<=>(Usd, Usd) = default;

 private:
  double v_ = 0;
};

// Neumaier's improved Kahan summation. Adding n terms has error O(eps * sum|x|), not O(n eps).
class CompensatedSum {
 public:
  void Add(double x) {
    const double t = sum_ + x;
    if (std::fabs(sum_) >= std::fabs(x)) {
      comp_ += (sum_ - t) + x;
    } else {
      comp_ += (x - t) + sum_;
    }
    sum_ = t;
  }
  void Add(const CompensatedSum& o) {
    Add(o.sum_);
    Add(o.comp_);
  }
  double value() const { return sum_ + comp_; }

 private:
  double sum_ = 0;
  double comp_ = 0;
};

class UsdSum {
 public:
  void Add(Usd x) { s_.Add(x.dollars()); }
  void Add(const UsdSum& o) { s_.Add(o.s_); }
  Usd total() const { return Usd(s_.value()); }

 private:
  CompensatedSum s_;
};

// The one rounding rule for printed figures (docs/report.md, "Rounding"): `value` in units of
// 10^-decimals, half away from zero, each figure on its own, so that one figure prints the same
// in every table, command and format that shows it. The value is first taken to 10^-(decimals+4)
// so that the same money summed in another order (a difference in its last bits) rounds alike.
// Figures are exact up to kMaxUnits units ($10 quadrillion in cents); a value past that, or NaN,
// rounds to kMaxUnits with its sign, which the formatters below print as "out of range": never a
// wrapped, negative or made-up figure. (With prices bounded by kMaxUsdPerHour, model/price.h,
// $10 quadrillion takes ten billion GPU-hours at the largest price.)
inline constexpr int64_t kMaxUnits = 1'000'000'000'000'000'000;
int64_t RoundUnits(double value, int decimals);
// a + b for figures from RoundUnits: kMaxUnits (with its sign) once the sum reaches it, so that
// a column's sum is "out of range" rather than a wrapped integer.
int64_t AddUnits(int64_t a, int64_t b);
inline constexpr std::string_view kOutOfRangeText = "out of range";

// Money and figures for people (tables, text, HTML, alert texts); machine formats (JSON, CSV,
// OpenMetrics, FOCUS) keep plain numbers. Thousands are grouped with commas.
// 284700 units with 2 decimals -> "2,847.00"; 0 decimals -> "284,700"; -5 -> "-0.05";
// kMaxUnits or more either way -> "out of range".
std::string FormatGroupedUnits(int64_t units, int decimals);
// The same with a dollar sign, outside the minus: 284700 units, 2 decimals -> "$2,847.00";
// -5 -> "-$0.05".
std::string FormatDollarUnits(int64_t units, int decimals);
// 25145.236 -> "$25,145.24", -3 -> "-$3.00", 0.004 -> "$0.00"; NaN or infinite -> "unknown"
// (never a silent zero). Rounded by RoundUnits.
std::string FormatUsd(double usd);
// A figure next to its share of a whole, never "0.00 (0.1%)": with `decimals` it prints as
// FormatGroupedUnits would, except that a value that is not zero but rounds to zero prints as
// "<0.01" (for 2 decimals; "<1" for 0). NaN -> "-".
std::string FormatSmallAmount(double value, int decimals);

// Rates (USD per GPU-hour, per instance-hour) for people. Every rate of one table or text prints
// with the same decimals: the fewest, from 2 to 6, that show each of its rates to the micro-dollar
// a price keeps. So {3.06, 1.17} print "$3.06" and "$1.17", and {3.06, 2.7447} print "$3.0600"
// and "$2.7447", in one column that lines up and where hours x rate still gives the amount.
// RateDecimals: what one rate needs (3.06 -> 2, 2.7447 -> 4, 3.430875 -> 6; NaN -> 2); a table
// takes the largest over its rates.
int RateDecimals(double usd);
// `usd` with `decimals` decimals (at least 2, at most 6), grouped: (3.06, 4) -> "$3.0600",
// (1234.5, 2) -> "$1,234.50"; NaN or infinite -> "unknown".
std::string FormatRateUsd(double usd, int decimals);

}  // namespace gpucost
