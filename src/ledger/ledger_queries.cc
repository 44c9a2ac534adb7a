// The ledger's summary queries: what it holds (Info), totals since it began for counters
// (Totals), the newest step for gauges (Latest), team costs over a window (Costs, from the
// roll-ups where it can) and the span (Span). They aggregate in the database and return small
// results; `gpucost serve` asks them every cycle, so none of them scans the whole ledger (Info,
// for `ledger info`, does).
// Sums are COALESCE(SUM(x), 0): zero over no rows or only NULLs, on both backends.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "core/money.h"
#include "ledger/ledger.h"
#include "ledger/period_checks.h"
#include "ledger/record_flags.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {
namespace {

// Calls `each` with `q` on every row; the backend's error, if any.
template <typename F>
Status EachRow(Statement& q, F&& each) {
  for (;;) {
    Result<bool> row = q.Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
    each(q);
  }
}

}  // namespace

Result<LedgerInfo> Ledger::Info() {
  LedgerInfo info;
  info.schema_version = kSchemaVersion;
  const auto count = [this](const char* sql) -> Result<int64_t> {
    Result<std::unique_ptr<Statement>> q = db_->Prepare(sql);
    if (!q.ok()) return Fail("reading", q.status());
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return Fail("reading", row.status());
    return *row ? (*q)->Int(0) : 0;
  };
  GPUCOST_ASSIGN_OR_RETURN(info.records, count("SELECT COUNT(*) FROM cost_records"));
  GPUCOST_ASSIGN_OR_RETURN(info.units, count("SELECT COUNT(*) FROM units"));
  GPUCOST_ASSIGN_OR_RETURN(info.holders, count("SELECT COUNT(*) FROM holders"));
  GPUCOST_ASSIGN_OR_RETURN(info.nodes, count("SELECT COUNT(*) FROM nodes"));
  Result<std::unique_ptr<Statement>> q = db_->Prepare(
      "SELECT step_ms, MIN(step_start_ms), MAX(step_start_ms + step_ms) FROM cost_records "
      "GROUP BY step_ms ORDER BY step_ms");
  if (!q.ok()) return Fail("reading", q.status());
  int64_t first = INT64_MAX;
  int64_t last = INT64_MIN;
  Status s = EachRow(**q, [&](const Statement& r) {
    info.steps_s.push_back(r.Int(0) / 1000);
    first = std::min(first, r.Int(1));
    last = std::max(last, r.Int(2));
  });
  if (!s.ok()) return Fail("reading", s);
  if (!info.steps_s.empty()) info.span = Window{InstantFromUnixMs(first), InstantFromUnixMs(last)};
  return info;
}

Result<LedgerTotals> Ledger::Totals(std::span<const std::string> clusters) {
  LedgerTotals out;
  const std::string where =
      clusters.empty() ? "" : StrCat(" WHERE cluster IN (", Params(1, clusters.size()), ")");
  Result<std::unique_ptr<Statement>> q = db_->Prepare(
      StrCat("SELECT cluster, namespace, team, workload, workload_kind, gpu_model, capacity_type, "
             "allocated_usd, effective_usd, waste_usd, gpu_hours, unmeasured_gpu_hours, unit_kind, "
             "priced_gpu_hours FROM holder_totals",
             where, " ORDER BY 1, 2, 3, 4, 5, 6, 7, 13"));
  if (!q.ok()) return Fail("reading totals", q.status());
  BindAll(**q, 1, clusters);
  Status s = EachRow(**q, [&](const Statement& r) {
    HolderTotal t;
    t.cluster = r.Text(0);
    t.namespace_name = r.Text(1);
    t.team = r.Text(2);
    t.workload = r.Text(3);
    t.workload_kind = r.Text(4);
    t.gpu_model = r.Text(5);
    t.capacity_type = r.Text(6);
    t.allocated_usd = r.Double(7);
    t.effective_usd = r.Double(8);
    t.waste_usd = r.Double(9);
    t.gpu_hours = r.Double(10);
    t.unmeasured_gpu_hours = r.Double(11);
    t.unit_kind = r.Text(12);
    t.priced_gpu_hours = r.Double(13);
    out.holders.push_back(std::move(t));
  });
  if (!s.ok()) return Fail("reading totals", s);
  Result<std::unique_ptr<Statement>> idle =
      db_->Prepare(StrCat("SELECT cluster, node, gpu_model, capacity_type, idle_usd, "
                          "idle_gpu_hours, unit_kind, priced_gpu_hours FROM idle_totals",
                          where, " ORDER BY 1, 2, 3, 4, 7"));
  if (!idle.ok()) return Fail("reading totals", idle.status());
  BindAll(**idle, 1, clusters);
  s = EachRow(**idle, [&](const Statement& r) {
    NodeIdleTotal t;
    t.cluster = r.Text(0);
    t.node = r.Text(1);
    t.gpu_model = r.Text(2);
    t.capacity_type = r.Text(3);
    t.idle_usd = r.Double(4);
    t.idle_gpu_hours = r.Double(5);
    t.unit_kind = r.Text(6);
    t.priced_gpu_hours = r.Double(7);
    out.idle.push_back(std::move(t));
  });
  if (!s.ok()) return Fail("reading totals", s);
  return out;
}

