#include "inventory/series_timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <vector>

namespace gpucost {
namespace {

std::vector<Point> PointsOf(const PresenceSeries& s) {
  std::vector<Point> out;
  s.ForEach([&](int64_t t, double v) { out.push_back(Point{t, v}); });
  return out;
}

void ExpectSame(const PointSeries& p, const PresenceSeries& r, const PresenceOptions& o) {
  const std::vector<Point> got = PointsOf(r);
  ASSERT_EQ(got.size(), p.points().size());
  EXPECT_EQ(r.size(), p.points().size());
  EXPECT_EQ(r.empty(), p.empty());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].t_ms, p.points()[i].t_ms) << i;
    EXPECT_EQ(std::bit_cast<uint64_t>(got[i].v), std::bit_cast<uint64_t>(p.points()[i].v)) << i;
  }
  EXPECT_EQ(r.last_t(), p.last_t());
  EXPECT_EQ(std::bit_cast<uint64_t>(r.last_value()), std::bit_cast<uint64_t>(p.last_value()));
  EXPECT_EQ(EstimateInterval(r, o), EstimateInterval(p.points(), o));
  const auto positive = [](double v) { return v > 0.5; };
  for (const auto& keep : {std::function<bool(double)>(), std::function<bool(double)>(positive)}) {
    const auto a = PresentIntervals(r, o, keep);
    const auto b = PresentIntervals(p.points(), o, keep);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].start, b[i].start);
      EXPECT_EQ(a[i].end, b[i].end);
    }
  }
}

