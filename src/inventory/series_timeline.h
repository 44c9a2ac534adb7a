// Turning scraped samples into presence intervals. A series is sampled at scrape times; it is
// present from its first sample until its last sample plus one scrape interval, estimated per
// series from the spacing of its samples (the median, default 30 s, at most an hour). A gap longer
// than SampleHoldLimit(interval, staleness) splits the presence. Plus small interval-set helpers.
// Stateless and thread-safe; a PointSeries or PresenceSeries is a plain value.
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "core/time.h"
#include "model/capacity.h"
#include "model/usage.h"

namespace gpucost {

struct Point {
  int64_t t_ms = 0;
  double v = 0;
};

// Whether two sample values are the same value: NaN is NaN, and 0 is -0.
inline bool SameSampleValue(double a, double b) { return a == b || (a != a && b != b); }

// What Add did with a sample. Conflicting duplicates must not change money silently: the caller
// says where a kConflict comes from, and notes where a series went kEarlier (docs/inputs.md).
struct Added {
  enum What : uint8_t {
    kInOrder,   // after the sample added before it, or that instant's value again
    kConflict,  // that sample's instant again with another value: the first one stays
    kEarlier,   // before the sample added before it: Finish() sorts and reports conflicts
  };
  What what = kInOrder;
  double kept = 0;  // kConflict: the instant's first value, which it keeps
};

// Instants at which Finish() found samples of different values: they arrived apart and out of
// time order, so Add could not tell. The first one in input order is kept, as Prometheus keeps
// it (docs/inputs.md "conflicting duplicates").
struct SampleConflicts {
  uint64_t instants = 0;   // 0: none
  int64_t first_t_ms = 0;  // the earliest such instant
  double kept = 0;         // the value kept there (the first in input order)
  double dropped = 0;      // one that came after it
};

// Samples of one series. Add in any order; Finish() sorts and keeps the first value per instant
// (the earlier sample in input order). A series added in time order costs Finish() nothing.
class PointSeries {
 public:
  Added Add(int64_t t_ms, double v) {
    if (!points_.empty() && t_ms <= points_.back().t_ms) return AddAtOrBefore(t_ms, v);
    points_.push_back(Point{t_ms, v});
    return Added{};
  }
  SampleConflicts Finish();
  const std::vector<Point>& points() const { return points_; }
  bool empty() const { return points_.empty(); }
  double last_value() const { return points_.empty() ? 0 : points_.back().v; }
  int64_t last_t() const { return points_.empty() ? 0 : points_.back().t_ms; }

 private:
  Added AddAtOrBefore(int64_t t_ms, double v);  // t_ms at or before the last sample's

  std::vector<Point> points_;
  bool sorted_ = true;
};

// The same samples as a PointSeries, stored compactly for presence series (0/1 flags, counts
// that rarely change): sample times as runs of equal spacing (first time, spacing, count) and
// values as the sample index from which each holds. A series scraped at a steady interval with
// a steady value takes a few dozen bytes however long it is; irregular times cost at most 8 bytes
// a sample. Add and Finish behave exactly as PointSeries's (first value per instant wins, the same
// conflicts reported), and ForEach visits the same points in time order.
class PresenceSeries {
 public:
  Added Add(int64_t t_ms, double v) {
    // Inline, what nearly every sample is: one more step of the last run, with its value.
    if (!times_.empty() && pending_.empty()) {
      TimeRun& r = times_.back();
      if (r.count > 1 && r.count < std::numeric_limits<uint32_t>::max() &&
          t_ms == r.t0 + int64_t{r.step} * r.count && Same(values_.back().v, v)) {
        ++r.count;
        ++size_;
        return Added{};
      }
    }
    return AddOther(t_ms, v);
  }
  SampleConflicts Finish();
  bool empty() const { return size_ == 0 && pending_.empty(); }
  uint64_t size() const { return size_; }  // once finished
  double last_value() const { return values_.empty() ? 0 : values_.back().v; }
  int64_t last_t() const {
    if (times_.empty()) return 0;
    const TimeRun& r = times_.back();
    return r.t0 + int64_t{r.step} * (r.count - 1);
  }
  // Calls f(t_ms, v) for each point in time order (once finished).
  template <class F>
  void ForEach(F&& f) const {
    uint64_t i = 0;
    size_t vi = 0;
    for (const TimeRun& r : times_) {
      for (uint32_t k = 0; k < r.count; ++k, ++i) {
        while (vi + 1 < values_.size() && values_[vi + 1].from <= i) ++vi;
        f(r.t0 + int64_t{r.step} * k, values_[vi].v);
      }
    }
  }
  // Calls f(spacing, how_many) for the spacings between consecutive points (once finished).
  template <class F>
  void ForEachSpacing(F&& f) const {
    for (size_t j = 0; j < times_.size(); ++j) {
      const TimeRun& r = times_[j];
      if (r.count > 1) f(int64_t{r.step}, uint64_t{r.count} - 1);
      if (j + 1 < times_.size()) {
        f(times_[j + 1].t0 - (r.t0 + int64_t{r.step} * (r.count - 1)), uint64_t{1});
      }
    }
  }

