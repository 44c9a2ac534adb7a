// Samples far from the rest of the data: a clock that jumped, a hand-edited line, a test series
// left in a dump. One sample stamped 2090 in a day's scrapes would make the default window run to
// 2090 (idle rows to then, recommendations and alerts judged at its end). SampleHours tallies the
// used samples per hour; StrayEdges finds a thin group at either end, cut from the rest by a long
// gap, so that the default window can leave it out and say so.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace gpucost {

class SampleHours {
 public:
  void Add(int64_t t_ms);

  struct Hour {
    uint64_t count = 0;
    int64_t min_ms = INT64_MAX;
    int64_t max_ms = INT64_MIN;
    uint64_t minutes = 0;  // bit m: a sample in minute m of the hour
  };
  const std::map<int64_t, Hour>& hours() const { return hours_; }
  uint64_t total() const { return total_; }

 private:
  std::map<int64_t, Hour> hours_;  // by hour since the epoch (floor)
  Hour* last_ = nullptr;           // the hour Add touched last: the common case is one compare
  int64_t last_hour_ = INT64_MIN;
  uint64_t total_ = 0;
};

// A thin end of the data: `count` samples from `first_ms` to `last_ms`, `gap_ms` from the rest,
// which spans [rest_min_ms, rest_max_ms].
struct StrayEdge {
  uint64_t count = 0;
  int64_t first_ms = 0, last_ms = 0, gap_ms = 0;
  int64_t rest_min_ms = 0, rest_max_ms = 0;
};
struct StrayEdges {
  std::optional<StrayEdge> head, tail;
};

// An end group is stray when it holds at most 0.1 % of the samples (in small inputs up to 10,
// within 1 %) and the gap before it is at
// least 6 hours and a quarter of the rest's span: two days of files a day apart are not, one
// sample a day (or 63 years) after a day of scrapes is.
StrayEdges FindStrayEdges(const SampleHours& hours);

// Stretches inside [from_ms, to_ms) where the input holds no sample at all, by whole minutes:
// those longer than 10 minutes and 4 times the usual spacing of the data's minutes (a cluster's
// scrapes every 15 s or every 5 minutes both have theirs). Nothing is costed in them (no
// evidence), which a report says rather than pass over.
struct SampleGap {
  int64_t start_ms = 0, end_ms = 0;
};
std::vector<SampleGap> FindSampleGaps(const SampleHours& hours, int64_t from_ms, int64_t to_ms);

}  // namespace gpucost
