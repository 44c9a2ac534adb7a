// Money and drift-free sums. Usd is a double with its unit in the type; CompensatedSum (Neumaier)
// keeps a running sum's error independent of the number of terms, which is what lets
// conservation hold to 1e-9 relative over millions of additions. RoundToCents makes printed rows
// add up to the printed total. Value types, thread-compatible.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <span>
#include <vector>

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

// Rounds each value to whole cents so that the rounded values add up exactly to the rounded total
// (largest-remainder method). Returns cents.
std::vector<int64_t> RoundToCents(std::span<const double> dollars, int64_t* total_cents = nullptr);

// Same, for an arbitrary number of decimals (cents = 2).
std::vector<int64_t> RoundPreservingTotal(std::span<const double> values, int decimals,
                                          int64_t* total_units = nullptr);

// Rounds `values` to `decimals` so that they add up to `total_units` (in units of 10^-decimals),
// a total rounded elsewhere (e.g. the same money summed by another grouping): floors first, then
// a unit each to the largest remainders, or back from the smallest when the floors overshoot.
// Ties go to the earlier value.
std::vector<int64_t> RoundToTotal(std::span<const double> values, int decimals,
                                  int64_t total_units);

}  // namespace gpucost
