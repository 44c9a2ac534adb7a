#include "inventory/stray_samples.h"

#include <algorithm>
#include <iterator>

namespace gpucost {
namespace {

constexpr int64_t kMsPerHourInt = 3'600'000;
constexpr int64_t kMinGapMs = 6 * kMsPerHourInt;
constexpr double kMaxStrayShare = 0.001;

int64_t HourOf(int64_t t_ms) {
  return t_ms >= 0 ? t_ms / kMsPerHourInt : -((-t_ms + kMsPerHourInt - 1) / kMsPerHourInt);
}

// Of `hours` (ascending), the group after the widest cut among the last ones whose samples stay
// under the share; `from_end` walks the other way. Returns the edge, or none.
template <typename It>
std::optional<StrayEdge> EdgeFrom(It begin, It end, uint64_t total, int64_t data_min,
                                  int64_t data_max, bool tail) {
  // 0.1 % of the samples; in small inputs up to 10 samples, within 1 %.
  const double n = static_cast<double>(total);
  const auto most = static_cast<uint64_t>(std::max(kMaxStrayShare * n, std::min(10.0, 0.01 * n)));
  uint64_t count = 0;
  for (It it = begin; it != end; ++it) {
    count += it->second.count;
    if (count > most) return std::nullopt;
    const It next = std::next(it);
    if (next == end) return std::nullopt;
    // The group so far: `begin` to `it`; the rest: from `next` on.
    const int64_t group_near = tail ? it->second.min_ms : it->second.max_ms;
    const int64_t rest_near = tail ? next->second.max_ms : next->second.min_ms;
    const int64_t gap = tail ? group_near - rest_near : rest_near - group_near;
    const int64_t rest_min = tail ? data_min : next->second.min_ms;
    const int64_t rest_max = tail ? next->second.max_ms : data_max;
    if (gap >= kMinGapMs && gap * 4 >= rest_max - rest_min) {
      StrayEdge e;
      e.count = count;
      e.first_ms = tail ? it->second.min_ms : begin->second.min_ms;
      e.last_ms = tail ? begin->second.max_ms : it->second.max_ms;
      e.gap_ms = gap;
      e.rest_min_ms = rest_min;
      e.rest_max_ms = rest_max;
      return e;
    }
  }
  return std::nullopt;
}

}  // namespace

void SampleHours::Add(int64_t t_ms) {
  const int64_t hour = HourOf(t_ms);
  if (hour != last_hour_ || last_ == nullptr) {
    last_ = &hours_[hour];
    last_hour_ = hour;
  }
  ++last_->count;
  last_->min_ms = std::min(last_->min_ms, t_ms);
  last_->max_ms = std::max(last_->max_ms, t_ms);
  ++total_;
}

StrayEdges FindStrayEdges(const SampleHours& s) {
  StrayEdges out;
  const auto& h = s.hours();
  if (h.size() < 2) return out;
  const int64_t data_min = h.begin()->second.min_ms;
  const int64_t data_max = h.rbegin()->second.max_ms;
  out.tail = EdgeFrom(h.rbegin(), h.rend(), s.total(), data_min, data_max, /*tail=*/true);
  const int64_t max_after_tail = out.tail ? out.tail->rest_max_ms : data_max;
  out.head = EdgeFrom(h.begin(), h.end(), s.total(), data_min, max_after_tail, /*tail=*/false);
  if (out.head && out.tail) {
    // Both ends: the rest lies between them.
    out.tail->rest_min_ms = out.head->rest_min_ms;
    out.head->rest_max_ms = out.tail->rest_max_ms;
  }
  return out;
}

}  // namespace gpucost
