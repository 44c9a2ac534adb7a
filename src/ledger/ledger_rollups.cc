// Roll-ups (schema v3): per 5 minutes, hour and day, the report's additive state (RowSums) of
// each (unit, holder)'s records, so that a month's report reads one row per pair and day instead
// of one per pair and step, and the unsealed tail of a window is minutes of records at most.
// Seal() rolls whole periods behind the writer; a write into a period already rolled rolls it
// again in the same transaction, so a roll-up always sums the records the ledger holds.
// 5-minute periods are rolled from the records, hours from their 5-minute periods, days from
// their hours.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/record_flags.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

constexpr std::string_view kThroughKey = "rollups_through_ms";
// The booleans of a roll-up (its `flags` column).
constexpr int64_t kHasEffective = 1;
constexpr int64_t kHasIdleMoney = 2;
constexpr int64_t kRolledEstimated = 4;
constexpr int64_t kRolledOversubscribed = 8;
// Bits 4-7: the one price source of the priced records it sums, plus one; 0 where they had
// several (or the roll-up is older than this field). Keeps a report from roll-ups saying which
// prices its money came from, as one from the records does.
constexpr int kSourceShift = 4;
constexpr int64_t kSourceMask = 15;

// `into` (-2: none yet, -1: several) with the price source `s` of more priced hours.
void MergeSource(int& into, int s) {
  if (into == -2) {
    into = s;
  } else if (into != s) {
    into = -1;
  }
}

int64_t FloorTo(int64_t ms, int64_t period) {
  const int64_t r = ms % period;
  return r < 0 ? ms - r - period : ms - r;
}

// One (unit, holder)'s roll-up while it is built.
struct Pending {
  RowAccumulator acc;
  int64_t records = 0;
  int64_t unpriced_records = 0;
  int source = -2;  // MergeSource's
};

constexpr int kRollupColumns = 18;
constexpr size_t kRollupBatch = 128;

}  // namespace

Result<std::optional<Instant>> Ledger::SealedThrough() {
  GPUCOST_ASSIGN_OR_RETURN(std::optional<int64_t> ms, MetaInt(kThroughKey));
  if (!ms) return std::optional<Instant>();
  return std::optional<Instant>(InstantFromUnixMs(*ms));
}

Status Ledger::SetSealedThrough(int64_t through_ms) { return SetMetaInt(kThroughKey, through_ms); }

// The level a period is rolled from: 5-minute periods from the records, hours from their
// 5-minute periods, days from their hours; 0: from the records.
int64_t Ledger::SubPeriod(int64_t period_ms) {
  return period_ms == kDayMs ? kHourMs : period_ms == kHourMs ? kFiveMinutesMs : 0;
}

