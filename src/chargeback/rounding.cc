#include "chargeback/rounding.h"

#include <cmath>

#include "core/money.h"

namespace gpucost::chargeback {
namespace {

constexpr int kRateDecimals = 6;

// Hours x rate in units of 10^-(d + 6) dollars can pass 2^63 (a million hours to 10^-8 at
// $100): exact in 128 bits, a GCC and Clang extension.
__extension__ typedef __int128 Wide;  // rates are kept to the micro-dollar (StatementLine)

Wide Pow10(int n) {
  Wide p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// `units` x 10^-shift, half away from zero.
int64_t Shift(Wide units, int shift) {
  const Wide scale = Pow10(shift);
  Wide whole = units / scale;
  const Wide rest = units % scale;
  if (2 * rest >= scale) ++whole;
  if (2 * rest <= -scale) --whole;
  return static_cast<int64_t>(whole);
}

}  // namespace

int HoursDecimals(double total_hours) {
  // Sums of step lengths fall a hair short of round numbers (99.99999999999999).
  const double hours = total_hours + 1e-9;
  if (hours >= 100) return 0;
  if (hours >= 10) return 1;
  return 2;
}

int LineHoursDecimals(double hours, double rate, int64_t cents, int at_least) {
  if (!std::isfinite(rate) || !std::isfinite(hours)) return at_least;
  const Wide rate_units = RoundUnits(rate, kRateDecimals);
  for (int d = at_least; d <= 8; ++d) {
    const Wide product = Wide{RoundUnits(hours, d)} * rate_units;  // 10^-(d + 6) USD
    if (Shift(product, d + kRateDecimals - 2) == cents) return d;
  }
  return at_least;
}

RoundedStatement RoundStatement(const Statement& s) {
  RoundedStatement r;
  const ChargeTotals& t = s.totals;
  r.hours_decimals = HoursDecimals(t.gpu_hours);
  const int hd = r.hours_decimals;
  r.total_hours = RoundUnits(t.gpu_hours, hd);
  r.total_cents = RoundUnits(t.allocated_usd + s.shared_idle_usd, 2);
  r.shared_idle_cents = RoundUnits(s.shared_idle_usd, 2);
  int64_t lines_cents = 0;
  for (const StatementLine& line : s.lines) {
    std::optional<int64_t> cents;
    if (line.priced()) {
      cents = RoundUnits(line.totals.allocated_usd, 2);
      lines_cents = AddUnits(lines_cents, *cents);
    }
    const int d =
        cents ? LineHoursDecimals(line.totals.gpu_hours, line.rate_usd_per_gpu_hour, *cents, hd)
              : hd;
    r.line_hours.push_back(RoundUnits(line.totals.gpu_hours, d));
    r.line_hours_decimals.push_back(d);
    r.line_cents.push_back(cents);
  }
  if (s.total_known()) r.rounding_cents = r.total_cents - lines_cents - r.shared_idle_cents;

  if (std::isfinite(t.waste_usd())) {
    r.effective_cents = RoundUnits(t.effective_usd, 2);
    r.waste_cents = RoundUnits(t.waste_usd(), 2);
  }
  r.unmeasured_cents = RoundUnits(t.unmeasured_allocated_usd(), 2);
  r.idle_hours = RoundUnits(t.idle_gpu_hours, hd);
  r.idle_cents = RoundUnits(t.idle_usd, 2);
  r.unmeasured_hours = RoundUnits(t.unmeasured_gpu_hours(), hd);

  for (const WorkloadUsage& w : s.workloads) {
    r.workload_hours.push_back(RoundUnits(w.totals.gpu_hours, hd));
    r.workload_cents.push_back(w.totals.any_priced()
                                   ? std::optional<int64_t>(RoundUnits(w.totals.allocated_usd, 2))
                                   : std::nullopt);
  }
  return r;
}

}  // namespace gpucost::chargeback