Result<LedgerLatest> Ledger::Latest(std::span<const std::string> clusters) {
  constexpr std::string_view kWhat = "reading the newest step";
  LedgerLatest out;
  if (clusters.empty()) {
    // The whole ledger's newest step, from the key's index.
    Result<std::unique_ptr<Statement>> q =
        db_->Prepare("SELECT MAX(step_start_ms) FROM cost_records");
    if (!q.ok()) return Fail(kWhat, q.status());
    Result<bool> row = (*q)->Step();
    if (!row.ok()) return Fail(kWhat, row.status());
    if (!*row || (*q)->IsNull(0)) return out;
    const int64_t last = (*q)->Int(0);
    q = db_->Prepare("SELECT MAX(step_ms) FROM cost_records WHERE step_start_ms = $1");
    if (!q.ok()) return Fail(kWhat, q.status());
    (*q)->Bind(1, last);
    row = (*q)->Step();
    if (!row.ok()) return Fail(kWhat, row.status());
    const int64_t step_ms = *row ? (*q)->Int(0) : 0;
    const Instant start = InstantFromUnixMs(last);
    GPUCOST_RETURN_IF_ERROR(
        AddGauges(Window{start, start + std::chrono::milliseconds(step_ms)}, {}, out));
    return out;
  }
  // Each cluster's gauges at its own newest step.
  GPUCOST_ASSIGN_OR_RETURN(std::vector<ScopeState> scopes, Scopes());
  for (const ScopeState& scope : scopes) {
    if (!scope.newest_step ||
        std::find(clusters.begin(), clusters.end(), scope.cluster) == clusters.end()) {
      continue;
    }
    GPUCOST_RETURN_IF_ERROR(AddGauges(*scope.newest_step, scope.cluster, out));
  }
  return out;
}

