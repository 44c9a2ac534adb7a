// Rounding a statement for print: money to cents and hours to a fixed number of decimals with
// the largest-remainder method (core/money.h), so that printed lines add up exactly to the printed
// total, the top consumers' amounts are the same cents every workload adds up to, and effective +
// waste + unmeasured split the same total. Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "chargeback/statement.h"

namespace gpucost::chargeback {

// Decimals hours print with: 0 from 100 hours up, 1 from 10, else 2.
int HoursDecimals(double total_hours);

struct RoundedStatement {
  int hours_decimals = 0;
  int64_t total_hours = 0;                         // units of 10^-hours_decimals
  std::vector<int64_t> line_hours;                 // add up to total_hours
  int64_t total_cents = 0;                         // the priced part
  std::vector<std::optional<int64_t>> line_cents;  // add up to total_cents; nullopt: unknown
  std::optional<int64_t> effective_cents;          // effective + waste + unmeasured = total
  std::optional<int64_t> waste_cents;
  int64_t unmeasured_cents = 0;
  int64_t idle_hours = 0;
  int64_t idle_cents = 0;
  int64_t unmeasured_hours = 0;
  std::vector<int64_t> workload_hours;                 // add up to total_hours
  std::vector<std::optional<int64_t>> workload_cents;  // add up to total_cents; nullopt: unknown
};

RoundedStatement RoundStatement(const Statement& statement);

}  // namespace gpucost::chargeback
