// Gaps (docs/ledger.md, "Gaps"): steps a continuous writer did not watch and its source no longer
// has. A write keeps the records such a step already holds and gives an empty one the records of
// the step before it, carried over unmeasured; and the ledger's meta values.
#include <algorithm>
#include <charconv>
#include <string>

#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/record_flags.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {

Result<std::optional<std::string>> Ledger::MetaText(std::string_view key) {
  Result<std::unique_ptr<Statement>> q = db_->Prepare("SELECT value FROM meta WHERE key = $1");
  if (!q.ok()) return Fail(StrCat("reading ", key), q.status());
  (*q)->Bind(1, std::string(key));
  Result<bool> row = (*q)->Step();
  if (!row.ok()) return Fail(StrCat("reading ", key), row.status());
  if (!*row) return std::optional<std::string>();
  return std::optional<std::string>((*q)->Text(0));
}

Status Ledger::SetMetaText(std::string_view key, const std::string& value) {
  Result<std::unique_ptr<Statement>> put = db_->Prepare(
      "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET "
      "value = excluded.value");
  if (!put.ok()) return Fail(StrCat("writing ", key), put.status());
  (*put)->Bind(1, std::string(key)).Bind(2, value);
  if (Result<bool> r = (*put)->Step(); !r.ok()) return Fail(StrCat("writing ", key), r.status());
  return Status::Ok();
}

Result<std::optional<int64_t>> Ledger::MetaInt(std::string_view key) {
  GPUCOST_ASSIGN_OR_RETURN(std::optional<std::string> text, MetaText(key));
  if (!text) return std::optional<int64_t>();
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) {
    return Status::ParseError(StrCat(path_, ": meta ", key, " is \"", *text, "\", not a number"));
  }
  return std::optional<int64_t>(value);
}

Status Ledger::SetMetaInt(std::string_view key, int64_t value) {
  return SetMetaText(key, std::to_string(value));
}

Status Ledger::ClearOutsideGaps(int64_t start_ms, int64_t end_ms, const WriteGaps* gaps,
                                std::span<const std::string> clusters) {
  if (clusters.empty()) return Status::Ok();
  Result<std::unique_ptr<Statement>> clear = db_->Prepare(
      StrCat("DELETE FROM cost_records WHERE step_start_ms >= $1 AND step_start_ms < $2",
             UnitsOfClusters("unit_id", 3, clusters.size())));
  if (!clear.ok()) return Fail("replacing a window", clear.status());
  const auto run = [&](int64_t lo, int64_t hi) -> Status {
    if (lo >= hi) return Status::Ok();
    (*clear)->Reset();
    (*clear)->Bind(1, lo).Bind(2, hi);
    BindAll(**clear, 3, clusters);
    if (Result<bool> r = (*clear)->Step(); !r.ok()) return Fail("replacing a window", r.status());
    return Status::Ok();
  };
  int64_t from = start_ms;
  if (gaps != nullptr) {
    for (const GapRun& g : gaps->runs) {
      GPUCOST_RETURN_IF_ERROR(run(from, std::min(UnixMs(g.window.start), end_ms)));
      from = std::max(from, UnixMs(g.window.end));
    }
  }
  return run(from, end_ms);
}

Status Ledger::CarryOver(int64_t step_ms, WriteGaps& gaps, std::span<const std::string> clusters) {
  constexpr std::string_view kWhat = "carrying holdings over a gap";
  if (clusters.empty()) return Status::Ok();
  // Whether a step holds records of the clusters; whether it holds records of this step length
  // (the step a gap carries from).
  Result<std::unique_ptr<Statement>> any =
      db_->Prepare(StrCat("SELECT COUNT(*) FROM cost_records WHERE step_start_ms = $1",
                          UnitsOfClusters("unit_id", 2, clusters.size())));
  if (!any.ok()) return Fail(kWhat, any.status());
  Result<std::unique_ptr<Statement>> same = db_->Prepare(
      StrCat("SELECT COUNT(*) FROM cost_records WHERE step_start_ms = $1 AND step_ms = $2",
             UnitsOfClusters("unit_id", 3, clusters.size())));
  if (!same.ok()) return Fail(kWhat, same.status());
  // The records of step $2 again at step $1: the same unit, holder, GPU-hours and money; no
  // usage (effective and activity unknown, every held GPU-hour unmeasured); flagged carried.
  Result<std::unique_ptr<Statement>> copy = db_->Prepare(StrCat(
      "INSERT INTO cost_records (step_start_ms, step_ms, unit_id, holder_id, gpu_hours, "
      "allocated_usd, effective_usd, list_usd, unmeasured_gpu_hours, activity_gpu_hours, flags, "
      "price_source) SELECT $1, step_ms, unit_id, holder_id, gpu_hours, allocated_usd, NULL, "
      "list_usd, CASE WHEN holder_id = 0 THEN unmeasured_gpu_hours ELSE gpu_hours END, NULL, "
      "(flags & ",
      ~kEstimated, ") | ", kCarried,
      ", price_source FROM cost_records WHERE step_start_ms = $2 AND step_ms = $3",
      UnitsOfClusters("unit_id", 4, clusters.size())));
  if (!copy.ok()) return Fail(kWhat, copy.status());
  const auto holds = [&](Statement& q, int64_t at) -> Result<bool> {
    q.Reset();
    q.Bind(1, at);
    if (&q == same->get()) {
      q.Bind(2, step_ms);
      BindAll(q, 3, clusters);
    } else {
      BindAll(q, 2, clusters);
    }
    Result<bool> row = q.Step();
    if (!row.ok()) return Fail(kWhat, row.status());
    return *row && q.Int(0) > 0;
  };
  for (const GapRun& g : gaps.runs) {
    if (!g.carry) continue;
    const int64_t lo = UnixMs(g.window.start);
    const int64_t hi = UnixMs(g.window.end);
    GPUCOST_ASSIGN_OR_RETURN(bool before, holds(**same, lo - step_ms));
    for (int64_t t = lo; t < hi; t += step_ms) {
      GPUCOST_ASSIGN_OR_RETURN(const bool kept, holds(**any, t));
      if (kept || !before) {
        before = kept;
        continue;
      }
      (*copy)->Reset();
      (*copy)->Bind(1, t).Bind(2, t - step_ms).Bind(3, step_ms);
      BindAll(**copy, 4, clusters);
      if (Result<bool> r = (*copy)->Step(); !r.ok()) return Fail(kWhat, r.status());
      GPUCOST_RETURN_IF_ERROR(KeepCarriedLastSteps(t));
      ++gaps.carried_steps;
    }
  }
  return Status::Ok();
}

}  // namespace gpucost::ledger
