#include "core/money.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

namespace gpucost {
namespace {

TEST(Money, CompensatedSumDoesNotDriftOverMillionsOfTerms) {
  // 12/7 $/h per slice-minute, ten million times: a naive double sum drifts far past 1e-9.
  const double term = 12.0 / 7.0 / 60.0;
  const int n = 10'000'000;
  CompensatedSum sum;
  double naive = 0;
  for (int i = 0; i < n; ++i) {
    sum.Add(term);
    naive += term;
  }
  const long double exact = static_cast<long double>(12.0L / 7.0L / 60.0L) * n;
  const double exact_d = static_cast<double>(exact);
  EXPECT_LT(std::fabs(sum.value() - exact_d) / exact_d, 1e-12);
  EXPECT_GT(std::fabs(naive - exact_d) / exact_d, 1e-12);  // the problem the sum solves
}

TEST(Money, CompensatedSumOfMixedMagnitudes) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> small(0, 1e-3);
  CompensatedSum sum;
  sum.Add(1e9);
  long double ref = 1e9L;
  for (int i = 0; i < 1'000'000; ++i) {
    const double x = small(rng);
    sum.Add(x);
    ref += x;
  }
  sum.Add(-1e9);
  ref -= 1e9L;
  EXPECT_NEAR(sum.value(), static_cast<double>(ref), 1e-9 * static_cast<double>(ref));
}

TEST(Money, UsdArithmetic) {
  Usd a(5.0);
  Usd b = a * 2.0 + Usd(1.5);
  EXPECT_DOUBLE_EQ(b.dollars(), 11.5);
  EXPECT_DOUBLE_EQ(b / a, 2.3);
  UsdSum s;
  s.Add(a);
  s.Add(b);
  EXPECT_DOUBLE_EQ(s.total().dollars(), 16.5);
}

TEST(Money, RoundedRowsAddUpToRoundedTotal) {
  // The seed PoC rows: naive rounding prints 5.14 + 3.43 + 3.43 = 12.00, matching by luck; one
  // third each of $1 prints 0.33 x 3 = 0.99 naively.
  const double thirds[] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
  int64_t total = 0;
  auto cents = RoundToCents(thirds, &total);
  EXPECT_EQ(total, 100);
  EXPECT_EQ(std::accumulate(cents.begin(), cents.end(), int64_t{0}), 100);
  EXPECT_EQ(cents[0], 34);  // ties go to the earlier row
  EXPECT_EQ(cents[1], 33);

  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> d(0, 1000);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> v(1 + trial % 37);
    for (double& x : v) x = d(rng);
    int64_t t = 0;
    auto c = RoundToCents(v, &t);
    EXPECT_EQ(std::accumulate(c.begin(), c.end(), int64_t{0}), t);
    for (size_t i = 0; i < v.size(); ++i) EXPECT_LE(std::fabs(c[i] / 100.0 - v[i]), 0.01 + 1e-9);
  }
}

}  // namespace
}  // namespace gpucost
