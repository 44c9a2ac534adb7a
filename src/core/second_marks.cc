#include "core/second_marks.h"

#include <algorithm>

namespace gpucost {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

SecondMarks::SecondMarks(int64_t from_ms, int64_t to_ms) {
  if (to_ms <= from_ms) return;
  from_ms_ = FloorDiv(from_ms, 1000) * 1000;
  // Differences in unsigned arithmetic cannot overflow; a range is clamped to ~290,000 years.
  const auto span_ms = static_cast<int64_t>(std::min<uint64_t>(
      static_cast<uint64_t>(to_ms) - static_cast<uint64_t>(from_ms_), uint64_t{1} << 53));
  const int64_t seconds = (span_ms + 999) / 1000;
  bucket_ms_ = 1000 * ((seconds + kMaxBuckets - 1) / kMaxBuckets);
  buckets_ = (span_ms + bucket_ms_ - 1) / bucket_ms_;
  words_.assign(static_cast<size_t>((buckets_ + 63) / 64), 0);
}

void SecondMarks::Add(int64_t ms) {
  if (ms < from_ms_ || buckets_ == 0) return;
  const uint64_t offset = static_cast<uint64_t>(ms) - static_cast<uint64_t>(from_ms_);
  const uint64_t b = offset / static_cast<uint64_t>(bucket_ms_);
  if (b >= static_cast<uint64_t>(buckets_) || static_cast<int64_t>(b) == last_) return;
  last_ = static_cast<int64_t>(b);
  any_ = true;
  words_[b / 64] |= uint64_t{1} << (b % 64);
}

bool SecondMarks::Any(int64_t from_ms, int64_t to_ms) const {
  if (!any_) return false;
  // The buckets that touch [from_ms, to_ms), clipped to the range.
  const int64_t end_ms = from_ms_ + buckets_ * bucket_ms_;
  const int64_t from = std::max(from_ms, from_ms_);
  const int64_t to = std::min(to_ms, end_ms);
  if (to <= from) return false;
  int64_t lo = (from - from_ms_) / bucket_ms_;
  const int64_t hi = (to - 1 - from_ms_) / bucket_ms_ + 1;
  while (lo < hi) {
    const int64_t bit = lo % 64;
    const int64_t n = std::min<int64_t>(hi - lo, 64 - bit);
    const uint64_t mask = n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1) << bit;
    if ((words_[static_cast<size_t>(lo / 64)] & mask) != 0) return true;
    lo += n;
  }
  return false;
}

}  // namespace gpucost
