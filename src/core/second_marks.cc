#include "core/second_marks.h"

#include <algorithm>

namespace gpucost {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

void SecondMarks::Add(int64_t ms) {
  const int64_t s = FloorDiv(ms, 1000);
  if (s == last_s_) return;
  last_s_ = s;
  const int64_t word_base = FloorDiv(s, kBits) * kBits;
  if (words_.empty()) {
    base_s_ = word_base;
    words_.push_back(0);
  } else if (word_base < base_s_) {
    words_.insert(words_.begin(), static_cast<size_t>((base_s_ - word_base) / kBits), 0);
    base_s_ = word_base;
  }
  const size_t w = static_cast<size_t>((word_base - base_s_) / kBits);
  if (w >= words_.size()) words_.resize(w + 1, 0);
  words_[w] |= uint64_t{1} << (s - word_base);
}

bool SecondMarks::Any(int64_t from_ms, int64_t to_ms) const {
  if (words_.empty() || to_ms <= from_ms) return false;
  const int64_t end_s = static_cast<int64_t>(words_.size()) * kBits + base_s_;
  // The seconds that touch [from_ms, to_ms), clipped to the bitmap.
  int64_t lo = std::max(FloorDiv(from_ms, 1000), base_s_);
  const int64_t hi = std::min(FloorDiv(to_ms - 1, 1000) + 1, end_s);
  while (lo < hi) {
    const size_t w = static_cast<size_t>((lo - base_s_) / kBits);
    const int64_t bit = (lo - base_s_) % kBits;
    const int64_t n = std::min(hi - lo, kBits - bit);
    const uint64_t mask = n == kBits ? ~uint64_t{0} : ((uint64_t{1} << n) - 1) << bit;
    if ((words_[w] & mask) != 0) return true;
    lo += n;
  }
  return false;
}

}  // namespace gpucost
