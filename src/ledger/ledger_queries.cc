// The ledger's summary queries: what it holds (Info), totals since it began for counters
// (Totals), the newest step for gauges (Latest), and team costs over a window (TeamCosts). They
// aggregate in SQLite and return small results; `gpucost serve` asks them every cycle.
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "ledger/ledger.h"
#include "ledger/statement.h"

namespace gpucost::ledger {

Result<LedgerInfo> Ledger::Info() {
  LedgerInfo info;
  info.schema_version = kSchemaVersion;
  const auto count = [this](const char* sql) -> Result<int64_t> {
    Statement q(db_, sql);
    if (!q.ok() || q.Step() != SQLITE_ROW) return Fail("reading");
    return q.Int(0);
  };
  GPUCOST_ASSIGN_OR_RETURN(info.records, count("SELECT COUNT(*) FROM cost_records"));
  GPUCOST_ASSIGN_OR_RETURN(info.units, count("SELECT COUNT(*) FROM units"));
  GPUCOST_ASSIGN_OR_RETURN(info.holders, count("SELECT COUNT(*) FROM holders"));
  Statement q(db_,
              "SELECT step_ms, MIN(step_start_ms), MAX(step_start_ms + step_ms) FROM cost_records "
              "GROUP BY step_ms");
  if (!q.ok()) return Fail("reading");
  int64_t first = INT64_MAX;
  int64_t last = INT64_MIN;
  while (q.Step() == SQLITE_ROW) {
    info.steps_s.push_back(q.Int(0) / 1000);
    first = std::min(first, q.Int(1));
    last = std::max(last, q.Int(2));
  }
  if (!info.steps_s.empty()) info.span = Window{InstantFromUnixMs(first), InstantFromUnixMs(last)};
  return info;
}

Result<LedgerTotals> Ledger::Totals() {
  LedgerTotals out;
  Statement q(db_,
              "SELECT h.cluster, h.namespace, COALESCE(NULLIF(h.team, ''), h.namespace), "
              "h.workload, h.workload_kind, n.gpu_model, "
              "n.capacity_type, TOTAL(r.allocated_usd), TOTAL(r.effective_usd), "
              "TOTAL(r.allocated_usd - r.effective_usd), TOTAL(r.gpu_hours), "
              "TOTAL(r.unmeasured_gpu_hours) FROM cost_records r JOIN holders h ON h.id = "
              "r.holder_id JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = u.node_id "
              "GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7");
  if (!q.ok()) return Fail("reading totals");
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    HolderTotal t;
    t.cluster = q.Text(0);
    t.namespace_name = q.Text(1);
    t.team = q.Text(2);
    t.workload = q.Text(3);
    t.workload_kind = q.Text(4);
    t.gpu_model = q.Text(5);
    t.capacity_type = q.Text(6);
    t.allocated_usd = sqlite3_column_double(q.get(), 7);
    t.effective_usd = sqlite3_column_double(q.get(), 8);
    t.waste_usd = sqlite3_column_double(q.get(), 9);
    t.gpu_hours = sqlite3_column_double(q.get(), 10);
    t.unmeasured_gpu_hours = sqlite3_column_double(q.get(), 11);
    out.holders.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) return Fail("reading totals");
  Statement idle(db_,
                 "SELECT n.cluster, n.name, n.gpu_model, n.capacity_type, TOTAL(r.allocated_usd), "
                 "TOTAL(r.gpu_hours) FROM cost_records r JOIN units u ON u.id = r.unit_id JOIN "
                 "nodes n ON n.id = u.node_id WHERE r.holder_id = 0 GROUP BY 1, 2, 3, 4 ORDER BY "
                 "1, 2");
  if (!idle.ok()) return Fail("reading totals");
  while ((rc = idle.Step()) == SQLITE_ROW) {
    NodeIdleTotal t;
    t.cluster = idle.Text(0);
    t.node = idle.Text(1);
    t.gpu_model = idle.Text(2);
    t.capacity_type = idle.Text(3);
    t.idle_usd = sqlite3_column_double(idle.get(), 4);
    t.idle_gpu_hours = sqlite3_column_double(idle.get(), 5);
    out.idle.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) return Fail("reading totals");
  return out;
}