Status Ledger::RollPeriod(int64_t period_ms, int64_t start_ms,
                          std::span<const std::string> clusters) {
  const std::string what = StrCat("rolling up the ",
                                  period_ms == kDayMs    ? "day"
                                  : period_ms == kHourMs ? "hour"
                                                         : "5 minutes",
                                  " from ", FormatRfc3339(InstantFromUnixMs(start_ms)));
  const int64_t end_ms = start_ms + period_ms;
  // The rows of the clusters rolled again (all of them when no clusters are named).
  const std::string theirs = UnitsOfClusters("unit_id", 3, clusters.size());
  // Rolled before: at which step (-1: several, not rolled); nullopt when it was not.
  std::optional<int64_t> rolled_step;
  if (!clusters.empty()) {
    Result<std::unique_ptr<Statement>> q =
        db_->Prepare("SELECT step_ms FROM rollup_periods WHERE period_ms = $1 AND start_ms = $2");
    if (!q.ok()) return Fail(what, q.status());
    (*q)->Bind(1, period_ms).Bind(2, start_ms);
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return Fail(what, row.status());
    if (*row) rolled_step = (*q)->Int(0);
  }
  // The period's check goes whenever its rows change: it sums every cluster's, and is made
  // again once they are all there.
  const auto drop = [&](bool all) -> Status {
    for (const char* table : {"rollups", "rollup_periods", "period_checks"}) {
      const bool rows = std::string_view(table) == "rollups";
      Result<std::unique_ptr<Statement>> q =
          db_->Prepare(StrCat("DELETE FROM ", table, " WHERE period_ms = $1 AND start_ms = $2",
                              rows && !all ? theirs : ""));
      if (!q.ok()) return Fail(what, q.status());
      (*q)->Bind(1, period_ms).Bind(2, start_ms);
      if (rows && !all) BindAll(**q, 3, clusters);
      if (Result<bool> r = (*q)->Step(); !r.ok()) return Fail(what, r.status());
    }
    return Status::Ok();
  };
  GPUCOST_RETURN_IF_ERROR(drop(clusters.empty()));

  std::map<std::pair<int64_t, int64_t>, Pending> pairs;  // (unit, holder): ordered writes
  std::map<int64_t, int64_t> oversubscribed;             // unit -> steps
  std::set<int64_t> steps;
  // From the sub-periods when every one with records was rolled, at one step; else (5-minute
  // periods, or sub-periods a step did not fit in) from the records.
  const int64_t sub = SubPeriod(period_ms);
  if (sub > 0) {
    Result<std::unique_ptr<Statement>> mq = db_->Prepare(
        "SELECT step_ms FROM rollup_periods WHERE period_ms = $1 AND start_ms >= $2 AND "
        "start_ms < $3");
    if (!mq.ok()) return Fail(what, mq.status());
    (*mq)->Bind(1, sub).Bind(2, start_ms).Bind(3, end_ms);
    for (;;) {
      Result<bool> row = (*mq)->Step();
      if (!row.ok()) return Fail(what, row.status());
      if (!*row) break;
      steps.insert((*mq)->Int(0));
    }
  }
  if (steps.size() == 1 && *steps.begin() > 0) {
    Result<std::unique_ptr<Statement>> rq = db_->Prepare(StrCat(
        "SELECT unit_id, holder_id, records, unpriced_records, unit_oversubscribed_steps, "
        "priced_hours, unpriced_hours, unmeasured_hours, measured_hours, used_hours, "
        "activity_hours, allocated_usd, measured_allocated_usd, effective_usd, idle_usd, "
        "flags, start_ms FROM rollups WHERE period_ms = $1 AND start_ms >= $2 AND start_ms < $3",
        UnitsOfClusters("unit_id", 4, clusters.size())));
    if (!rq.ok()) return Fail(what, rq.status());
    Statement& q = **rq;
    q.Bind(1, sub).Bind(2, start_ms).Bind(3, end_ms);
    BindAll(q, 4, clusters);
    // Oversubscribed steps per unit: one value per (sub-period, unit), the same on each row.
    std::map<std::pair<int64_t, int64_t>, int64_t> over;  // (unit, sub-period start) -> steps
    for (;;) {
      Result<bool> row = q.Step();
      if (!row.ok()) return Fail(what, row.status());
      if (!*row) break;
      const RolledRecord r = RolledFromRow(q, 0);
      Pending& p = pairs[{q.Int(0), q.Int(1)}];
      p.acc.AddSums(r.sums);
      p.records += r.records;
      p.unpriced_records += r.unpriced_records;
      if (r.sums.priced_hours > 0) MergeSource(p.source, r.price_source);
      if (r.unit_oversubscribed_steps > 0) {
        int64_t& steps_over = over[{q.Int(0), q.Int(16)}];
        steps_over = std::max(steps_over, r.unit_oversubscribed_steps);
      }
    }
    for (const auto& [key, n] : over) oversubscribed[key.first] += n;
  } else {
    steps.clear();
    Result<std::unique_ptr<Statement>> rq = db_->Prepare(
        StrCat("SELECT unit_id, holder_id, step_start_ms, step_ms, ", kRecordValueColumns,
               " FROM cost_records WHERE step_start_ms >= $1 AND step_start_ms < $2",
               UnitsOfClusters("unit_id", 3, clusters.size())));
    if (!rq.ok()) return Fail(what, rq.status());
    Statement& q = **rq;
    q.Bind(1, start_ms).Bind(2, end_ms);
    BindAll(q, 3, clusters);
    std::set<std::pair<int64_t, int64_t>> over_steps;  // (unit, step start)
    for (;;) {
      Result<bool> row = q.Step();
      if (!row.ok()) return Fail(what, row.status());
      if (!*row) break;
      CostRecord r;
      r.holder = q.Int(1) == 0 ? kNoIndex : 0;
      ReadRecordValues(q, 4, r);
      steps.insert(q.Int(3));
      Pending& p = pairs[{q.Int(0), q.Int(1)}];
      if (r.is_idle()) {
        p.acc.AddIdle(r);
      } else {
        p.acc.AddHolder(r);
      }
      ++p.records;
      if (!r.price_known || !std::isfinite(r.allocated_usd)) ++p.unpriced_records;
      // As a report from the records counts a price's hours (Aggregator::Consume).
      if (r.price_known && std::isfinite(r.allocated_usd)) {
        MergeSource(p.source, static_cast<int>(r.price_source));
      }
      if (r.oversubscribed) over_steps.insert({q.Int(0), q.Int(2)});
    }
    for (const auto& [unit, step] : over_steps) ++oversubscribed[unit];
    // A 5-minute period holding steps of 5 minutes or more would copy its records: not rolled.
    if (period_ms == kFiveMinutesMs && steps.size() == 1 && *steps.begin() >= period_ms) {
      steps = {-1};
    }
  }
  if (!clusters.empty() && rolled_step) {
    // Other clusters' rows stand: the period keeps its step while these clusters' agree with it
    // (or have nothing in it); where they differ it holds several steps, and stays records.
    if (steps.empty()) steps = {*rolled_step};
    if (steps.size() != 1 || *steps.begin() != *rolled_step) {
      GPUCOST_RETURN_IF_ERROR(drop(true));
      steps = {-1};
    }
  }
  if (steps.empty()) return Status::Ok();  // nothing to roll: the records are read instead
  const int64_t step_ms = steps.size() == 1 ? *steps.begin() : -1;
  {
    // A new generation for the period, so that readers' caches see it changed.
    Result<std::unique_ptr<Statement>> g = db_->Prepare(
        "INSERT INTO meta (key, value) VALUES ('rollup_generation', '1') ON CONFLICT (key) DO "
        "UPDATE SET value = CAST(CAST(meta.value AS BIGINT) + 1 AS TEXT) RETURNING value");
    if (!g.ok()) return Fail(what, g.status());
    Result<bool> got = (*g)->Step();
    if (!got.ok() || !*got)
      return Fail(what, got.ok() ? Status::Internal("no generation") : got.status());
    const int64_t generation = std::stoll((*g)->Text(0));
    (*g).reset();
    Result<std::unique_ptr<Statement>> q = db_->Prepare(
        "INSERT INTO rollup_periods (period_ms, start_ms, step_ms, generation) VALUES ($1, $2, "
        "$3, $4)");
    if (!q.ok()) return Fail(what, q.status());
    (*q)->Bind(1, period_ms).Bind(2, start_ms).Bind(3, step_ms).Bind(4, generation);
    if (Result<bool> r = (*q)->Step(); !r.ok()) return Fail(what, r.status());
  }
  if (step_ms < 0) return Status::Ok();  // several steps: this period stays records

  // Multi-row inserts, kRollupBatch rows at a time (then one by one): one round trip per batch
  // to a PostgreSQL server.
  const auto insert_sql = [](int rows) {
    std::string sql =
        "INSERT INTO rollups (period_ms, start_ms, unit_id, holder_id, records, "
        "unpriced_records, unit_oversubscribed_steps, priced_hours, unpriced_hours, "
        "unmeasured_hours, measured_hours, used_hours, activity_hours, allocated_usd, "
        "measured_allocated_usd, effective_usd, idle_usd, flags) VALUES ";
    for (int r = 0; r < rows; ++r) {
      sql += r == 0 ? "(" : ",(";
      for (int c = 1; c <= kRollupColumns; ++c) {
        sql += StrCat(c == 1 ? "$" : ",$", r * kRollupColumns + c);
      }
      sql += ')';
    }
    return sql;
  };
  std::unique_ptr<Statement> batch, single;
  size_t in_batch = 0;
  const size_t total = pairs.size();
  size_t done = 0;
  for (const auto& [key, p] : pairs) {
    const bool batched = total - (done - in_batch) >= kRollupBatch;
    std::unique_ptr<Statement>& put = batched ? batch : single;
    if (put == nullptr) {
      Result<std::unique_ptr<Statement>> made =
          db_->Prepare(insert_sql(batched ? static_cast<int>(kRollupBatch) : 1));
      if (!made.ok()) return Fail(what, made.status());
      put = std::move(*made);
    }
    if (!batched || in_batch == 0) put->Reset();
    const int b = batched ? static_cast<int>(in_batch) * kRollupColumns : 0;
    const RowSums s = p.acc.Sums();
    const auto over = oversubscribed.find(key.first);
    // The source field: none priced is kUnknown's; several (or one past the field) is 0.
    const int source = p.source == -2 ? static_cast<int>(PriceSource::kUnknown) : p.source;
    const int64_t source_field =
        source >= 0 && source < static_cast<int>(kPriceSourceCount) ? source + 1 : 0;
    const int64_t flags =
        (s.has_effective ? kHasEffective : 0) | (s.has_idle_money ? kHasIdleMoney : 0) |
        (s.estimated ? kRolledEstimated : 0) | (s.oversubscribed ? kRolledOversubscribed : 0) |
        (source_field << kSourceShift);
    put->Bind(b + 1, period_ms)
        .Bind(b + 2, start_ms)
        .Bind(b + 3, key.first)
        .Bind(b + 4, key.second)
        .Bind(b + 5, p.records)
        .Bind(b + 6, p.unpriced_records)
        .Bind(b + 7, over == oversubscribed.end() ? int64_t{0} : over->second)
        .Bind(b + 8, s.priced_hours)
        .Bind(b + 9, s.unpriced_hours)
        .Bind(b + 10, s.unmeasured_hours)
        .Bind(b + 11, s.measured_hours)
        .Bind(b + 12, s.used_hours)
        .Bind(b + 13, s.activity_hours)
        .Bind(b + 14, s.allocated_usd)
        .Bind(b + 15, s.measured_allocated_usd)
        .Bind(b + 16, s.effective_usd)
        .Bind(b + 17, s.idle_usd)
        .Bind(b + 18, flags);
    ++done;
    if (batched && ++in_batch < kRollupBatch) continue;
    in_batch = 0;
    if (Result<bool> r = put->Step(); !r.ok()) return Fail(what, r.status());
  }
  // What a read of the period must find again (docs/ledger.md, "A damaged ledger").
  Result<std::unique_ptr<Statement>> check = db_->Prepare(
      "INSERT INTO period_checks (start_ms, period_ms, records, usd) SELECT $2, $1, "
      "COALESCE(SUM(records), 0), COALESCE(SUM(allocated_usd + idle_usd), 0) FROM rollups "
      "WHERE period_ms = $1 AND start_ms = $2");
  if (!check.ok()) return Fail(what, check.status());
  (*check)->Bind(1, period_ms).Bind(2, start_ms);
  if (Result<bool> r = (*check)->Step(); !r.ok()) return Fail(what, r.status());
  return Status::Ok();
}

