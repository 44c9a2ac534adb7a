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
  last_->minutes |= uint64_t{1} << ((t_ms - hour * kMsPerHourInt) / 60'000);
  ++total_;
}

std::vector<SampleGap> FindSampleGaps(const SampleHours& s, int64_t from_ms, int64_t to_ms) {
  constexpr int64_t kMinute = 60'000;
  // The minutes (since the epoch) that hold a sample, inside the range, ascending.
  std::vector<int64_t> minutes;
  for (const auto& [hour, h] : s.hours()) {
    for (int m = 0; m < 60; ++m) {
      if ((h.minutes >> m & 1) == 0) continue;
      const int64_t minute = hour * 60 + m;
      if (minute * kMinute + kMinute > from_ms && minute * kMinute < to_ms)
        minutes.push_back(minute);
    }
  }
  std::vector<SampleGap> out;
  if (minutes.size() < 3) return out;
  std::vector<int64_t> steps;
  steps.reserve(minutes.size() - 1);
  for (size_t i = 1; i < minutes.size(); ++i) steps.push_back(minutes[i] - minutes[i - 1]);
  std::vector<int64_t> sorted = steps;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<ptrdiff_t>(sorted.size() / 2),
                   sorted.end());
  const int64_t usual = sorted[sorted.size() / 2];
  const int64_t longest_ok = std::max<int64_t>(10, 4 * usual);
  for (size_t i = 0; i < steps.size(); ++i) {
    // Minutes with no sample between two that have one: steps[i] - 1 of them.
    if (steps[i] - 1 > longest_ok) {
      out.push_back({(minutes[i] + 1) * kMinute, minutes[i + 1] * kMinute});
    }
  }
  return out;
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
