#include "inventory/series_timeline.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace gpucost {

namespace {

// Counts the instants Finish() finds conflicting, in time order.
class ConflictCount {
 public:
  // At t_ms, `kept` stayed and a different value `v` was dropped.
  void Note(int64_t t_ms, double kept, double v) {
    if (found_.instants == 0 || t_ms != last_t_ms_) {
      if (found_.instants == 0) found_.first_t_ms = t_ms;
      ++found_.instants;
      last_t_ms_ = t_ms;
    }
    if (t_ms == found_.first_t_ms) {
      found_.kept = kept;
      found_.dropped = v;
    }
  }
  const SampleConflicts& found() const { return found_; }

 private:
  SampleConflicts found_;
  int64_t last_t_ms_ = 0;
};

}  // namespace

Added PointSeries::AddAtOrBefore(int64_t t_ms, double v) {
  if (t_ms == points_.back().t_ms) {
    const double had = points_.back().v;
    return SameSampleValue(had, v) ? Added{} : Added{Added::kConflict, had};
  }
  sorted_ = false;
  points_.push_back(Point{t_ms, v});
  return Added{Added::kEarlier, 0};
}

SampleConflicts PointSeries::Finish() {
  if (sorted_) return {};
  std::stable_sort(points_.begin(), points_.end(),
                   [](const Point& a, const Point& b) { return a.t_ms < b.t_ms; });
  // Keep the first value written for each instant (stable sort keeps arrival order).
  ConflictCount conflicts;
  std::vector<Point> out;
  out.reserve(points_.size());
  for (const Point& p : points_) {
    if (!out.empty() && out.back().t_ms == p.t_ms) {
      if (!SameSampleValue(out.back().v, p.v)) conflicts.Note(p.t_ms, out.back().v, p.v);
    } else {
      out.push_back(p);
    }
  }
  points_ = std::move(out);
  sorted_ = true;
  return conflicts.found();
}

void PresenceSeries::Append(int64_t t_ms, double v) {
  if (times_.empty()) {
    times_.push_back(TimeRun{t_ms, 0, 1});
  } else {
    TimeRun& r = times_.back();
    const int64_t gap = t_ms - last_t();
    constexpr int64_t kMaxStep = std::numeric_limits<uint32_t>::max();
    if (r.count == 1 && gap <= kMaxStep) {
      r.step = static_cast<uint32_t>(gap);
      r.count = 2;
    } else if (r.count > 1 && gap == int64_t{r.step} &&
               r.count < std::numeric_limits<uint32_t>::max()) {
      ++r.count;
    } else {
      times_.push_back(TimeRun{t_ms, 0, 1});
    }
  }
  if (values_.empty() || !Same(values_.back().v, v)) values_.push_back(ValueFrom{size_, v});
  ++size_;
}

Added PresenceSeries::AddOther(int64_t t_ms, double v) {
  if (!pending_.empty()) {  // out of order already: as PointSeries, sorted by Finish()
    Point& last = pending_.back();
    if (t_ms == last.t_ms) {
      const double had = last.v;
      return SameSampleValue(had, v) ? Added{} : Added{Added::kConflict, had};
    }
    const bool earlier = t_ms < last.t_ms;
    pending_.push_back(Point{t_ms, v});
    return earlier ? Added{Added::kEarlier, 0} : Added{};
  }
  if (size_ == 0 || t_ms > last_t()) {
    Append(t_ms, v);
    return Added{};
  }
  if (t_ms == last_t()) {  // the first value written for an instant stays
    const double had = values_.back().v;
    return SameSampleValue(had, v) ? Added{} : Added{Added::kConflict, had};
  }
  // Out of order: keep every point in arrival order until Finish().
  pending_.reserve(size_ + 1);
  ForEach([&](int64_t t, double value) { pending_.push_back(Point{t, value}); });
  pending_.push_back(Point{t_ms, v});
  times_ = {};
  values_ = {};
  size_ = 0;
  return Added{Added::kEarlier, 0};
}

SampleConflicts PresenceSeries::Finish() {
  if (pending_.empty()) return {};
  std::vector<Point> points = std::move(pending_);
  pending_ = {};
  // Stable: of the points at one instant, the one written first is added first and stays.
  std::stable_sort(points.begin(), points.end(),
                   [](const Point& a, const Point& b) { return a.t_ms < b.t_ms; });
  ConflictCount conflicts;
  for (const Point& p : points) {
    const Added added = Add(p.t_ms, p.v);
    if (added.what == Added::kConflict) conflicts.Note(p.t_ms, added.kept, p.v);
  }
  return conflicts.found();
}

namespace {

Duration DefaultInterval(const PresenceOptions& options) {
  return options.default_learned ? options.default_interval
                                 : std::min(options.default_interval, options.staleness);
}

}  // namespace

Duration EstimateInterval(const std::vector<Point>& points, const PresenceOptions& options) {
  if (points.size() < 2) return DefaultInterval(options);
  std::vector<int64_t> gaps;
  gaps.reserve(points.size() - 1);
  for (size_t i = 1; i < points.size(); ++i) gaps.push_back(points[i].t_ms - points[i - 1].t_ms);
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<ptrdiff_t>(gaps.size() / 2),
                   gaps.end());
  const Duration median(gaps[gaps.size() / 2]);
  if (median.count() <= 0) return DefaultInterval(options);
  return std::min(median, kLongestLearnedInterval);
}

