// Team budgets: the monthly GPU budget per team read from a YAML file (`--budgets FILE`,
// docs/alerts.md "Budgets"), and the month-to-date cost and forecast to the month's end that the
// budget table and the GpuBudgetForecastOverrun rule use. Plain value types and pure functions.
//
//   budgets:            # USD per calendar month (UTC), per team
//     ml-research: 5000
//     search: 1200
//   default: 1000       # optional: every other team with GPU usage
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/money.h"  // FormatUsd, for the alert texts
#include "core/result.h"
#include "core/time.h"

namespace gpucost::alerts {

struct BudgetFile {
  std::map<std::string, double> budgets_usd;  // team -> USD per month
  std::optional<double> default_usd;         // for teams not listed
  // The team's budget: its own, else the default; nullopt when neither.
  std::optional<double> For(std::string_view team) const;
};

// Parses the file's text; errors name `source`, the line and the field
// ("budgets.yaml:3: budgets.ml-research: not an amount in USD: \"lots\"").
Result<BudgetFile> ParseBudgets(std::string_view text, std::string_view source);
// Reads and parses `path`.
Result<BudgetFile> LoadBudgets(const std::string& path);

// The calendar month (UTC) holding `t`: [first instant, first instant of the next month).
Window MonthOf(Instant t);
// "2026-10".
std::string MonthName(Instant month_start);

// What the forecast is computed from (see Forecast).
struct ForecastInput {
  Window month;              // the calendar month of `as_of`
  Instant as_of;             // the newest data: the forecast is made at this instant
  Instant data_start;        // where the attributed data begins
  double month_to_date_usd = 0;  // allocated cost in [max(month.start, data_start), as_of)
  double recent_usd = 0;         // allocated cost in the run-rate window (below)
  Duration lookback{0};          // --forecast-lookback
};

struct BudgetForecast {
  Window rate_window;         // [max(data_start, as_of - lookback), as_of)
  double rate_days = 0;       // its length in days
  double remaining_days = 0;  // (month.end - as_of) in days
  double run_rate_usd_per_day = NAN;  // recent_usd / rate_days; NaN when rate_days == 0
  double forecast_usd = NAN;  // month_to_date + run_rate x remaining_days
  bool partial_month = false;  // the data begins after the month does: month-to-date is a floor
};

// forecast = month_to_date + (recent / rate_days) x remaining_days, with
// rate_days = (as_of - max(data_start, as_of - lookback)) / 1 day and
// remaining_days = (month.end - as_of) / 1 day. Callers give `recent_usd` over rate_window.
BudgetForecast Forecast(const ForecastInput& in);
// The run-rate window Forecast will use, so that a sink can sum `recent_usd` over it.
Window RateWindow(Instant as_of, Instant data_start, Duration lookback);

}  // namespace gpucost::alerts