Result<LedgerLatest> Ledger::Latest() {
  LedgerLatest out;
  int64_t last = 0;
  {
    Statement q(db_, "SELECT MAX(step_start_ms), MAX(step_ms) FROM cost_records");
    if (!q.ok() || q.Step() != SQLITE_ROW) return Fail("reading the newest step");
    if (sqlite3_column_type(q.get(), 0) == SQLITE_NULL) return out;
    last = q.Int(0);
    out.step_start = InstantFromUnixMs(last);
  }
  Statement step(db_, "SELECT MAX(step_ms) FROM cost_records WHERE step_start_ms = ?");
  step.Bind(1, last);
  if (!step.ok() || step.Step() != SQLITE_ROW) return Fail("reading the newest step");
  const int64_t step_ms = step.Int(0);
  out.step = std::chrono::milliseconds(step_ms);
  const double hours = static_cast<double>(step_ms) / 3.6e6;
  Statement h(db_,
              "SELECT h.cluster, h.namespace, COALESCE(NULLIF(h.team, ''), h.namespace), "
              "h.workload, h.workload_kind, n.gpu_model, "
              "n.capacity_type, TOTAL(r.gpu_hours), TOTAL(r.allocated_usd), "
              "TOTAL(r.activity_gpu_hours), TOTAL(CASE WHEN r.activity_gpu_hours IS NULL THEN 0 "
              "ELSE r.gpu_hours - r.unmeasured_gpu_hours END) FROM cost_records r JOIN holders h "
              "ON h.id = r.holder_id JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = "
              "u.node_id WHERE r.step_start_ms = ? GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, "
              "4, 5, 6, 7");
  h.Bind(1, last);
  if (!h.ok()) return Fail("reading the newest step");
  int rc;
  while ((rc = h.Step()) == SQLITE_ROW) {
    HolderGauge g;
    g.cluster = h.Text(0);
    g.namespace_name = h.Text(1);
    g.team = h.Text(2);
    g.workload = h.Text(3);
    g.workload_kind = h.Text(4);
    g.gpu_model = h.Text(5);
    g.capacity_type = h.Text(6);
    g.gpus = sqlite3_column_double(h.get(), 7) / hours;
    g.usd_per_hour = sqlite3_column_double(h.get(), 8) / hours;
    const double measured = sqlite3_column_double(h.get(), 10);
    if (measured > 0) g.utilization = std::min(1.0, sqlite3_column_double(h.get(), 9) / measured);
    out.holders.push_back(std::move(g));
  }
  if (rc != SQLITE_DONE) return Fail("reading the newest step");
  Statement n(db_,
              "SELECT n.cluster, n.name, n.gpu_model, n.capacity_type, n.physical_gpus, "
              "TOTAL(CASE WHEN r.holder_id != 0 THEN r.gpu_hours ELSE 0 END), "
              "MIN(r.flags & 4), TOTAL(r.allocated_usd), TOTAL(r.gpu_hours), "
              "MAX(r.price_source), (SELECT MAX(x.step_start_ms + x.step_ms) FROM cost_records x "
              "JOIN units y ON y.id = x.unit_id WHERE y.node_id = n.id AND "
              "x.activity_gpu_hours IS NOT NULL AND x.step_start_ms > ?) FROM cost_records r "
              "JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = u.node_id WHERE "
              "r.step_start_ms = ? GROUP BY n.id ORDER BY 1, 2");
  n.Bind(1, last - 86'400'000).Bind(2, last);
  if (!n.ok()) return Fail("reading the newest step");
  while ((rc = n.Step()) == SQLITE_ROW) {
    NodeGauge g;
    g.cluster = n.Text(0);
    g.node = n.Text(1);
    g.gpu_model = n.Text(2);
    g.capacity_type = n.Text(3);
    g.physical_gpus = static_cast<int>(n.Int(4));
    g.allocated_gpus = sqlite3_column_double(n.get(), 5) / hours;
    g.price_known = n.Int(6) != 0;
    const double gpu_hours = sqlite3_column_double(n.get(), 8);
    if (g.price_known && gpu_hours > 0) {
      g.usd_per_gpu_hour = sqlite3_column_double(n.get(), 7) / gpu_hours;
      g.price_source = static_cast<PriceSource>(n.Int(9));
    }
    if (sqlite3_column_type(n.get(), 10) != SQLITE_NULL) {
      g.last_usage = InstantFromUnixMs(n.Int(10));
    }
    out.nodes.push_back(std::move(g));
  }
  if (rc != SQLITE_DONE) return Fail("reading the newest step");
  return out;
}

Result<std::map<std::string, double>> Ledger::TeamCosts(Window window) {
  std::map<std::string, double> out;
  Statement q(db_,
              "SELECT COALESCE(NULLIF(h.team, ''), h.namespace), TOTAL(r.allocated_usd) FROM "
              "cost_records r JOIN holders h ON h.id = r.holder_id WHERE r.step_start_ms >= ? "
              "AND r.step_start_ms < ? GROUP BY 1");
  q.Bind(1, UnixMs(window.start)).Bind(2, UnixMs(window.end));
  if (!q.ok()) return Fail("reading team costs");
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) out[q.Text(0)] = sqlite3_column_double(q.get(), 1);
  if (rc != SQLITE_DONE) return Fail("reading team costs");
  return out;
}

}  // namespace gpucost::ledger