Status Ledger::AddGauges(Window step, const std::string& cluster, LedgerLatest& out) {
  constexpr std::string_view kWhat = "reading the newest step";
  const int64_t last = UnixMs(step.start);
  const int64_t step_ms = UnixMs(step.end) - last;
  if (!out.step_start || step.start > *out.step_start) {
    out.step_start = step.start;
    out.step = std::chrono::milliseconds(step_ms);
  }
  const std::string only = cluster.empty() ? "" : " AND n.cluster = $3";
  const double hours = static_cast<double>(step_ms) / 3.6e6;
  Result<std::unique_ptr<Statement>> h = db_->Prepare(StrCat(
      "SELECT h.cluster, h.namespace, COALESCE(NULLIF(h.team, ''), h.namespace), "
      "h.workload, h.workload_kind, n.gpu_model, n.capacity_type, "
      "COALESCE(SUM(r.gpu_hours), 0), COALESCE(SUM(r.allocated_usd), 0), "
      "COALESCE(SUM(r.activity_gpu_hours), 0), COALESCE(SUM(CASE WHEN r.activity_gpu_hours IS "
      "NULL THEN 0 ELSE r.gpu_hours - r.unmeasured_gpu_hours END), 0), ",
      kUnitKindOfU, ", MIN(r.flags & ", kPriceKnown,
      ") FROM cost_records r JOIN "
      "holders h ON h.id = r.holder_id JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = "
      "u.node_id WHERE r.step_start_ms = $1 AND r.step_ms = $2",
      only, " GROUP BY 1, 2, 3, 4, 5, 6, 7, 12 ORDER BY 1, 2, 3, 4, 5, 6, 7, 12"));
  if (!h.ok()) return Fail(kWhat, h.status());
  (*h)->Bind(1, last).Bind(2, step_ms);
  if (!cluster.empty()) (*h)->Bind(3, cluster);
  Status s = EachRow(**h, [&](const Statement& r) {
    HolderGauge g;
    g.cluster = r.Text(0);
    g.namespace_name = r.Text(1);
    g.team = r.Text(2);
    g.workload = r.Text(3);
    g.workload_kind = r.Text(4);
    g.gpu_model = r.Text(5);
    g.capacity_type = r.Text(6);
    g.gpus = r.Double(7) / hours;
    // Unknown when any of it has no known price: a sum of the priced part would understate it.
    g.usd_per_hour = r.Int(12) != 0 ? r.Double(8) / hours : NAN;
    const double measured = r.Double(10);
    if (measured > 0) g.utilization = std::min(1.0, r.Double(9) / measured);
    g.unit_kind = r.Text(11);
    out.holders.push_back(std::move(g));
  });
  if (!s.ok()) return Fail(kWhat, s);
  Result<std::unique_ptr<Statement>> n = db_->Prepare(
      StrCat("SELECT n.cluster, n.name, n.gpu_model, n.capacity_type, n.physical_gpus, "
             "COALESCE(SUM(CASE WHEN r.holder_id != 0 THEN r.gpu_hours ELSE 0 END), 0), "
             "MIN(r.flags & 4), COALESCE(SUM(r.allocated_usd), 0), COALESCE(SUM(r.gpu_hours), 0), "
             "MAX(r.price_source), (SELECT CASE WHEN x.last_usage_end_ms > $1 THEN "
             "x.last_usage_end_ms END FROM node_usage x WHERE x.node_id = n.id), MAX(",
             kUnitKindOfU,
             ") FROM cost_records r "
             "JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = u.node_id WHERE "
             "r.step_start_ms = $2 AND r.step_ms = $3",
             cluster.empty() ? "" : " AND n.cluster = $4", " GROUP BY n.id ORDER BY 1, 2"));
  if (!n.ok()) return Fail(kWhat, n.status());
  // Usage in the last day: a step that started after last - 1 day.
  (*n)->Bind(1, last - 86'400'000 + step_ms).Bind(2, last).Bind(3, step_ms);
  if (!cluster.empty()) (*n)->Bind(4, cluster);
  s = EachRow(**n, [&](const Statement& r) {
    NodeGauge g;
    g.cluster = r.Text(0);
    g.node = r.Text(1);
    g.gpu_model = r.Text(2);
    g.capacity_type = r.Text(3);
    g.physical_gpus = static_cast<int>(r.Int(4));
    g.allocated_gpus = r.Double(5) / hours;
    g.price_known = r.Int(6) != 0;
    const double gpu_hours = r.Double(8);
    if (g.price_known && gpu_hours > 0) {
      g.usd_per_gpu_hour = r.Double(7) / gpu_hours;
      g.price_source = static_cast<PriceSource>(r.Int(9));
    }
    if (!r.IsNull(10)) g.last_usage = InstantFromUnixMs(r.Int(10));
    g.unit_kind = r.Text(11);
    out.nodes.push_back(std::move(g));
  });
  if (!s.ok()) return Fail(kWhat, s);
  return Status::Ok();
}

Result<std::map<std::string, CostSum>> Ledger::Costs(Window window,
                                                     std::span<const std::string> clusters,
                                                     CostGroup by) {
  // Whole sealed days and hours from their roll-ups, the rest from the records.
  ReadOptions options;
  options.rollups = true;
  std::set<int64_t> steps;
  GPUCOST_ASSIGN_OR_RETURN(std::vector<Segment> plan, Plan(UnixMs(window.start), UnixMs(window.end),
                                                           UnixMs(window.start), options, steps));
  // A team's money is its holders' (a holder's cluster is its node's); a cluster's is its nodes'
  // units', held or idle.
  const bool teams = by != CostGroup::kCluster;
  const std::string team_of = "COALESCE(NULLIF(h.team, ''), h.namespace)";
  const std::string key = by == CostGroup::kTeam      ? team_of
                          : by == CostGroup::kCluster ? "n.cluster"
                                                      : StrCat("h.cluster || '\t' || ", team_of);
  const std::string join =
      teams ? "JOIN holders h ON h.id = r.holder_id"
            : "JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = u.node_id";
  const std::string only = clusters.empty() ? ""
                                            : StrCat(" AND ", teams ? "h" : "n", ".cluster IN (",
                                                     Params(3, clusters.size()), ")");
  Result<std::unique_ptr<Statement>> records = db_->Prepare(
      StrCat("SELECT ", key,
             ", COALESCE(SUM(r.allocated_usd), 0), COALESCE(SUM(r.effective_usd), 0), "
             "COALESCE(SUM(CASE WHEN (r.flags & ",
             kPriceKnown,
             ") <> 0 THEN r.gpu_hours ELSE 0 END), 0), "
             "COALESCE(SUM(CASE WHEN (r.flags & ",
             kPriceKnown,
             ") = 0 THEN r.gpu_hours ELSE 0 END), 0) "
             "FROM cost_records r ",
             join, " WHERE r.step_start_ms >= $1 AND r.step_start_ms < $2", only, " GROUP BY 1"));
  if (!records.ok()) return Fail("reading team costs", records.status());
  Result<std::unique_ptr<Statement>> rolled = db_->Prepare(
      StrCat("SELECT ", key,
             ", COALESCE(SUM(r.allocated_usd + r.idle_usd), 0), "
             "COALESCE(SUM(r.effective_usd), 0), COALESCE(SUM(r.priced_hours), 0), "
             "COALESCE(SUM(r.unpriced_hours), 0) FROM rollups r ",
             join, " WHERE r.period_ms = $1 AND r.start_ms = $2", only, " GROUP BY 1"));
  if (!rolled.ok()) return Fail("reading team costs", rolled.status());
  struct Sums {
    CompensatedSum usd, effective, priced, unpriced;
  };
  std::map<std::string, Sums> sums;
  for (const Segment& seg : plan) {
    Statement& q = seg.period_ms == 0 ? **records : **rolled;
    q.Reset();
    if (seg.period_ms == 0) {
      q.Bind(1, seg.start_ms).Bind(2, seg.end_ms);
    } else {
      q.Bind(1, seg.period_ms).Bind(2, seg.start_ms);
    }
    BindAll(q, 3, clusters);
    Status s = EachRow(q, [&](const Statement& r) {
      Sums& t = sums[r.Text(0)];
      t.usd.Add(r.Double(1));
      t.effective.Add(r.Double(2));
      t.priced.Add(r.Double(3));
      t.unpriced.Add(r.Double(4));
    });
    if (!s.ok()) return Fail("reading team costs", s);
  }
  std::map<std::string, CostSum> out;
  for (const auto& [team, t] : sums) {
    out[team] = {t.usd.value(), t.effective.value(), t.priced.value(), t.unpriced.value()};
  }
  return out;
}

