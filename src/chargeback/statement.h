// Statement: one team's chargeback for a period — its charge lines (GPU model x capacity type x
// rate), totals, workloads and daily series — and StatementSet, the statements of one run with
// the period and settings that shaped them. Plain value types; a NaN rate means unknown.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "chargeback/charge_totals.h"
#include "chargeback/period.h"
#include "chargeback/settings.h"

namespace gpucost::chargeback {

struct StatementLine {
  std::string gpu_model;
  std::string capacity_type;
  // The price of a GPU-hour on this line, to the micro-dollar (what sets lines apart); NaN:
  // unknown. The line's money is the exact sum of its charges, not hours x this rate.
  double rate_usd_per_gpu_hour = NAN;
  ChargeTotals totals;

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
  std::vector<WorkloadUsage> workloads;  // by priced money, then GPU-hours, descending; then name
  std::vector<DayUsage> days;            // one per UTC day of the period
};

struct StatementSet {
  Period period;
  // The part of the period the input has data for (start == end: none); unset when not known.
  // Time outside it is charged nothing: a statement says so rather than look complete.
  std::optional<Window> covered;
  ChargebackSettings settings;
  std::vector<Statement> statements;  // by team name
};

}  // namespace gpucost::chargeback
