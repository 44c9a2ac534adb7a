// Rounding a statement for print, by the rule every output shares (RoundUnits in core/money.h,
// docs/chargeback.md "Rounding"): each amount and each number of hours is its own value rounded
// once, so a team's total, a line, a workload or the effective cost prints the same cents as in
// `gpucost report` and in every other format. Where the printed lines do not add up to the
// printed total, the difference is a rounding line. A line's hours print with as many decimals
// as it takes (at least as many as the total's) for hours x rate to give its amount. Stateless and
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "chargeback/statement.h"

namespace gpucost::chargeback {

// Decimals a statement's hours print with: 0 from 100 hours up, 1 from 10, else 2.
int HoursDecimals(double total_hours);

// The fewest decimals, from `at_least` up to 8, of `hours` for which the hours so printed times
// `rate` (as FormatRate prints it) round to `cents`; `at_least` when none do.
int LineHoursDecimals(double hours, double rate_usd_per_gpu_hour, int64_t cents, int at_least);

struct RoundedStatement {
  int hours_decimals = 0;                // of the total, idle, unmeasured and workload hours
  int64_t total_hours = 0;               // units of 10^-hours_decimals
  std::vector<int64_t> line_hours;       // units of 10^-line_hours_decimals[i]
  std::vector<int> line_hours_decimals;  // see LineHoursDecimals
  int64_t total_cents = 0;               // the priced part, with the shared idle
  std::vector<std::optional<int64_t>> line_cents;  // nullopt: unknown
  int64_t shared_idle_cents = 0;                   // Statement::shared_idle_usd
  int64_t rounding_cents = 0;  // total_cents - the priced lines' cents - shared_idle_cents
  std::optional<int64_t> effective_cents;
  std::optional<int64_t> waste_cents;
  int64_t unmeasured_cents = 0;
  int64_t idle_hours = 0;
  int64_t idle_cents = 0;
  int64_t unmeasured_hours = 0;
  std::vector<int64_t> workload_hours;
  std::vector<std::optional<int64_t>> workload_cents;  // nullopt: unknown
};

RoundedStatement RoundStatement(const Statement& statement);

}  // namespace gpucost::chargeback
