// SecondMarks: the seconds of a time range in which something happened (a sample was read), as
// a bitmap over the range fixed at construction: one bit per second (450 bytes an hour), or per
// coarser bucket for a range so long that seconds would take more than kMaxBuckets bits. Marks
// outside the range are ignored. Answers whether anything happened in a span of time, e.g.
// whether a source had any sample in a step.
//
//   SecondMarks m(UnixMs(window.start), UnixMs(window.end));
//   m.Add(sample_ms);
//   if (!m.Any(step_start_ms, step_end_ms)) { ... no sample in the step ... }
#pragma once

#include <cstdint>
#include <vector>

namespace gpucost {

class SecondMarks {
 public:
  static constexpr int64_t kMaxBuckets = int64_t{1} << 25;  // 4 MiB of bits

  SecondMarks() = default;  // an empty range: marks nothing
  SecondMarks(int64_t from_ms, int64_t to_ms);

  // Marks the bucket that holds `ms` (Unix milliseconds); nothing outside the range.
  void Add(int64_t ms);
  // Whether a marked bucket touches [from_ms, to_ms). With buckets longer than a second, a mark
  // anywhere in a touched bucket counts.
  bool Any(int64_t from_ms, int64_t to_ms) const;
  bool empty() const { return !any_; }
  int64_t bucket_ms() const { return bucket_ms_; }

 private:
  int64_t from_ms_ = 0;  // the start of bucket 0, a whole second
  int64_t buckets_ = 0;
  int64_t bucket_ms_ = 1000;
  std::vector<uint64_t> words_;
  int64_t last_ = -1;  // the last bucket marked: the common case costs one compare
  bool any_ = false;
};

}  // namespace gpucost
