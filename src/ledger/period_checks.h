// The checks a read makes of what it reads (docs/ledger.md, "A damaged ledger"). When a period
// (5 minutes, an hour, a day) is rolled up, the ledger keeps in `period_checks` how many records
// it sums and their known USD. A read of the period's records, or of its roll-up, must find the
// same again: a damaged file can give fewer rows without an error (a scribbled b-tree page sends
// a range scan past some of them), and a short total is worse than no total. Internal to the
// ledger.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpucost::ledger {

struct PeriodCheck {
  int64_t period_ms = 0;
  int64_t start_ms = 0;
  int64_t records = 0;
  double usd = 0;  // the known allocated and idle USD of its records
};

// Whether two sums of the same values, added in another order, agree.
bool SameUsd(double a, double b);

// A window's records counted per 5 minutes as they are read, in any order, to be compared with
// the checks of the periods that lie in it.
class RecordTally {
 public:
  RecordTally(int64_t start_ms, int64_t end_ms);
  // A record whose step starts at `step_start_ms`; its USD counts when its price is known.
  void Add(int64_t step_start_ms, bool priced, double allocated_usd) {
    const auto b = static_cast<size_t>((step_start_ms - base_ms_) / kBucketMs);
    if (b >= counts_.size()) return;  // outside the window: not the read's
    ++counts_[b];
    if (priced && std::isfinite(allocated_usd)) usd_[b] += allocated_usd;
  }
  // What the checks that lie inside the window and do not match say (at most `limit`); none
  // when all match.
  std::vector<std::string> Mismatches(std::span<const PeriodCheck> checks, size_t limit = 1) const;

  static constexpr int64_t kBucketMs = 300'000;

 private:
  int64_t base_ms_, start_ms_, end_ms_;
  std::vector<int64_t> counts_;
  std::vector<double> usd_;
};

// "the hour from 2026-10-01T13:00:00Z".
std::string PeriodName(int64_t period_ms, int64_t start_ms);

}  // namespace gpucost::ledger
