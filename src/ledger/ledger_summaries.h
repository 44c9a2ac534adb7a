// What the ledger says about itself without a read of its records (ledger.h): its size and span
// (Ledger::Info), the running totals since it began (Ledger::Totals) and its newest step
// (Ledger::Latest), for `ledger info` and serve's /metrics.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"
#include "model/price.h"

namespace gpucost::ledger {

struct LedgerInfo {
  int schema_version = 0;
  int64_t records = 0;
  int64_t units = 0;
  int64_t holders = 0;
  int64_t nodes = 0;
  std::optional<Window> span;    // first step start to last step end
  std::vector<int64_t> steps_s;  // the distinct step lengths, seconds
};

// What Ledger::Check found: nothing when the ledger is sound.
struct LedgerCheck {
  std::vector<std::string> problems;  // the first few, each naming where
  int64_t periods = 0;                // rolled periods compared with their records
};

// Totals since the ledger began, for counters: per holder group (known money only; unknown
// money is in no sum) and per node for capacity nobody held.
// unit_kind: "gpu", or "neuron_device" where the hours are accelerator-hours of AWS Neuron
// devices (docs/report.md, "Unit kinds").
struct HolderTotal {
  std::string cluster, namespace_name, team, workload, workload_kind, gpu_model, capacity_type;
  std::string unit_kind = "gpu";
  double allocated_usd = 0;
  double effective_usd = 0;
  double waste_usd = 0;
  double gpu_hours = 0;
  double unmeasured_gpu_hours = 0;
  double priced_gpu_hours = 0;  // of gpu_hours, those whose price was known
  // Some hours priced (or money from before schema v9 knew it): the money is known, in part.
  bool money_known() const { return priced_gpu_hours > 0 || allocated_usd != 0; }
};
struct NodeIdleTotal {
  std::string cluster, node, gpu_model, capacity_type;
  std::string unit_kind = "gpu";
  double idle_usd = 0;
  double idle_gpu_hours = 0;
  double priced_gpu_hours = 0;  // of idle_gpu_hours, those whose price was known
  bool money_known() const { return priced_gpu_hours > 0 || idle_usd != 0; }
};
// A team's (or a cluster's) allocated cost over a window: the known money, and the GPU-hours whose
// price was unknown (their cost is in no sum; with some, usd is a floor).
struct CostSum {
  double usd = 0;
  double effective_usd = 0;  // of the measured part
  double priced_gpu_hours = 0;
  double unpriced_gpu_hours = 0;
};
// What Ledger::Costs sums by: each team's held money (a holder's team, else its namespace), each
// cluster's held and idle money, or each team's held money in each cluster ("cluster\tteam").
enum class CostGroup : uint8_t { kTeam, kCluster, kClusterTeam };
struct LedgerTotals {
  std::vector<HolderTotal> holders;
  std::vector<NodeIdleTotal> idle;
};

// The newest step of the ledger, for gauges: per holder group and per node.
struct HolderGauge {
  std::string cluster, namespace_name, team, workload, workload_kind, gpu_model, capacity_type;
  std::string unit_kind = "gpu";
  double gpus = 0;           // GPU-equivalents held
  double usd_per_hour = NAN;  // allocated cost rate; NaN when a price in it is unknown
  double utilization = NAN;  // activity / measured share; NaN when unmeasured
};
struct NodeGauge {
  std::string cluster, node, gpu_model, capacity_type;
  std::string unit_kind = "gpu";
  int physical_gpus = 0;
  double allocated_gpus = 0;  // GPU-equivalents held
  bool price_known = false;
  double usd_per_gpu_hour = NAN;  // NaN when unknown
  PriceSource price_source = PriceSource::kUnknown;
  // End of the newest step with a usage sample in the ledger's last day; nullopt when none.
  std::optional<Instant> last_usage;
};
struct LedgerLatest {
  std::optional<Instant> step_start;  // nullopt: an empty ledger
  Duration step{0};
  std::vector<HolderGauge> holders;
  std::vector<NodeGauge> nodes;
};

}  // namespace gpucost::ledger
