// Turning scraped samples into presence intervals. A series is sampled at scrape times; it is
// present from its first sample until its last sample plus one scrape interval, estimated per
// series from the spacing of its samples (default 30 s) and capped by the staleness limit. A gap
// longer than the staleness limit splits the presence. Plus small interval-set helpers.
// Stateless and thread-safe; a PointSeries is a plain value.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/time.h"
#include "model/capacity.h"

namespace gpucost {

struct Point {
  int64_t t_ms = 0;
  double v = 0;
};

// Samples of one series. Add in any order; Finish() sorts and keeps the last value per instant.
class PointSeries {
 public:
  void Add(int64_t t_ms, double v);
  void Finish();
  const std::vector<Point>& points() const { return points_; }
  bool empty() const { return points_.empty(); }
  double last_value() const { return points_.empty() ? 0 : points_.back().v; }
  int64_t last_t() const { return points_.empty() ? 0 : points_.back().t_ms; }

 private:
  std::vector<Point> points_;
  bool sorted_ = true;
};

struct PresenceOptions {
  Duration default_interval = std::chrono::seconds(30);
  Duration staleness = std::chrono::minutes(5);
};

// Median spacing of the (finished) samples, capped by staleness; the default for < 2 samples.
Duration EstimateInterval(const std::vector<Point>& points, const PresenceOptions& options);

// Intervals during which the series is present and `keep(value)` holds for its latest sample.
// Each kept sample covers [t, next t) when the next sample comes within the staleness limit,
// else [t, t + interval). Result sorted, disjoint, merged.
std::vector<Interval> PresentIntervals(const std::vector<Point>& points,
                                       const PresenceOptions& options,
                                       const std::function<bool(double)>& keep = nullptr);

// Sorts and merges overlapping or touching intervals; drops empty ones.
std::vector<Interval> NormalizeIntervals(std::vector<Interval> v);
std::vector<Interval> UnionIntervals(const std::vector<Interval>& a, const std::vector<Interval>& b);
std::vector<Interval> IntersectIntervals(const std::vector<Interval>& a,
                                         const std::vector<Interval>& b);
std::vector<Interval> ClipIntervals(const std::vector<Interval>& a, Window w);
Duration TotalLength(const std::vector<Interval>& v);

}  // namespace gpucost
