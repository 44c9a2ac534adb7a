#include "core/money.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

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

TEST(Money, EachFigureRoundsHalfAwayFromZeroOnItsOwn) {
  EXPECT_EQ(RoundUnits(1.0 / 3, 2), 33);
  EXPECT_EQ(RoundUnits(2.0 / 3, 2), 67);
  EXPECT_EQ(RoundUnits(0.125, 2), 13);  // exactly half: away from zero
  EXPECT_EQ(RoundUnits(-0.125, 2), -13);
  EXPECT_EQ(RoundUnits(1.005, 2), 101);  // 1.00499999999999989... as a double
  EXPECT_EQ(RoundUnits(12345.678, 0), 12346);
  EXPECT_EQ(RoundUnits(0.0, 2), 0);
  // Never more than half a unit from the value.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> d(-1000, 1000);
  for (int trial = 0; trial < 1000; ++trial) {
    const double v = d(rng);
    EXPECT_LE(std::fabs(static_cast<double>(RoundUnits(v, 2)) / 100.0 - v), 0.005 + 1e-9) << v;
  }
}

TEST(MoneyText, DollarsForPeopleAreGroupedWithTwoDecimals) {
  EXPECT_EQ(FormatUsd(25145.236), "$25,145.24");
  EXPECT_EQ(FormatUsd(21080.64), "$21,080.64");
  EXPECT_EQ(FormatUsd(1234567.891), "$1,234,567.89");
  EXPECT_EQ(FormatUsd(999.995), "$1,000.00");
  EXPECT_EQ(FormatUsd(0.004), "$0.00");
  EXPECT_EQ(FormatUsd(-3), "-$3.00");
  EXPECT_EQ(FormatUsd(-0.001), "$0.00");  // no "-$0.00"
  EXPECT_EQ(FormatUsd(NAN), "unknown");   // never a silent zero
  EXPECT_EQ(FormatUsd(INFINITY), "unknown");
  EXPECT_EQ(FormatDollarUnits(-5, 2), "-$0.05");
  EXPECT_EQ(FormatDollarUnits(284700, 0), "$284,700");
  EXPECT_EQ(FormatGroupedUnits(284700, 0), "284,700");
  EXPECT_EQ(FormatGroupedUnits(-5, 2), "-0.05");
  EXPECT_EQ(FormatGroupedUnits(100000, 2), "1,000.00");
}

// Past what an int64_t holds in 10^-6 units a figure used to wrap to a negative one
// ($1e13 printed "-$9,223,372,036,854.78"); it stays exact to 10^18 units and prints "out of
// range" beyond, never a made-up or negative figure.
TEST(MoneyText, HugeFiguresStayExactThenPrintOutOfRange) {
  EXPECT_EQ(RoundUnits(1e13, 2), 1'000'000'000'000'000);
  EXPECT_EQ(FormatUsd(1e13), "$10,000,000,000,000.00");
  EXPECT_EQ(FormatUsd(-1e13), "-$10,000,000,000,000.00");
  EXPECT_EQ(FormatUsd(87'600'000'000'000.0), "$87,600,000,000,000.00");  // 1e4 GPUs, 1 year
  EXPECT_EQ(FormatRateUsd(1e6, 6), "$1,000,000.000000");  // the largest price, at 6 decimals
  EXPECT_EQ(RoundUnits(9.5e15, 2), 950'000'000'000'000'000);
  EXPECT_EQ(RoundUnits(1e16, 2), kMaxUnits);
  EXPECT_EQ(RoundUnits(-1e300, 2), -kMaxUnits);
  EXPECT_EQ(RoundUnits(NAN, 2), kMaxUnits);
  EXPECT_EQ(FormatUsd(1e16), "out of range");
  EXPECT_EQ(FormatUsd(-1e300), "out of range");
  EXPECT_EQ(FormatRateUsd(1e13, 6), "out of range");
  EXPECT_EQ(FormatGroupedUnits(RoundUnits(1e300, 2), 2), "out of range");
  EXPECT_EQ(FormatSmallAmount(1e300, 2), "out of range");
  EXPECT_EQ(RateDecimals(1e300), 2);
  // A column's sum of such figures stays out of range, never wraps.
  int64_t sum = 0;
  for (int i = 0; i < 20; ++i) sum = AddUnits(sum, RoundUnits(1e300, 2));
  EXPECT_EQ(sum, kMaxUnits);
  EXPECT_EQ(AddUnits(kMaxUnits, -kMaxUnits), 0);
  EXPECT_EQ(AddUnits(123, 456), 579);
}

TEST(MoneyText, ATinyAmountIsNeverAZeroBesideAShare) {
  EXPECT_EQ(FormatSmallAmount(0.004, 2), "<0.01");
  EXPECT_EQ(FormatSmallAmount(-0.004, 2), ">-0.01");
  EXPECT_EQ(FormatSmallAmount(0.4, 0), "<1");
  EXPECT_EQ(FormatSmallAmount(0, 2), "0.00");
  EXPECT_EQ(FormatSmallAmount(1234.5, 2), "1,234.50");
  EXPECT_EQ(FormatSmallAmount(NAN, 2), "-");
}

// Every rate of one table prints with the same decimals: the fewest that show each of them to the
// micro-dollar, from 2 up to 6.
TEST(MoneyText, RatesOfOneTableShareTheirDecimals) {
  EXPECT_EQ(RateDecimals(3.06), 2);
  EXPECT_EQ(RateDecimals(3.0), 2);
  EXPECT_EQ(RateDecimals(2.7447), 4);
  EXPECT_EQ(RateDecimals(3.430875), 6);
  EXPECT_EQ(RateDecimals(32.7726 / 8), 6);  // 4.096575
  EXPECT_EQ(RateDecimals(NAN), 2);
  const std::vector<double> table = {3.06, 1.17, 2.7447};
  int decimals = 2;
  for (double r : table) decimals = std::max(decimals, RateDecimals(r));
  EXPECT_EQ(FormatRateUsd(table[0], decimals), "$3.0600");
  EXPECT_EQ(FormatRateUsd(table[1], decimals), "$1.1700");
  EXPECT_EQ(FormatRateUsd(table[2], decimals), "$2.7447");
  EXPECT_EQ(FormatRateUsd(1234.5, 2), "$1,234.50");
  EXPECT_EQ(FormatRateUsd(-0.5, 2), "-$0.50");
  EXPECT_EQ(FormatRateUsd(3.4308751, 9), "$3.430875");  // never past the micro-dollar
  EXPECT_EQ(FormatRateUsd(NAN, 2), "unknown");
}

}  // namespace
}  // namespace gpucost
