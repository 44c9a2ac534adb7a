// Statement: one team's chargeback for a period — its charge lines (GPU model x capacity type x
// rate), totals, workloads and daily series — and StatementSet, the statements of one run with
// the period and settings that shaped them. Plain value types; a NaN rate means unknown.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chargeback/charge_totals.h"
#include "chargeback/period.h"
#include "chargeback/settings.h"
#include "model/capacity.h"

namespace gpucost::chargeback {

struct StatementLine {
  std::string gpu_model;
  std::string capacity_type;
  // The price of a GPU-hour on this line, to the micro-dollar (what sets lines apart); NaN:
  // unknown. The line's money is the exact sum of its charges, not hours x this rate.
  double rate_usd_per_gpu_hour = NAN;
  ChargeTotals totals;
  // GPU-hours, or accelerator-hours (an AWS Neuron device for one hour; rate per device-hour).
  UnitKind unit_kind = UnitKind::kGpu;

  bool priced() const { return std::isfinite(rate_usd_per_gpu_hour); }
};

struct WorkloadUsage {
  std::string namespace_name;
  std::string workload;
  std::string workload_kind;
  ChargeTotals totals;
};

struct DayUsage {
  Instant start;  // midnight UTC
  ChargeTotals totals;
};

struct Statement {
  std::string team;
  std::vector<StatementLine> lines;      // by GPU model, capacity type, then rate (unknown last)
  ChargeTotals totals;                   // the sum of the lines
  // The cluster's idle cost shared to this team (`--idle proportional|even`, the report's
  // policies); 0 when idle is kept apart. Charged on top of the lines.
  double shared_idle_usd = 0;
  std::vector<WorkloadUsage> workloads;  // by priced money, then GPU-hours, descending; then name
  std::vector<DayUsage> days;            // one per UTC day of the period

  // The total has a known part where some of the team's hours have a price or it is charged
  // shared idle (then a team none of whose own hours is priced owes "$X + unknown").
  bool total_known() const { return totals.any_priced() || shared_idle_usd != 0; }
};

// One part of the cluster's cost: its priced money, and whether some or all of its hours had no
// price (then the money covers the priced hours only, and says so).
struct ClusterPart {
  double usd = 0;              // the priced hours' money
  bool some_unpriced = false;  // some of its hours have no price
  bool any_priced = false;     // some of its hours have a price
  // The money to show: unset when it has hours and none of them is priced (unknown, never $0).
  std::optional<double> Known() const {
    if (some_unpriced && !any_priced) return std::nullopt;
    return usd;
  }
};

// What the whole cluster cost over the period's covered time, and where it went, so that the
// statements of every team, with the idle no team was charged, are seen to make up the cluster's
// cost: stated teams + other teams + idle not charged = cost (each figure known prices only).
struct ClusterSummary {
  ClusterPart stated_teams;   // the statements' totals (their shared idle included)
  ClusterPart other_teams;    // teams with no statement here (--team)
  ClusterPart idle;           // idle no team was charged (all of it with --idle separate)
  ClusterPart cost;           // the GPUs' cost: every priced GPU-hour of the period
  double idle_gpu_hours = 0;  // unheld GPU-hours
  double unpriced_gpu_hours = 0;
  std::string idle_policy = "separate";  // how idle was charged, and within what
  std::string idle_scope = "cluster";
  std::vector<std::pair<std::string, double>> price_sources;  // GPU-hours by price source
  // Hours of the capacity by unit kind (the report's unit_kind_hours: "gpu", "neuron_device").
  std::vector<std::pair<std::string, double>> unit_kind_hours;
};

struct StatementSet {
  Period period;
  // The part of the period the input has data for (start == end: none); unset when not known.
  // Time outside it is charged nothing: a statement says so rather than look complete.
  std::optional<Window> covered;
  ChargebackSettings settings;
  std::vector<Statement> statements;  // by team name
  std::optional<ClusterSummary> cluster;
};

}  // namespace gpucost::chargeback
