// The ledger's checks of itself (period_checks.h; docs/ledger.md, "A damaged ledger"): the
// checks of the periods a read covers, and the whole check `gpucost ledger check` and serve make.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "core/strings.h"
#include "core/time.h"
#include "ledger/ledger.h"
#include "ledger/period_checks.h"
#include "ledger/record_flags.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {

namespace {

std::string Usd(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f USD", v);
  return text;
}

}  // namespace

bool SameUsd(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

RecordTally::RecordTally(int64_t start_ms, int64_t end_ms)
    : base_ms_(start_ms - ((start_ms % kBucketMs) + kBucketMs) % kBucketMs),
      start_ms_(start_ms),
      end_ms_(end_ms) {
  const auto n =
      static_cast<size_t>(std::max<int64_t>(0, (end_ms - base_ms_ + kBucketMs - 1) / kBucketMs));
  counts_.assign(n, 0);
  usd_.assign(n, 0.0);
}

std::vector<std::string> RecordTally::Mismatches(std::span<const PeriodCheck> checks,
                                                 size_t limit) const {
  std::vector<std::string> out;
  for (const PeriodCheck& c : checks) {
    if (c.start_ms < start_ms_ || c.start_ms + c.period_ms > end_ms_) continue;
    const auto first = static_cast<size_t>((c.start_ms - base_ms_) / kBucketMs);
    const auto last = static_cast<size_t>((c.start_ms + c.period_ms - base_ms_) / kBucketMs);
    int64_t records = 0;
    double usd = 0;
    for (size_t b = first; b < last && b < counts_.size(); ++b) {
      records += counts_[b];
      usd += usd_[b];
    }
    if (records == c.records && SameUsd(usd, c.usd)) continue;
    out.push_back(StrCat(PeriodName(c.period_ms, c.start_ms), ": ", records, " (", Usd(usd),
                         ") where its check says ", c.records, " (", Usd(c.usd), ")"));
    if (out.size() >= limit) break;
  }
  return out;
}

std::string PeriodName(int64_t period_ms, int64_t start_ms) {
  return StrCat("the ",
                period_ms == Ledger::kDayMs    ? "day"
                : period_ms == Ledger::kHourMs ? "hour"
                                               : "5 minutes",
                " from ", FormatRfc3339(InstantFromUnixMs(start_ms)));
}

Status Ledger::Damaged(std::string_view what) const {
  return Status::DataLoss(
      StrCat(path_, ": the ledger is damaged: ", what, " (docs/ledger.md, \"A damaged ledger\")"));
}

Result<std::vector<PeriodCheck>> Ledger::Checks(int64_t lo, int64_t hi, int64_t period_ms) {
  Result<std::unique_ptr<Statement>> q = db_->Prepare(
      StrCat("SELECT period_ms, start_ms, records, usd FROM period_checks WHERE start_ms >= $1 "
             "AND start_ms < $2",
             period_ms != 0 ? " AND period_ms = $3" : "", " ORDER BY start_ms, period_ms"));
  if (!q.ok()) return Fail("reading the checks", q.status());
  (*q)->Bind(1, lo).Bind(2, hi);
  if (period_ms != 0) (*q)->Bind(3, period_ms);
  std::vector<PeriodCheck> out;
  for (;;) {
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return Fail("reading the checks", row.status());
    if (!*row) break;
    PeriodCheck c{(*q)->Int(0), (*q)->Int(1), (*q)->Int(2), (*q)->Double(3)};
    if (c.start_ms + c.period_ms <= hi) out.push_back(c);
  }
  return out;
}

Status Ledger::CheckRolled(const PeriodCheck* check, int64_t period_ms, int64_t start_ms,
                           int64_t records, double usd) const {
  if (check == nullptr) {
    return Damaged(StrCat("the roll-up of ", PeriodName(period_ms, start_ms), " has no check"));
  }
  if (records == check->records && SameUsd(usd, check->usd)) return Status::Ok();
  return Damaged(StrCat("the roll-up of ", PeriodName(period_ms, start_ms), " sums ", records,
                        " records (", Usd(usd), ") where its check says ", check->records, " (",
                        Usd(check->usd), ")"));
}

Result<LedgerCheck> Ledger::Check(bool whole) {
  LedgerCheck out;
  Result<std::vector<std::string>> storage = db_->QuickCheck();
  if (!storage.ok()) {
    if (storage.status().code() != StatusCode::kDataLoss) return Fail("checking", storage.status());
    out.problems.push_back(std::string(storage.status().message()));
    return out;
  }
  out.problems = std::move(*storage);
  if (!whole || !out.problems.empty()) return out;

  constexpr size_t kLimit = 10;
  const auto damaged = [&](const Status& s) {
    if (s.code() != StatusCode::kDataLoss) return false;
    out.problems.push_back(std::string(s.message()));
    return true;
  };
  Result<std::optional<Window>> span = Span();
  if (!span.ok()) {
    if (damaged(span.status())) return out;
    return span.status();
  }
  if (!*span) return out;
  const int64_t lo = UnixMs((*span)->start);
  const int64_t hi = UnixMs((*span)->end);
  Result<std::vector<PeriodCheck>> checks = Checks(INT64_MIN, INT64_MAX);
  if (!checks.ok()) {
    if (damaged(checks.status())) return out;
    return checks.status();
  }
  out.periods = static_cast<int64_t>(checks->size());
  // Each check against the roll-up it was made from.
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, double>> rolled;
  {
    Result<std::unique_ptr<Statement>> q = db_->Prepare(
        "SELECT period_ms, start_ms, SUM(records), SUM(allocated_usd + idle_usd) FROM rollups "
        "GROUP BY period_ms, start_ms");
    if (!q.ok()) return Fail("checking the roll-ups", q.status());
    for (;;) {
      Result<bool> row = (*q)->Step();
      if (!row.ok()) {
        if (damaged(row.status())) return out;
        return Fail("checking the roll-ups", row.status());
      }
      if (!*row) break;
      rolled[{(*q)->Int(0), (*q)->Int(1)}] = {(*q)->Int(2), (*q)->Double(3)};
    }
  }
  for (const PeriodCheck& c : *checks) {
    const auto it = rolled.find({c.period_ms, c.start_ms});
    const auto [records, usd] = it == rolled.end() ? std::pair<int64_t, double>{0, 0} : it->second;
    if (records != c.records || !SameUsd(usd, c.usd)) {
      Status s = CheckRolled(&c, c.period_ms, c.start_ms, records, usd);
      out.problems.push_back(std::string(s.message()));
      if (out.problems.size() >= kLimit) return out;
    }
  }
  // And against the records, every one of them read.
  RecordTally tally(std::min(lo, checks->empty() ? lo : checks->front().start_ms),
                    std::max(hi, checks->empty() ? hi : checks->back().start_ms + kDayMs));
  Result<std::unique_ptr<Statement>> q =
      db_->Prepare("SELECT step_start_ms, allocated_usd, flags FROM cost_records");
  if (!q.ok()) return Fail("checking the records", q.status());
  for (;;) {
    Result<bool> row = (*q)->Step();
    if (!row.ok()) {
      if (damaged(row.status())) return out;
      return Fail("checking the records", row.status());
    }
    if (!*row) break;
    tally.Add((*q)->Int(0), ((*q)->Int(2) & kPriceKnown) != 0, (*q)->Double(1));
  }
  for (std::string& m : tally.Mismatches(*checks, kLimit - out.problems.size())) {
    out.problems.push_back(StrCat("the records of ", m));
  }
  return out;
}

}  // namespace gpucost::ledger
