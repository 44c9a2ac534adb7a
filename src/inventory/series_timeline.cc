#include "inventory/series_timeline.h"

#include <algorithm>

namespace gpucost {

void PointSeries::Add(int64_t t_ms, double v) {
  if (!points_.empty() && t_ms <= points_.back().t_ms) {
    if (t_ms == points_.back().t_ms) {
      points_.back().v = v;
      return;
    }
    sorted_ = false;
  }
  points_.push_back(Point{t_ms, v});
}

void PointSeries::Finish() {
  if (sorted_) return;
  std::stable_sort(points_.begin(), points_.end(),
                   [](const Point& a, const Point& b) { return a.t_ms < b.t_ms; });
  // Keep the last value written for each instant (stable sort keeps arrival order).
  std::vector<Point> out;
  out.reserve(points_.size());
  for (const Point& p : points_) {
    if (!out.empty() && out.back().t_ms == p.t_ms) {
      out.back().v = p.v;
    } else {
      out.push_back(p);
    }
  }
  points_ = std::move(out);
  sorted_ = true;
}

Duration EstimateInterval(const std::vector<Point>& points, const PresenceOptions& options) {
  if (points.size() < 2) return std::min(options.default_interval, options.staleness);
  std::vector<int64_t> gaps;
  gaps.reserve(points.size() - 1);
  for (size_t i = 1; i < points.size(); ++i) gaps.push_back(points[i].t_ms - points[i - 1].t_ms);
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<ptrdiff_t>(gaps.size() / 2),
                   gaps.end());
  const Duration median(gaps[gaps.size() / 2]);
  if (median.count() <= 0) return std::min(options.default_interval, options.staleness);
  return std::min(median, options.staleness);
}

std::vector<Interval> PresentIntervals(const std::vector<Point>& points,
                                       const PresenceOptions& options,
                                       const std::function<bool(double)>& keep) {
  std::vector<Interval> out;
  if (points.empty()) return out;
  const Duration interval = EstimateInterval(points, options);
  for (size_t i = 0; i < points.size(); ++i) {
    if (keep && !keep(points[i].v)) continue;
    const Instant t = InstantFromUnixMs(points[i].t_ms);
    Instant end = t + interval;
    if (i + 1 < points.size()) {
      const Instant next = InstantFromUnixMs(points[i + 1].t_ms);
      if (next - t <= options.staleness) end = next;
      else end = std::min(end, next);
    }
    if (!out.empty() && out.back().end >= t) {
      out.back().end = std::max(out.back().end, end);
    } else {
      out.push_back(Interval{t, end});
    }
  }
  return out;
}

std::vector<Interval> NormalizeIntervals(std::vector<Interval> v) {
  std::erase_if(v, [](const Interval& i) { return i.end <= i.start; });
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (!out.empty() && i.start <= out.back().end) {
      out.back().end = std::max(out.back().end, i.end);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

std::vector<Interval> UnionIntervals(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> all = a;
  all.insert(all.end(), b.begin(), b.end());
  return NormalizeIntervals(std::move(all));
}

std::vector<Interval> IntersectIntervals(const std::vector<Interval>& a,
                                         const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const Instant s = std::max(a[i].start, b[j].start);
    const Instant e = std::min(a[i].end, b[j].end);
    if (s < e) out.push_back(Interval{s, e});
    if (a[i].end < b[j].end) ++i;
    else ++j;
  }
  return out;
}

std::vector<Interval> ClipIntervals(const std::vector<Interval>& a, Window w) {
  return IntersectIntervals(a, {Interval{w.start, w.end}});
}

Duration TotalLength(const std::vector<Interval>& v) {
  Duration d{0};
  for (const Interval& i : v) d += i.end - i.start;
  return d;
}

}  // namespace gpucost