RolledRecord Ledger::RolledFromRow(const Statement& q, int col) {
  RolledRecord r;
  r.records = q.Int(col + 2);
  r.unpriced_records = q.Int(col + 3);
  r.unit_oversubscribed_steps = q.Int(col + 4);
  RowSums& s = r.sums;
  s.priced_hours = q.Double(col + 5);
  s.unpriced_hours = q.Double(col + 6);
  s.unmeasured_hours = q.Double(col + 7);
  s.measured_hours = q.Double(col + 8);
  s.used_hours = q.Double(col + 9);
  s.activity_hours = q.Double(col + 10);
  s.allocated_usd = q.Double(col + 11);
  s.measured_allocated_usd = q.Double(col + 12);
  s.effective_usd = q.Double(col + 13);
  s.idle_usd = q.Double(col + 14);
  const int64_t flags = q.Int(col + 15);
  s.has_effective = (flags & kHasEffective) != 0;
  s.has_idle_money = (flags & kHasIdleMoney) != 0;
  s.estimated = (flags & kRolledEstimated) != 0;
  s.oversubscribed = (flags & kRolledOversubscribed) != 0;
  r.price_source = static_cast<int>((flags >> kSourceShift) & kSourceMask) - 1;
  if (r.price_source >= static_cast<int>(kPriceSourceCount)) r.price_source = -1;
  return r;
}

