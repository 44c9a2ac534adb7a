// Cost per unit of work: the engine's cost per holder (HolderCostSink, one engine run) joined
// with the increase of a work counter per pod (WorkSeries), grouped by cluster, team,
// namespace, workload or pod, giving work done, allocated and effective cost, and dollars and
// GPU-hours per N units of work (docs/unit-cost.md). Money is unknown (NaN), never $0, when any
// of a group's GPU-hours has no price; a per-N figure is unknown when there is no work.
// Thread-compatible.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attribution/attributor.h"
#include "core/money.h"
#include "core/result.h"
#include "core/time.h"
#include "model/inventory.h"
#include "workcost/work_series.h"

namespace gpucost::workcost {

// One holder's cost over the window.
struct HolderCost {
  CompensatedSum gpu_hours;
  CompensatedSum priced_allocated_usd;
  CompensatedSum unpriced_gpu_hours;
  CompensatedSum effective_usd;  // over measured steps with a known price
  CompensatedSum unmeasured_gpu_hours;
  bool has_effective = false;
};

// A CostSink that sums the engine's holder records per holder (idle records are skipped).
class HolderCostSink final : public CostSink {
 public:
  explicit HolderCostSink(size_t holders) : costs_(holders) {}
  void Consume(std::span<const CostRecord> records) override;
  std::span<const HolderCost> costs() const { return costs_; }

 private:
  std::vector<HolderCost> costs_;
};

enum class GroupBy : uint8_t { kCluster, kTeam, kNamespace, kWorkload, kPod };

// "workload", "namespace,team": cluster | team | namespace | workload | pod.
Result<std::vector<GroupBy>> ParseGroupBy(std::string_view comma_list);

struct UnitCostSettings {
  std::vector<GroupBy> by = {GroupBy::kWorkload};
  double per = 1;              // figures are per this many units of work
  std::string unit = "units";  // what one unit of work is, for headers
  std::string metric;          // the work counter, for headers
  std::string workload_kind;   // only holders of this workload kind (e.g. Job); empty: all
  Window window;
  Duration lookback{0};  // how far before the window a counter's baseline sample may lie
};

struct UnitCostRow {
  std::vector<std::string> keys;  // one per UnitCostTable::columns
  double work = 0;                // the counter's increase over the window
  int64_t series = 0;             // counter series joined
  int64_t resets = 0;             // counter resets seen
  double gpu_hours = 0;
  double allocated_usd = NAN;
  double effective_usd = NAN;
  double unmeasured_gpu_hours = 0;
  double unpriced_gpu_hours = 0;
  double allocated_usd_per_n = NAN;
  double effective_usd_per_n = NAN;
  double gpu_hours_per_n = NAN;
};

struct UnitCostTable {
  UnitCostSettings settings;
  std::vector<std::string> columns;  // key columns: cluster, team, namespace, workload_kind, ...
  std::vector<UnitCostRow> rows;     // sorted by key
  UnitCostRow totals;                // keys empty
  double unmatched_work = 0;         // work of series joined to no GPU holder
  int64_t unmatched_series = 0;
  std::vector<std::string> warnings;
};

// Joins `series` to the holders of `inventory` by (cluster, namespace, pod) and groups.
// `costs` is indexed like inventory.holders. A series whose pod held no GPU in the window (or
// that names no pod or namespace) is left out and counted as unmatched, with a warning.
Result<UnitCostTable> BuildUnitCost(const Inventory& inventory, std::span<const HolderCost> costs,
                                    std::span<const WorkSeries> series,
                                    const UnitCostSettings& settings);

}  // namespace gpucost::workcost
