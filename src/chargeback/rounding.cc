#include "chargeback/rounding.h"

#include <algorithm>
#include <cmath>

#include "core/money.h"

namespace gpucost::chargeback {
namespace {

double Scale(int decimals) { return std::pow(10.0, decimals); }

int64_t RoundUnits(double v, int decimals) { return std::llround(v * Scale(decimals)); }

}  // namespace

int HoursDecimals(double total_hours) {
  // Sums of step lengths fall a hair short of round numbers (99.99999999999999).
  const double hours = total_hours + 1e-9;
  if (hours >= 100) return 0;
  if (hours >= 10) return 1;
  return 2;
}

RoundedStatement RoundStatement(const Statement& s) {
  RoundedStatement r;
  const ChargeTotals& t = s.totals;
  r.hours_decimals = HoursDecimals(t.gpu_hours);
  const int hd = r.hours_decimals;

  std::vector<double> hours;
  std::vector<double> money;  // priced lines only
  for (const StatementLine& line : s.lines) {
    hours.push_back(line.totals.gpu_hours);
    if (line.priced()) money.push_back(line.totals.allocated_usd);
  }
  r.line_hours = RoundPreservingTotal(hours, hd, &r.total_hours);
  const std::vector<int64_t> cents = RoundPreservingTotal(money, 2, &r.total_cents);
  size_t next = 0;
  for (const StatementLine& line : s.lines) {
    r.line_cents.push_back(line.priced() ? std::optional<int64_t>(cents[next++]) : std::nullopt);
  }

  if (std::isfinite(t.waste_usd())) {
    const double parts[] = {t.effective_usd, t.waste_usd(), t.unmeasured_allocated_usd()};
    const std::vector<int64_t> split = RoundToTotal(parts, 2, r.total_cents);
    r.effective_cents = split[0];
    r.waste_cents = split[1];
    r.unmeasured_cents = split[2];
  } else {
    r.unmeasured_cents = r.total_cents;
  }
  r.idle_hours = RoundUnits(t.idle_gpu_hours, hd);
  r.idle_cents = RoundUnits(t.idle_usd, 2);
  r.unmeasured_hours = RoundUnits(t.unmeasured_gpu_hours(), hd);

  std::vector<double> wl_hours;
  std::vector<double> wl_money;  // workloads with priced hours only
  for (const WorkloadUsage& w : s.workloads) {
    wl_hours.push_back(w.totals.gpu_hours);
    if (w.totals.any_priced()) wl_money.push_back(w.totals.allocated_usd);
  }
  r.workload_hours = RoundToTotal(wl_hours, hd, r.total_hours);
  const std::vector<int64_t> wl_cents = RoundToTotal(wl_money, 2, r.total_cents);
  next = 0;
  for (const WorkloadUsage& w : s.workloads) {
    r.workload_cents.push_back(w.totals.any_priced() ? std::optional<int64_t>(wl_cents[next++])
                                                     : std::nullopt);
  }
  return r;
}

}  // namespace gpucost::chargeback