Status Ledger::RerollTouched(int64_t start_ms, int64_t end_ms,
                             std::span<const std::string> clusters) {
  if (clusters.empty()) return Status::Ok();  // the write replaced nothing
  GPUCOST_ASSIGN_OR_RETURN(std::optional<Instant> sealed, SealedThrough());
  if (!sealed || start_ms >= end_ms) return Status::Ok();
  const int64_t through = UnixMs(*sealed);
  if (start_ms >= through) return Status::Ok();
  // Finest first: each level is rolled from the one below. Only whole sealed periods.
  for (const int64_t period : {kFiveMinutesMs, kHourMs, kDayMs}) {
    for (int64_t p = FloorTo(start_ms, period); p < end_ms && p + period <= through; p += period) {
      GPUCOST_RETURN_IF_ERROR(RollPeriod(period, p, clusters));
    }
  }
  return Status::Ok();
}

Result<int64_t> Ledger::Seal(Instant before) {
  GPUCOST_ASSIGN_OR_RETURN(std::optional<Instant> sealed, SealedThrough());
  int64_t through = 0;
  if (sealed) {
    through = UnixMs(*sealed);
  } else {
    Result<std::unique_ptr<Statement>> q =
        db_->Prepare("SELECT MIN(step_start_ms) FROM cost_records");
    if (!q.ok()) return Fail("sealing roll-ups", q.status());
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return Fail("sealing roll-ups", row.status());
    if (!*row || (*q)->IsNull(0)) return int64_t{0};  // nothing written yet
    through = FloorTo((*q)->Int(0), kDayMs);
  }
  const int64_t target = FloorTo(UnixMs(before), kFiveMinutesMs);
  int64_t hours = 0;
  for (int64_t p = through; p < target; p += kFiveMinutesMs) {
    const int64_t end = p + kFiveMinutesMs;
    if (Status s = Begin(); !s.ok()) return Fail("sealing roll-ups", s);
    Status s = RollPeriod(kFiveMinutesMs, p);
    const bool hour = end % kHourMs == 0;
    if (s.ok() && hour) s = RollPeriod(kHourMs, end - kHourMs);
    if (s.ok() && end % kDayMs == 0) s = RollPeriod(kDayMs, end - kDayMs);
    if (s.ok()) s = SetSealedThrough(end);
    if (s.ok()) {
      if (Status c = db_->Commit(); !c.ok()) s = Fail("sealing roll-ups", c);
    }
    if (!s.ok()) {
      (void)db_->Rollback();
      return s;
    }
    if (hour) ++hours;
  }
  return hours;
}

}  // namespace gpucost::ledger
