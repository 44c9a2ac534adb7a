// The ledger's running totals (schema v2: holder_totals, idle_totals, by unit kind since v8;
// v3: node_usage), which
// every write keeps in step with its clusters' records; retention (ledger_retention.cc) removes
// records but never lowers a total.
#include <iterator>

#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/record_flags.h"
#include "ledger/sql_db.h"

namespace gpucost::ledger {

Status Ledger::AddToTotals(int64_t start_ms, int64_t end_ms, double sign,
                           std::span<const std::string> clusters) {
  if (clusters.empty()) return Status::Ok();
  static constexpr const char* kSql[] = {
      "INSERT INTO holder_totals SELECT h.cluster, h.namespace, "
      "COALESCE(NULLIF(h.team, ''), h.namespace), h.workload, h.workload_kind, n.gpu_model, "
      "n.capacity_type, $3 * COALESCE(SUM(r.allocated_usd), 0), "
      "$3 * COALESCE(SUM(r.effective_usd), 0), "
      "$3 * COALESCE(SUM(r.allocated_usd - r.effective_usd), 0), "
      "$3 * COALESCE(SUM(r.gpu_hours), 0), $3 * COALESCE(SUM(r.unmeasured_gpu_hours), 0), "
      "{unit_kind}, {priced_hours} "
      "FROM cost_records r JOIN holders h ON h.id = r.holder_id JOIN units u ON u.id = "
      "r.unit_id JOIN nodes n ON n.id = u.node_id "
      "WHERE r.step_start_ms >= $1 AND r.step_start_ms < $2 AND r.holder_id <> 0 {clusters} "
      "GROUP BY 1, 2, 3, 4, 5, 6, 7, 13 "
      "ON CONFLICT (cluster, namespace, team, workload, workload_kind, gpu_model, "
      "capacity_type, unit_kind) DO UPDATE SET "
      "allocated_usd = holder_totals.allocated_usd + excluded.allocated_usd, "
      "effective_usd = holder_totals.effective_usd + excluded.effective_usd, "
      "waste_usd = holder_totals.waste_usd + excluded.waste_usd, "
      "gpu_hours = holder_totals.gpu_hours + excluded.gpu_hours, "
      "unmeasured_gpu_hours = holder_totals.unmeasured_gpu_hours + "
      "excluded.unmeasured_gpu_hours, "
      "priced_gpu_hours = holder_totals.priced_gpu_hours + excluded.priced_gpu_hours",
      "INSERT INTO idle_totals SELECT n.cluster, n.name, n.gpu_model, n.capacity_type, "
      "$3 * COALESCE(SUM(r.allocated_usd), 0), $3 * COALESCE(SUM(r.gpu_hours), 0), {unit_kind}, "
      "{priced_hours} "
      "FROM cost_records r JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = u.node_id "
      "WHERE r.step_start_ms >= $1 AND r.step_start_ms < $2 AND r.holder_id = 0 {clusters} "
      "GROUP BY 1, 2, 3, 4, 7 "
      "ON CONFLICT (cluster, node, gpu_model, capacity_type, unit_kind) DO UPDATE SET "
      "idle_usd = idle_totals.idle_usd + excluded.idle_usd, "
      "idle_gpu_hours = idle_totals.idle_gpu_hours + excluded.idle_gpu_hours, "
      "priced_gpu_hours = idle_totals.priced_gpu_hours + excluded.priced_gpu_hours",
      // The newest usage per node, which only moves forward: after a write only.
      "INSERT INTO node_usage SELECT u.node_id, MAX(r.step_start_ms + r.step_ms) "
      "FROM cost_records r JOIN units u ON u.id = r.unit_id JOIN nodes n ON n.id = u.node_id "
      "WHERE r.step_start_ms >= $1 AND r.step_start_ms < $2 AND r.activity_gpu_hours IS NOT "
      "NULL {clusters} GROUP BY u.node_id "
      "ON CONFLICT (node_id) DO UPDATE SET last_usage_end_ms = CASE WHEN "
      "excluded.last_usage_end_ms > node_usage.last_usage_end_ms THEN "
      "excluded.last_usage_end_ms ELSE node_usage.last_usage_end_ms END",
  };
  for (size_t i = 0; i < std::size(kSql); ++i) {
    const bool usage = i + 1 == std::size(kSql);
    if (usage && sign < 0) continue;
    // The write's clusters, after the parameters the statement has.
    const int first = usage ? 3 : 4;
    std::string sql = kSql[i];
    // As a list of unit ids, which the records' key can narrow by (unit_id is its second column).
    sql.replace(sql.find("{clusters}"), 10, UnitsOfClusters("r.unit_id", first, clusters.size()));
    // The kind of each unit (schema v8), so that GPU- and accelerator-hours keep apart.
    if (const size_t at = sql.find("{unit_kind}"); at != std::string::npos) {
      sql.replace(at, 11, kUnitKindOfU);
    }
    // The hours whose price was known (schema v9), for /metrics to leave out unknown money.
    if (const size_t at = sql.find("{priced_hours}"); at != std::string::npos) {
      sql.replace(at, 14,
                  StrCat("$3 * COALESCE(SUM(CASE WHEN (r.flags & ", kPriceKnown,
                         ") <> 0 THEN r.gpu_hours ELSE 0 END), 0)"));
    }
    Result<std::unique_ptr<Statement>> q = db_->Prepare(sql);
    if (!q.ok()) return Fail("updating the totals", q.status());
    (*q)->Bind(1, start_ms);
    (*q)->Bind(2, end_ms);
    if (!usage) (*q)->Bind(3, sign);
    BindAll(**q, first, clusters);
    if (Result<bool> r = (*q)->Step(); !r.ok()) return Fail("updating the totals", r.status());
  }
  return Status::Ok();
}

}  // namespace gpucost::ledger