Result<std::optional<Window>> Ledger::Span() {
  // Both ends from the key's index: no scan.
  Result<std::unique_ptr<Statement>> last = db_->Prepare(
      "SELECT step_start_ms + step_ms FROM cost_records ORDER BY step_start_ms DESC LIMIT 1");
  if (!last.ok()) return Fail("reading", last.status());
  Result<bool> row = (*last)->Step();
  if (!row.ok()) return Fail("reading", row.status());
  if (!*row) return std::optional<Window>();
  const int64_t end = (*last)->Int(0);
  Result<std::unique_ptr<Statement>> first =
      db_->Prepare("SELECT MIN(step_start_ms) FROM cost_records");
  if (!first.ok()) return Fail("reading", first.status());
  row = (*first)->Step();
  if (!row.ok()) return Fail("reading", row.status());
  const int64_t start = (*first)->Int(0);
  // A damaged index can hide records at either end: the first and last periods that were
  // rolled with records must still hold some.
  for (const bool newest : {false, true}) {
    Result<std::unique_ptr<Statement>> q = db_->Prepare(
        StrCat("SELECT period_ms, start_ms FROM period_checks WHERE records > 0 ORDER BY "
               "start_ms",
               newest ? " DESC" : "", " LIMIT 1"));
    if (!q.ok()) return Fail("reading the checks", q.status());
    row = (*q)->Step();
    if (!row.ok()) return Fail("reading the checks", row.status());
    if (!*row) break;
    const int64_t period = (*q)->Int(0);
    const int64_t at = (*q)->Int(1);
    if (newest ? at >= end : at + period <= start) {
      return Damaged(StrCat(
          "the records of ", PeriodName(period, at), " are missing: the records it holds run from ",
          FormatRfc3339(InstantFromUnixMs(start)), " to ", FormatRfc3339(InstantFromUnixMs(end))));
    }
  }
  return std::optional<Window>(Window{InstantFromUnixMs(start), InstantFromUnixMs(end)});
}

Result<Duration> Ledger::NewestStep() {
  Result<std::unique_ptr<Statement>> q =
      db_->Prepare("SELECT step_ms FROM cost_records ORDER BY step_start_ms DESC LIMIT 1");
  if (!q.ok()) return Fail("reading", q.status());
  Result<bool> row = (*q)->Step();
  if (!row.ok()) return Fail("reading", row.status());
  return Duration(*row ? (*q)->Int(0) : 0);
}

Result<std::optional<int64_t>> Ledger::GridOffset(Duration step) {
  const int64_t step_ms = std::chrono::duration_cast<std::chrono::milliseconds>(step).count();
  if (step_ms <= 0) return std::optional<int64_t>();
  Result<std::unique_ptr<Statement>> q = db_->Prepare(
      "SELECT step_start_ms, step_ms FROM cost_records ORDER BY step_start_ms DESC LIMIT 1");
  if (!q.ok()) return Fail("reading", q.status());
  Result<bool> row = (*q)->Step();
  if (!row.ok()) return Fail("reading", row.status());
  if (!*row || (*q)->Int(1) != step_ms) return std::optional<int64_t>();
  return std::optional<int64_t>(FloorMod((*q)->Int(0), step_ms));
}

}  // namespace gpucost::ledger
