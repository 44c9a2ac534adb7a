// Counter increases from raw samples: rises, resets, gaps, the baseline before the window,
// the window's edges, and that adjacent windows add up to their union.
#include "workcost/counter_increase.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpucost::workcost {
namespace {

constexpr int64_t kT0 = 1790812800000;  // 2026-10-01T00:00:00Z

// Samples every minute from kT0 with these values.
std::vector<CounterSample> EveryMinute(const std::vector<double>& values, int first_minute = 0) {
  std::vector<CounterSample> out;
  for (size_t i = 0; i < values.size(); ++i) {
    out.push_back({kT0 + (first_minute + static_cast<int64_t>(i)) * 60000, values[i]});
  }
  return out;
}

Window Minutes(int from, int to) {
  return {InstantFromUnixMs(kT0 + from * 60000LL), InstantFromUnixMs(kT0 + to * 60000LL)};
}

TEST(CounterIncrease, SumsTheRisesBetweenSamples) {
  const auto s = EveryMinute({10, 15, 15, 40});
  const CounterIncrease inc = IncreaseOver(s, Minutes(0, 10), std::chrono::minutes(5));
  EXPECT_DOUBLE_EQ(inc.increase, 30);  // 40 - 10: the first sample is the starting point
  EXPECT_EQ(inc.resets, 0);
  EXPECT_EQ(inc.samples, 4);
  EXPECT_FALSE(inc.baseline_before_window);
}

TEST(CounterIncrease, AFallIsARestartFromZero) {
  // 100 -> 130 (+30), reset to 5 (+5: counted from zero), 5 -> 25 (+20), reset to 0 (+0),
  // 0 -> 7 (+7): 62, where last - first would say -93.
  const auto s = EveryMinute({100, 130, 5, 25, 0, 7});
  const CounterIncrease inc = IncreaseOver(s, Minutes(0, 10), std::chrono::minutes(5));
  EXPECT_DOUBLE_EQ(inc.increase, 62);
  EXPECT_EQ(inc.resets, 2);
}

TEST(CounterIncrease, AGapCountsTheRiseAcrossItOnce) {
  // Minutes 0-2, nothing for 20 minutes, then 23-24: the rise 30 -> 90 across the gap counts.
  std::vector<CounterSample> s = EveryMinute({10, 20, 30});
  for (const CounterSample& c : EveryMinute({90, 95}, 23)) s.push_back(c);
  EXPECT_DOUBLE_EQ(IncreaseOver(s, Minutes(0, 30), std::chrono::minutes(5)).increase, 85);
  // The same gap ending in a reset: 30 -> 4 is a restart (+4), then +5.
  s[3].value = 4;
  s[4].value = 9;
  const CounterIncrease inc = IncreaseOver(s, Minutes(0, 30), std::chrono::minutes(5));
  EXPECT_DOUBLE_EQ(inc.increase, 20 + 4 + 5);
  EXPECT_EQ(inc.resets, 1);
}

TEST(CounterIncrease, TheNewestSampleBeforeTheWindowIsTheBaseline) {
  const auto s = EveryMinute({0, 10, 20, 30, 40, 50, 60});
  // Window [3m, 6m): samples 30, 40, 50 plus the baseline 20 at 2m.
  CounterIncrease inc = IncreaseOver(s, Minutes(3, 6), std::chrono::minutes(5));
  EXPECT_DOUBLE_EQ(inc.increase, 30);
  EXPECT_TRUE(inc.baseline_before_window);
  EXPECT_EQ(inc.samples, 4);
  // A baseline older than the lookback is not used: 50 - 30.
  inc = IncreaseOver(s, Minutes(3, 6), std::chrono::seconds(30));
  EXPECT_DOUBLE_EQ(inc.increase, 20);
  EXPECT_FALSE(inc.baseline_before_window);
}

TEST(CounterIncrease, AdjacentWindowsAddUpToTheirUnion) {
  const auto s = EveryMinute({3, 9, 12, 2, 8, 8, 20, 1, 4, 30});
  const auto lookback = std::chrono::minutes(5);
  const double whole = IncreaseOver(s, Minutes(0, 10), lookback).increase;
  for (int cut = 1; cut < 10; ++cut) {
    const double parts = IncreaseOver(s, Minutes(0, cut), lookback).increase +
                         IncreaseOver(s, Minutes(cut, 10), lookback).increase;
    EXPECT_DOUBLE_EQ(parts, whole) << "cut at minute " << cut;
  }
  // 6 + 3 + 2 (reset) + 6 + 0 + 12 + 1 (reset) + 3 + 26
  EXPECT_DOUBLE_EQ(whole, 59);
}

TEST(CounterIncrease, TheWindowEndIsExclusiveAndEmptyCasesAreZero) {
  const auto s = EveryMinute({0, 10, 20});
  // [0, 2m) holds 0 and 10; the sample at 2m belongs to the next window.
  EXPECT_DOUBLE_EQ(IncreaseOver(s, Minutes(0, 2), std::chrono::minutes(5)).increase, 10);
  EXPECT_DOUBLE_EQ(IncreaseOver(s, Minutes(0, 1), std::chrono::minutes(5)).increase, 0);
  EXPECT_EQ(IncreaseOver(s, Minutes(5, 9), std::chrono::seconds(1)).samples, 0);
  EXPECT_DOUBLE_EQ(IncreaseOver({}, Minutes(0, 9), std::chrono::minutes(5)).increase, 0);
}

}  // namespace
}  // namespace gpucost::workcost
