// Samples far from the rest of the data are left out of the default window, and said; data with
// an ordinary gap (two days of files a day apart) is not.
#include "inventory/stray_samples.h"

#include <gtest/gtest.h>

#include "inventory/inventory_builder.h"
#include "inventory/inventory_test_util.h"

namespace gpucost {
namespace {

using namespace inventory_test;  // NOLINT(google-build-using-namespace): test helpers

constexpr int64_t kHour = 3'600'000;

// A day of samples, 100 a minute.
SampleHours ADay(int64_t from_ms = 0) {
  SampleHours h;
  for (int64_t m = 0; m < 24 * 60; ++m) {
    for (int i = 0; i < 100; ++i) h.Add(from_ms + m * 60'000);
  }
  return h;
}

TEST(StraySamples, AThinGroupFarAfterOrBeforeTheRestIsStray) {
  SampleHours h = ADay();
  h.Add(24 * kHour + 24 * kHour);  // a day after the day ends
  h.Add(-30 * kHour);              // and a day and more before it starts
  const StrayEdges e = FindStrayEdges(h);
  ASSERT_TRUE(e.tail.has_value());
  EXPECT_EQ(e.tail->count, 1u);
  EXPECT_EQ(e.tail->first_ms, 48 * kHour);
  EXPECT_EQ(e.tail->rest_max_ms, 24 * kHour - 60'000);
  EXPECT_EQ(e.tail->gap_ms, 48 * kHour - (24 * kHour - 60'000));
  ASSERT_TRUE(e.head.has_value());
  EXPECT_EQ(e.head->last_ms, -30 * kHour);
  EXPECT_EQ(e.head->rest_min_ms, 0);
  EXPECT_EQ(e.tail->rest_min_ms, 0);
}

TEST(StraySamples, OrdinaryGapsAndThickGroupsAreNot) {
  // Two days a day apart: the second holds half the samples.
  SampleHours two = ADay();
  for (int64_t m = 0; m < 24 * 60; ++m) two.Add(48 * kHour + m * 60'000);
  EXPECT_FALSE(FindStrayEdges(two).tail.has_value());
  // A thin tail close to the rest (under 6 h, or under a quarter of the rest's span).
  SampleHours near = ADay();
  near.Add(24 * kHour + 5 * kHour);
  EXPECT_FALSE(FindStrayEdges(near).tail.has_value());
  // More than 0.1 % of the samples far after.
  SampleHours thick = ADay();
  for (int i = 0; i < 200; ++i) thick.Add(72 * kHour);
  EXPECT_FALSE(FindStrayEdges(thick).tail.has_value());
}

// The builder: one dcgm sample stamped 2090 in 100 minutes of scrapes leaves the default window
// at the scrapes' own end, with a warning; with an explicit window nothing changes.
TEST(StraySamples, TheDefaultWindowEndsWithTheRestAndSaysSo) {
  const std::string lines =
      "kube_node_status_capacity{node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 2 %T\n"
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n1\"} 0.5 %T\n";
  const std::string stray =
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-a\",Hostname=\"n1\"} 0.5 "
      "3786912000000\n";  // 2090-01-01
  auto t = Load(Every30s(lines, 200) + stray);
  EXPECT_EQ(UnixMs(t.span.end), 6000000);
  EXPECT_EQ(UnixMs(t.window.end), 6000000);
  EXPECT_TRUE(HasWarning(t, "1 sample from 2090-01-01T00:00:00Z to 2090-01-01T00:00:00Z lies"));
  EXPECT_TRUE(HasWarning(t, "left out of the default window"));

  TimelineOptions o;
  o.window = Window{InstantFromUnixMs(0), InstantFromUnixMs(6000000)};
  auto explicit_window = Load(Every30s(lines, 200) + stray, o);
  EXPECT_FALSE(HasWarning(explicit_window, "left out of the default window"));
}

// Stretches without any sample: longer than 10 minutes and 4 times the data's usual spacing.
TEST(SampleGaps, AHoleLongerThanTheUsualSpacingIsFoundAndScrapeSpacingIsNot) {
  constexpr int64_t kMin = 60'000;
  SampleHours every15s;
  for (int64_t t = 0; t < 120 * kMin; t += 15'000) {
    if (t < 40 * kMin || t >= 60 * kMin) every15s.Add(t);
  }
  const std::vector<SampleGap> gaps = FindSampleGaps(every15s, 0, 120 * kMin);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].start_ms, 40 * kMin);
  EXPECT_EQ(gaps[0].end_ms, 60 * kMin);
  // Only the part inside the range counts: a range that ends in the hole finds none.
  EXPECT_TRUE(FindSampleGaps(every15s, 0, 50 * kMin).empty());

  // Scrapes every 5 minutes: 4 empty minutes between them are no gap; a 30-minute hole is (more
  // than 10 minutes and 4 times 5), a 15-minute one is not.
  SampleHours every5m;
  for (int64_t t = 0; t < 240 * kMin; t += 5 * kMin) {
    if ((t <= 60 * kMin || t >= 90 * kMin) && t != 150 * kMin && t != 155 * kMin) every5m.Add(t);
  }
  const std::vector<SampleGap> sparse = FindSampleGaps(every5m, 0, 240 * kMin);
  ASSERT_EQ(sparse.size(), 1u);
  EXPECT_EQ(sparse[0].start_ms, 61 * kMin);
  EXPECT_EQ(sparse[0].end_ms, 90 * kMin);
}

// The builder says where its input has no sample at all, and that nothing is costed there.
TEST(SampleGaps, TheBuilderWarnsOfAHoleInTheData) {
  const std::string lines =
      "kube_node_status_capacity{node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 2 %T\n";
  const std::string text = Every30s(lines, 40);        // 20 minutes from 0
  const std::string later = Every30s(lines, 40, 120);  // the same, from 01:00
  auto t = Load(text + later);
  EXPECT_TRUE(HasWarning(t, "no sample at all from 1970-01-01T00:20:00Z to 1970-01-01T01:00:00Z"))
      << t.warnings.size();
  EXPECT_FALSE(HasWarning(Load(text), "no sample at all"));
}

}  // namespace
}  // namespace gpucost
