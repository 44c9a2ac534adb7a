// The metric columns of a report, in output order, with the one snake_case name each carries in
// the table, CSV and JSON (and later the ledger and metric labels). Internal to the report
// module; constant data.
//
//   for (const MetricColumn& c : kMetricColumns) { c.name; row.*c.row; totals.*c.total; }
#pragma once

#include <cmath>
#include <string_view>

#include "report/report.h"

namespace gpucost {

enum class ColumnKind : uint8_t { kHours, kUsd, kRatio };

struct MetricColumn {
  std::string_view name;
  ColumnKind kind;
  double ReportRow::*row;
  double ReportTotals::*total;
  bool in_table;  // activity hours stay in the machine formats only
  // Printed only when the totals have a value (Slurm billing units): reports without it keep
  // their columns.
  bool only_when_present = false;
};

// Whether column `c` appears in a report with these totals.
inline bool ColumnShown(const MetricColumn& c, const ReportTotals& totals) {
  return !c.only_when_present || !std::isnan(totals.*c.total);
}

inline constexpr MetricColumn kMetricColumns[] = {
    {"gpu_hours", ColumnKind::kHours, &ReportRow::gpu_hours, &ReportTotals::gpu_hours, true},
    {"allocated_usd", ColumnKind::kUsd, &ReportRow::allocated_usd, &ReportTotals::allocated_usd,
     true},
    {"effective_usd", ColumnKind::kUsd, &ReportRow::effective_usd, &ReportTotals::effective_usd,
     true},
    {"waste_usd", ColumnKind::kUsd, &ReportRow::waste_usd, &ReportTotals::waste_usd, true},
    {"idle_usd", ColumnKind::kUsd, &ReportRow::idle_usd, &ReportTotals::idle_usd, true},
    {"utilization", ColumnKind::kRatio, &ReportRow::utilization, &ReportTotals::utilization, true},
    {"efficiency", ColumnKind::kRatio, &ReportRow::efficiency, &ReportTotals::efficiency, true},
    {"unmeasured_gpu_hours", ColumnKind::kHours, &ReportRow::unmeasured_gpu_hours,
     &ReportTotals::unmeasured_gpu_hours, true},
    {"unpriced_gpu_hours", ColumnKind::kHours, &ReportRow::unpriced_gpu_hours,
     &ReportTotals::unpriced_gpu_hours, true},
    {"activity_gpu_hours", ColumnKind::kHours, &ReportRow::activity_gpu_hours,
     &ReportTotals::activity_gpu_hours, false},
    {"billing_units", ColumnKind::kHours, &ReportRow::billing_units, &ReportTotals::billing_units,
     true, true},
};

inline constexpr std::string_view kStartColumn = "start";
inline constexpr std::string_view kEndColumn = "end";
inline constexpr std::string_view kEstimatedColumn = "estimated";
inline constexpr std::string_view kOversubscribedColumn = "oversubscribed";
inline constexpr std::string_view kIdleColumn = "idle";  // rows only, see IdleColumnShown
inline constexpr std::string_view kCostColumn = "cost_usd";             // totals only
inline constexpr std::string_view kPricesKnownColumn = "prices_known";  // totals only

// Whether rows say in an `idle` column that they are idle rows: when some dimension describes
// capacity, for then an idle row may carry values (a cluster, a node) rather than __idle__
// alone. Decided by the dimensions, not the rows, so that a grouping keeps its columns.
inline bool IdleColumnShown(const Report& report) {
  for (const Dimension& d : report.by) {
    if (DescribesCapacity(d)) return true;
  }
  return false;
}

}  // namespace gpucost