 private:
  struct TimeRun {
    int64_t t0 = 0;
    uint32_t step = 0;  // ms between consecutive points of the run; 0 while count is 1
    uint32_t count = 0;
  };
  struct ValueFrom {
    uint64_t from = 0;  // index of the first point with this value
    double v = 0;
  };
  static bool Same(double a, double b) {
    return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
  }
  void Append(int64_t t_ms, double v);  // t_ms after every point so far
  Added AddOther(int64_t t_ms, double v);  // any sample (Add's inline case included)

  std::vector<TimeRun> times_;
  std::vector<ValueFrom> values_;
  uint64_t size_ = 0;
  std::vector<Point> pending_;  // all points in arrival order once one came out of order
};

// Series whose samples hold longer than the staleness (sampled more sparsely than every 2/3 of
// it), noted as presence is computed so the reader can say so once.
struct SparseSeriesNote {
  Duration longest{0};  // the longest such interval; 0 while none was seen
};

struct PresenceOptions {
  // The interval of a series with one sample: a setting (at most the staleness), or, where
  // `default_learned`, the input's own (the median interval of its node series), which a series
  // seen once in a fetch (a pod that appears just before a window's end) shares with the series
  // beside it however the source was cut.
  Duration default_interval = std::chrono::seconds(30);
  Duration staleness = std::chrono::minutes(5);
  SparseSeriesNote* sparse = nullptr;  // where to note sparse series, if anywhere
  bool default_learned = false;
};

// Median spacing of the (finished) samples, at most kLongestLearnedInterval; for < 2 samples,
// the default interval (a set one at most the staleness).
Duration EstimateInterval(const std::vector<Point>& points, const PresenceOptions& options);

Duration EstimateInterval(const PresenceSeries& series, const PresenceOptions& options);

// Intervals during which the series is present and `keep(value)` holds for its latest sample.
// Each kept sample covers [t, next t) when the next sample comes within
// SampleHoldLimit(interval, staleness), else [t, t + interval). Result sorted, disjoint, merged.
std::vector<Interval> PresentIntervals(const std::vector<Point>& points,
                                       const PresenceOptions& options,
                                       const std::function<bool(double)>& keep = nullptr);
std::vector<Interval> PresentIntervals(const PresenceSeries& series, const PresenceOptions& options,
                                       const std::function<bool(double)>& keep = nullptr);

// Sorts and merges overlapping or touching intervals; drops empty ones.
std::vector<Interval> NormalizeIntervals(std::vector<Interval> v);
std::vector<Interval> UnionIntervals(const std::vector<Interval>& a, const std::vector<Interval>& b);
std::vector<Interval> IntersectIntervals(const std::vector<Interval>& a,
                                         const std::vector<Interval>& b);
std::vector<Interval> ClipIntervals(const std::vector<Interval>& a, Window w);
Duration TotalLength(const std::vector<Interval>& v);

}  // namespace gpucost
