// What `gpucost alerts` produces: firing alerts (a rule of the catalogue with its labels,
// rendered summary and description, start and value) and the budget table. Plain value types.
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "alerts/budgets.h"
#include "core/time.h"

namespace gpucost::alerts {

struct Alert {
  std::string alertname;  // the rule's id
  std::string severity;
  // team, namespace, workload, workload_kind, pod, container, node, gpu_model, capacity_type,
  // cluster: those that apply; never an empty value.
  std::map<std::string, std::string> labels;
  std::string summary;
  std::string description;
  Instant starts_at;  // when the condition had held long enough to fire
  double value = NAN;  // the rule's value: a ratio, USD, seconds; NaN when it has none
};

struct TeamBudget {
  std::string team;
  std::optional<double> budget_usd;   // nullopt: no budget for the team (and no default)
  double month_to_date_usd = 0;       // the priced part
  double unpriced_gpu_hours = 0;      // month-to-date or run-rate hours with no price
  double month_unpriced_gpu_hours = 0;  // of those, month-to-date
  double priced_gpu_hours = 0;        // month-to-date and run-rate hours with a price
  BudgetForecast forecast;            // over the priced part
  // Unknown prices make money unknown: with no priced hours at all the amounts are unknown; with
  // some, what is shown is a floor (the unpriced hours cost something more).
  bool amounts_known() const { return unpriced_gpu_hours == 0 || priced_gpu_hours > 0; }
  bool exact() const { return unpriced_gpu_hours == 0; }
  // The month-to-date amount alone: exact when the month's hours are all priced (the run rate's
  // may reach into a month that was not).
  bool month_exact() const { return month_unpriced_gpu_hours == 0; }
  // Forecast above budget (a floor above it is over as well).
  bool over() const {
    return budget_usd && priced_gpu_hours > 0 && std::isfinite(forecast.forecast_usd) &&
           forecast.forecast_usd > *budget_usd;
  }
};

struct BudgetTable {
  Window month;
  Instant as_of;
  std::vector<TeamBudget> teams;  // sorted by team
};

struct AlertReport {
  Window window;  // the data evaluated: [start, as_of)
  Instant as_of;  // the rules are evaluated at this instant (the newest data)
  std::vector<Alert> alerts;  // by severity, alertname, then labels
  std::optional<BudgetTable> budgets;
};

}  // namespace gpucost::alerts