Duration EstimateInterval(const PresenceSeries& series, const PresenceOptions& options) {
  if (series.size() < 2) return DefaultInterval(options);
  // The same median as over the points: spacings with their multiplicities, sorted.
  std::vector<std::pair<int64_t, uint64_t>> gaps;
  series.ForEachSpacing([&](int64_t gap, uint64_t n) { gaps.emplace_back(gap, n); });
  std::sort(gaps.begin(), gaps.end());
  const uint64_t target = (series.size() - 1) / 2;
  uint64_t seen = 0;
  int64_t median_ms = 0;
  for (const auto& [gap, n] : gaps) {
    if (target < seen + n) {
      median_ms = gap;
      break;
    }
    seen += n;
  }
  const Duration median(median_ms);
  if (median.count() <= 0) return DefaultInterval(options);
  return std::min(median, kLongestLearnedInterval);
}

namespace {

// How long a sample holds when no next one follows within the hold limit (a series' last sample,
// or its last before a gap): the median of the spacings of up to kLocalSpacings samples before it,
// else the series' own interval. The series' median over the whole read depended on which
// samples the read held (a store is read a window at a time, ±30 minutes; scrapes jitter), and so
// did the money of such a step; every read that costs the sample holds the samples just before it.
constexpr size_t kLocalSpacings = 8;

class RecentSpacings {
 public:
  void Add(int64_t gap_ms) {
    gaps_[n_ % kLocalSpacings] = gap_ms;
    ++n_;
  }
  Duration Median(Duration fallback) const {
    const size_t k = std::min(n_, kLocalSpacings);
    if (k == 0) return fallback;
    std::array<int64_t, kLocalSpacings> g = gaps_;
    std::nth_element(g.begin(), g.begin() + static_cast<ptrdiff_t>(k / 2),
                     g.begin() + static_cast<ptrdiff_t>(k));
    const Duration median(g[k / 2]);
    return median.count() > 0 ? std::min(median, kLongestLearnedInterval) : fallback;
  }

 private:
  std::array<int64_t, kLocalSpacings> gaps_{};
  size_t n_ = 0;
};

// How far apart two samples may lie and still be one presence; notes a sparse series.
Duration HoldLimit(Duration interval, const PresenceOptions& options) {
  const Duration limit = SampleHoldLimit(interval, options.staleness);
  // Noted only where the series' own interval is past the staleness: within it (hourly samples
  // under --staleness 1h) the staleness already bridges the gaps, and there is nothing to say.
  if (interval > options.staleness && options.sparse != nullptr) {
    options.sparse->longest = std::max(options.sparse->longest, interval);
  }
  return limit;
}

}  // namespace

std::vector<Interval> PresentIntervals(const PresenceSeries& series, const PresenceOptions& options,
                                       const std::function<bool(double)>& keep) {
  std::vector<Interval> out;
  if (series.size() == 0) return out;
  const Duration interval = EstimateInterval(series, options);
  const Duration limit = HoldLimit(interval, options);
  // As the vector overload, one point behind: each point is placed once the next one is known.
  RecentSpacings recent;
  auto place = [&](const Point& p, const Point* next) {
    if (keep && !keep(p.v)) return;
    const Instant t = InstantFromUnixMs(p.t_ms);
    Instant end;
    if (next != nullptr && InstantFromUnixMs(next->t_ms) - t <= limit) {
      end = InstantFromUnixMs(next->t_ms);
    } else {  // the median of the recent spacings only where a sample has no next to hold to
      end = t + recent.Median(interval);
      if (next != nullptr) end = std::min(end, InstantFromUnixMs(next->t_ms));
    }
    if (!out.empty() && out.back().end >= t) {
      out.back().end = std::max(out.back().end, end);
    } else {
      out.push_back(Interval{t, end});
    }
  };
  bool have = false;
  Point prev;
  series.ForEach([&](int64_t t_ms, double v) {
    const Point cur{t_ms, v};
    if (have) {
      place(prev, &cur);
      recent.Add(cur.t_ms - prev.t_ms);
    }
    prev = cur;
    have = true;
  });
  if (have) place(prev, nullptr);
  return out;
}

std::vector<Interval> PresentIntervals(const std::vector<Point>& points,
                                       const PresenceOptions& options,
                                       const std::function<bool(double)>& keep) {
  std::vector<Interval> out;
  if (points.empty()) return out;
  const Duration interval = EstimateInterval(points, options);
  const Duration limit = HoldLimit(interval, options);
  RecentSpacings recent;
  for (size_t i = 0; i < points.size(); ++i) {
    if (i > 0) recent.Add(points[i].t_ms - points[i - 1].t_ms);
    if (keep && !keep(points[i].v)) continue;
    const Instant t = InstantFromUnixMs(points[i].t_ms);
    const bool has_next = i + 1 < points.size();
    const Instant next = has_next ? InstantFromUnixMs(points[i + 1].t_ms) : t;
    Instant end;
    if (has_next && next - t <= limit) {
      end = next;
    } else {
      end = t + recent.Median(interval);
      if (has_next) end = std::min(end, next);
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