TEST(PresenceSeries, SteadySeriesIsAFewRuns) {
  PointSeries p;
  PresenceSeries r;
  for (int64_t k = 0; k < 1000; ++k) {
    const double v = k < 600 ? 1 : 0;
    p.Add(1'700'000'000'000 + k * 60'000, v);
    r.Add(1'700'000'000'000 + k * 60'000, v);
  }
  p.Finish();
  r.Finish();
  ExpectSame(p, r, PresenceOptions{});
  EXPECT_EQ(EstimateInterval(r, PresenceOptions{}), std::chrono::seconds(60));
}

TEST(PresenceSeries, EmptyAndSingle) {
  PresenceSeries r;
  r.Finish();
  EXPECT_TRUE(r.empty());
  EXPECT_TRUE(PresentIntervals(r, PresenceOptions{}).empty());
  PointSeries p;
  p.Add(5, 1);
  r.Add(5, 1);
  p.Finish();
  r.Finish();
  ExpectSame(p, r, PresenceOptions{});
}

void ExpectSameConflicts(const SampleConflicts& a, const SampleConflicts& b) {
  EXPECT_EQ(a.instants, b.instants);
  if (a.instants == 0 || b.instants == 0) return;
  EXPECT_EQ(a.first_t_ms, b.first_t_ms);
  EXPECT_EQ(std::bit_cast<uint64_t>(a.dropped), std::bit_cast<uint64_t>(b.dropped));
  EXPECT_EQ(std::bit_cast<uint64_t>(a.kept), std::bit_cast<uint64_t>(b.kept));
}

// Random series (steady runs, jitter, gaps past the staleness limit, repeated instants, samples
// out of order, NaN and -0) read exactly as a PointSeries reads them, with the same conflicts.
TEST(PresenceSeries, MatchesPointSeries) {
  std::mt19937_64 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  const double values[] = {0, 1, -0.0, 0.25, std::nan(""), 3};
  for (int round = 0; round < 2000; ++round) {
    PointSeries p;
    PresenceSeries r;
    int64_t t = 1'700'000'000'000 + pick(1000);
    double v = values[pick(6)];
    const int n = pick(60);
    int64_t step = 30'000 * (1 + pick(3));
    for (int i = 0; i < n; ++i) {
      switch (pick(12)) {
        case 0: t += 400'000 + pick(1'000'000); break;     // past staleness
        case 1: t += pick(5'000) + 1; break;               // jitter
        case 2: break;                                     // same instant again
        case 3: t -= pick(200'000); break;                 // out of order
        case 4: step = 15'000 * (1 + pick(4)); t += step; break;
        default: t += step; break;
      }
      if (pick(5) == 0) v = values[pick(6)];
      const Added a = p.Add(t, v);
      const Added b = r.Add(t, v);
      EXPECT_EQ(a.what, b.what);
      if (a.what == Added::kConflict) {
        EXPECT_EQ(std::bit_cast<uint64_t>(a.kept), std::bit_cast<uint64_t>(b.kept));
      }
    }
    ExpectSameConflicts(p.Finish(), r.Finish());
    const PresenceOptions o{std::chrono::seconds(30 * (1 + pick(2))),
                            std::chrono::minutes(1 + pick(6))};
    SCOPED_TRACE(round);
    ExpectSame(p, r, o);
    if (HasFailure()) return;
  }
}

// The later sample of an instant wins. A repeat of the instant just added is a conflict at once;
// samples that arrive apart are found by Finish(), which names the earliest instant and counts.
TEST(PointSeries, ConflictingSamplesAreToldAtAddOrFinish) {
  for (const bool presence : {false, true}) {
    SCOPED_TRACE(presence);
    PointSeries p;
    PresenceSeries r;
    const auto add = [&](int64_t t, double v) { return presence ? r.Add(t, v) : p.Add(t, v); };
    EXPECT_EQ(add(0, 0).what, Added::kInOrder);
    EXPECT_EQ(add(30, 1).what, Added::kInOrder);
    EXPECT_EQ(add(30, 1).what, Added::kInOrder);  // the same value again: nothing
    const Added repeat = add(30, 2);
    EXPECT_EQ(repeat.what, Added::kConflict);
    EXPECT_EQ(repeat.kept, 1);  // the first value stays
    EXPECT_EQ(add(60, 1).what, Added::kInOrder);
    EXPECT_EQ(add(0, 0).what, Added::kEarlier);   // back in time with the same value
    EXPECT_EQ(add(60, 3).what, Added::kInOrder);  // after the sample before it
    EXPECT_EQ(add(30, 5).what, Added::kEarlier);
    EXPECT_EQ(add(30, 6).what, Added::kConflict);  // told at once, not again by Finish
    EXPECT_EQ(add(90, std::nan("")).what, Added::kInOrder);
    EXPECT_EQ(add(90, std::nan("")).what, Added::kInOrder);  // NaN is NaN
    EXPECT_EQ(add(0, -0.0).what, Added::kEarlier);
    const SampleConflicts found = presence ? r.Finish() : p.Finish();
    // 30: 1, then 5 (2 and 6 were dropped as they came); 60: 1, then 3. 0 and -0 are the same
    // value. The first value of each instant stays.
    EXPECT_EQ(found.instants, 2u);
    EXPECT_EQ(found.first_t_ms, 30);
    EXPECT_EQ(found.kept, 1);
    EXPECT_EQ(found.dropped, 5);
    std::vector<Point> got = presence ? PointsOf(r) : p.points();
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[1].v, 1);
    EXPECT_EQ(got[2].v, 1);
    EXPECT_EQ((presence ? r.Finish() : p.Finish()).instants, 0u);  // once finished, in order
  }
}

// Scrapes every 10 minutes under a 5-minute staleness: each sample stands for up to 1.5 of the
// series' intervals, so three hours of scrapes are three hours of presence (the staleness alone
// would make it 18 five-minute pieces, half the time), and the reader is told.
TEST(PresentIntervals, SparseSeriesFollowTheirOwnInterval) {
  SparseSeriesNote note;
  const PresenceOptions o{std::chrono::seconds(30), std::chrono::minutes(5), &note};
  std::vector<Point> pts;
  for (int64_t t = 0; t < 3 * 3'600'000; t += 600'000) pts.push_back({t, 1});
  auto iv = PresentIntervals(pts, o);
  ASSERT_EQ(iv.size(), 1u);
  EXPECT_EQ(UnixMs(iv[0].start), 0);
  EXPECT_EQ(UnixMs(iv[0].end), 3 * 3'600'000);
  EXPECT_EQ(note.longest, std::chrono::minutes(10));
  PresenceSeries r;
  for (const Point& p : pts) r.Add(p.t_ms, p.v);
  r.Finish();
  EXPECT_EQ(PresentIntervals(r, o), iv);
  // A gap of more than 15 minutes (two missed scrapes) still splits it.
  pts.erase(pts.begin() + 5, pts.begin() + 7);
  auto split = PresentIntervals(pts, o);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(UnixMs(split[0].end), 50 * 60'000);
  // Dense series say nothing.
  SparseSeriesNote quiet;
  const PresenceOptions dense{std::chrono::seconds(30), std::chrono::minutes(5), &quiet};
  PresentIntervals({{0, 1}, {30'000, 1}, {60'000, 1}}, dense);
  EXPECT_EQ(quiet.longest, Duration(0));
}

// A series' last sample before a gap holds for the spacing of the samples just before it, so that
// every read that holds it (a store's window ±30 minutes, a file whole, a serve chunk) costs it
// alike. It held for the median spacing of the whole read, which with jittered scrapes depended on
// which samples the read held.
TEST(PresentIntervals, TheLastSampleBeforeAGapHoldsAlikeWhateverElseTheReadHolds) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int64_t> jitter(0, 25'000);
  std::vector<Point> all;
  int64_t t = 0;
  for (int i = 0; i < 240; ++i, t += 30'000) all.push_back({t + jitter(rng), 1});
  const int64_t last_before_gap = all.back().t_ms;
  t += 20 * 60'000;
  for (int i = 0; i < 40; ++i, t += 60'000) all.push_back({t + jitter(rng), 1});  // slower after
  const auto end_of = [last_before_gap](const std::vector<Point>& points) {
    for (const Interval& iv : PresentIntervals(points, PresenceOptions{})) {
      if (UnixMs(iv.start) <= last_before_gap && UnixMs(iv.end) > last_before_gap) {
        return UnixMs(iv.end);
      }
    }
    return int64_t{-1};
  };
  const int64_t whole = end_of(all);
  ASSERT_GT(whole, last_before_gap);
  // Reads that end in the gap, that start half an hour before it, and both.
  const auto first = all.begin();
  const auto gap = std::find_if(all.begin(), all.end(),
                                [&](const Point& p) { return p.t_ms > last_before_gap; });
  const auto half_hour_before = std::find_if(all.begin(), all.end(), [&](const Point& p) {
    return p.t_ms >= last_before_gap - 30 * 60'000;
  });
  EXPECT_EQ(end_of({first, gap}), whole);
  EXPECT_EQ(end_of({half_hour_before, all.end()}), whole);
  EXPECT_EQ(end_of({half_hour_before, gap}), whole);
  // The same from the compact series.
  PresenceSeries compact;
  for (const Point& p : all) compact.Add(p.t_ms, p.v);
  compact.Finish();
  std::vector<Interval> from_compact = PresentIntervals(compact, PresenceOptions{});
  EXPECT_EQ(from_compact, PresentIntervals(all, PresenceOptions{}));
}

}  // namespace
}  // namespace gpucost
