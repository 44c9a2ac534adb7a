// SecondMarks: the whole seconds in which something happened (a sample was read), as a bitmap
// that grows both ways from the first mark: one bit per second, 450 bytes an hour. Answers whether
// anything happened in a span of time, e.g. whether a source had any sample before a step.
//
//   SecondMarks m;
//   m.Add(sample_ms);
//   if (!m.Any(step_start_ms - staleness_ms, step_end_ms)) { ... no sample near the step ... }
#pragma once

#include <cstdint>
#include <vector>

namespace gpucost {

class SecondMarks {
 public:
  // Marks the second that holds `ms` (Unix milliseconds).
  void Add(int64_t ms);
  // Whether a second in [from_ms, to_ms) is marked (whole seconds: a mark at second s counts for
  // any range that touches [s, s + 1 s)).
  bool Any(int64_t from_ms, int64_t to_ms) const;
  bool empty() const { return words_.empty(); }

 private:
  static constexpr int64_t kBits = 64;
  int64_t base_s_ = 0;  // the second of bit 0 of words_[0], a multiple of kBits
  std::vector<uint64_t> words_;
  int64_t last_s_ = INT64_MIN;  // the last second added: the common case costs one compare
};

}  // namespace gpucost
