// Hand-made charges and statement sets for the chargeback tests: no engine involved.
#pragma once

#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "chargeback/period.h"
#include "chargeback/statement_builder.h"

namespace gpucost::chargeback {

// October 2026, UTC.
inline Period October() {
  auto p = ParseMonth("2026-10");
  return p.ok() ? *p : Period{};
}

inline Instant Day(int day, int hour = 0) {
  return October().window.start + std::chrono::hours(24 * (day - 1) + hour);
}

inline ChargeLabels Labels(std::string team, std::string workload, std::string gpu_model,
                           std::string capacity_type) {
  ChargeLabels l;
  l.team = std::move(team);
  l.namespace_name = l.team;
  l.workload = std::move(workload);
  l.workload_kind = "Job";
  l.gpu_model = std::move(gpu_model);
  l.capacity_type = std::move(capacity_type);
  return l;
}

// `hours` GPU-hours at `rate` $/GPU-hour (NaN: unknown) used at `u` (NaN: unmeasured).
inline ChargeAmounts Amounts(Instant start, double hours, double rate, double u) {
  ChargeAmounts a;
  a.start = start;
  a.gpu_hours = hours;
  a.allocated_usd = std::isfinite(rate) ? hours * rate : NAN;
  a.used_gpu_hours = std::isfinite(u) ? hours * u : NAN;
  a.effective_usd = std::isfinite(rate) && std::isfinite(u) ? a.allocated_usd * u : NAN;
  return a;
}

}  // namespace gpucost::chargeback
