// Report: the finished, renderer-ready result of aggregating CostRecords — one row per
// (time bucket, group) with money, hours and utilization, plus totals — and the settings that
// shaped it. Plain value types; NaN in a double field means null (unknown), never zero.
//
//   struct Report { window, step, accumulated, by, idle, rows, totals };
//   std::string_view IdlePolicyName(IdlePolicy); Result<IdlePolicy> ParseIdlePolicy(name);
//   std::string_view IdleScopeName(IdleScope);   Result<IdleScope> ParseIdleScope(name);
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "report/dimension.h"

namespace gpucost {

// What happens to the cost of capacity nobody holds (docs/report.md "Idle").
enum class IdlePolicy : uint8_t {
  kSeparate,      // its own idle rows per bucket (default)
  kProportional,  // shared in proportion to each row's own allocated cost
  kEven,          // shared equally per holder present
};
enum class IdleScope : uint8_t {
  kCluster,  // a cluster's idle goes to holders anywhere in that cluster (default)
  kNode,     // a node's idle goes only to holders on that node
};

struct IdleOptions {
  IdlePolicy policy = IdlePolicy::kSeparate;
  IdleScope scope = IdleScope::kCluster;
};

std::string_view IdlePolicyName(IdlePolicy p);  // "separate", "proportional", "even"
std::string_view IdleScopeName(IdleScope s);    // "cluster", "node"
Result<IdlePolicy> ParseIdlePolicy(std::string_view name);
Result<IdleScope> ParseIdleScope(std::string_view name);

struct ReportRow {
  int64_t bucket = 0;
  Instant start;  // of the bucket
  Instant end;
  // Unheld capacity: its values are the capacity's for the dimensions that describe it
  // (DescribesCapacity: cluster, node, gpu_model, ...) and __idle__ for the holders'.
  bool is_idle = false;
  std::vector<std::string> values;  // one per Report::by
  double gpu_hours = 0;             // GPU-equivalent hours held (idle rows: unheld)
  double allocated_usd = NAN;       // own allocation + idle received; 0 on idle rows
  double effective_usd = NAN;       // measured part only; null when nothing was measured
  double waste_usd = NAN;           // measured allocated - effective + idle received
  double idle_usd = NAN;            // idle rows: unheld cost; others: idle received
  double utilization = NAN;         // effective / measured own allocated
  double efficiency = NAN;          // effective / allocated
  double unmeasured_gpu_hours = 0;
  double unpriced_gpu_hours = 0;  // hours on nodes whose price is unknown
  double activity_gpu_hours = 0;  // measured activity in GPU-equivalent hours
  double billing_units = NAN;     // Slurm billing TRES x hours held; null without Slurm billing
  bool estimated = false;
  bool oversubscribed = false;
};

struct ReportTotals {
  double gpu_hours = 0;
  double allocated_usd = NAN;
  double effective_usd = NAN;
  double waste_usd = NAN;
  double idle_usd = NAN;
  double cost_usd = NAN;  // all GPU cost in the window: own allocations + all idle
  double utilization = NAN;
  double efficiency = NAN;
  double unmeasured_gpu_hours = 0;
  double unpriced_gpu_hours = 0;
  double activity_gpu_hours = 0;
  double billing_units = NAN;
  bool estimated = false;
  bool oversubscribed = false;
  bool prices_known = true;  // false: some capacity had no price; money covers the rest
  // GPU-equivalent hours requested that no unit could hold (AttributionSummary): in no row and no
  // money. NaN where not known (a report read from a ledger, which keeps no requests).
  double unplaced_request_gpu_hours = NAN;
};

struct Report {
  Window window;
  // The part of the window the input has data for (start == end: none); unset when not known.
  // Time outside it costs nothing: no evidence, no bill.
  std::optional<Window> covered;
  // GPU-hours of capacity (held and idle) by the source of their price ("catalog", "spot",
  // "rate_card", "unknown", ...), in a fixed order, sources with hours only. Not known (false)
  // for a report read from ledger roll-ups, which keep no price source.
  std::vector<std::pair<std::string, double>> price_sources;
  bool price_sources_known = true;
  // Hours of capacity (held and idle) by unit kind ("gpu": GPU-hours, "neuron_device":
  // accelerator-hours of AWS Neuron devices), kinds with hours only. Rows add both kinds into
  // gpu_hours; --by unit_kind keeps them apart.
  std::vector<std::pair<std::string, double>> unit_kind_hours;
  Duration step{0};          // bucket length; the window length when accumulated
  Duration engine_step{0};   // the attribution step (JSON step_s)
  bool accumulated = false;  // one bucket for the whole window; rows carry no start/end
  bool calendar_months = false;  // buckets are UTC calendar months (step: 0, rows' start/end)
  std::vector<Dimension> by;
  IdleOptions idle;
  // Sorted: bucket, allocated desc, values; idle rows last in their bucket, by values.
  std::vector<ReportRow> rows;
  ReportTotals totals;
};

}  // namespace gpucost
