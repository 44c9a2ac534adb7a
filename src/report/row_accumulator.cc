#include "report/row_accumulator.h"

#include <algorithm>
#include <cmath>

namespace gpucost {

void RowAccumulator::AddHolder(const CostRecord& r, double billing_per_gpu_hour) {
  (r.price_known ? priced_hours_ : unpriced_hours_).Add(r.gpu_hours);
  if (std::isfinite(billing_per_gpu_hour)) {
    billing_.Add(r.gpu_hours * billing_per_gpu_hour);
    has_billing_ = true;
  }
  unmeasured_hours_.Add(r.unmeasured_gpu_hours);
  estimated_ = estimated_ || r.estimated;
  oversubscribed_ = oversubscribed_ || r.oversubscribed;
  const double measured_hours = std::max(0.0, r.gpu_hours - r.unmeasured_gpu_hours);
  const bool measured = measured_hours > 0 && std::isfinite(r.activity_gpu_hours);
  if (measured) {
    measured_hours_.Add(measured_hours);
    activity_hours_.Add(r.activity_gpu_hours);
    used_hours_.Add(std::min(measured_hours, r.activity_gpu_hours));
  }
  if (!r.price_known || !std::isfinite(r.allocated_usd)) return;
  allocated_.Add(r.allocated_usd);
  if (measured && std::isfinite(r.effective_usd)) {
    // effective covers the record's measured hours; scale allocation to the same part.
    measured_allocated_.Add(r.allocated_usd * (measured_hours / r.gpu_hours));
    effective_.Add(r.effective_usd);
    has_effective_ = true;
  }
}

void RowAccumulator::AddIdle(const CostRecord& r) {
  if (r.price_known && std::isfinite(r.allocated_usd)) {
    priced_hours_.Add(r.gpu_hours);
    idle_.Add(r.allocated_usd);
    has_idle_money_ = true;
  } else {
    unpriced_hours_.Add(r.gpu_hours);
  }
  oversubscribed_ = oversubscribed_ || r.oversubscribed;
}

void RowAccumulator::ReceiveIdle(double usd) {
  idle_.Add(usd);
  received_idle_ = true;
}

void RowAccumulator::ReleaseIdle() {
  idle_ = CompensatedSum();
  priced_hours_ = CompensatedSum();
  has_idle_money_ = false;
}

void RowAccumulator::Merge(const RowAccumulator& o) {
  priced_hours_.Add(o.priced_hours_);
  unpriced_hours_.Add(o.unpriced_hours_);
  unmeasured_hours_.Add(o.unmeasured_hours_);
  measured_hours_.Add(o.measured_hours_);
  used_hours_.Add(o.used_hours_);
  activity_hours_.Add(o.activity_hours_);
  allocated_.Add(o.allocated_);
  measured_allocated_.Add(o.measured_allocated_);
  effective_.Add(o.effective_);
  idle_.Add(o.idle_);
  billing_.Add(o.billing_);
  has_billing_ = has_billing_ || o.has_billing_;
  has_effective_ = has_effective_ || o.has_effective_;
  has_idle_money_ = has_idle_money_ || o.has_idle_money_;
  received_idle_ = received_idle_ || o.received_idle_;
  estimated_ = estimated_ || o.estimated_;
  oversubscribed_ = oversubscribed_ || o.oversubscribed_;
}

RowSums RowAccumulator::Sums() const {
  RowSums s;
  s.priced_hours = priced_hours_.value();
  s.unpriced_hours = unpriced_hours_.value();
  s.unmeasured_hours = unmeasured_hours_.value();
  s.measured_hours = measured_hours_.value();
  s.used_hours = used_hours_.value();
  s.activity_hours = activity_hours_.value();
  s.allocated_usd = allocated_.value();
  s.measured_allocated_usd = measured_allocated_.value();
  s.effective_usd = effective_.value();
  s.idle_usd = idle_.value();
  s.has_effective = has_effective_;
  s.has_idle_money = has_idle_money_;
  s.estimated = estimated_;
  s.oversubscribed = oversubscribed_;
  return s;
}

void RowAccumulator::AddSums(const RowSums& s, double billing_per_gpu_hour) {
  priced_hours_.Add(s.priced_hours);
  unpriced_hours_.Add(s.unpriced_hours);
  unmeasured_hours_.Add(s.unmeasured_hours);
  measured_hours_.Add(s.measured_hours);
  used_hours_.Add(s.used_hours);
  activity_hours_.Add(s.activity_hours);
  allocated_.Add(s.allocated_usd);
  measured_allocated_.Add(s.measured_allocated_usd);
  effective_.Add(s.effective_usd);
  idle_.Add(s.idle_usd);
  if (std::isfinite(billing_per_gpu_hour)) {
    billing_.Add((s.priced_hours + s.unpriced_hours) * billing_per_gpu_hour);
    has_billing_ = true;
  }
  has_effective_ = has_effective_ || s.has_effective;
  has_idle_money_ = has_idle_money_ || s.has_idle_money;
  estimated_ = estimated_ || s.estimated;
  oversubscribed_ = oversubscribed_ || s.oversubscribed;
}

void RowAccumulator::Fill(bool is_idle, ReportRow& row) const {
  row.is_idle = is_idle;
  row.gpu_hours = gpu_hours();
  row.unmeasured_gpu_hours = unmeasured_hours_.value();
  row.unpriced_gpu_hours = unpriced_hours_.value();
  row.activity_gpu_hours = activity_hours_.value();
  row.billing_units = has_billing_ && !is_idle ? billing_.value() : NAN;
  row.estimated = estimated_;
  row.oversubscribed = oversubscribed_;
  row.effective_usd = row.waste_usd = row.utilization = row.efficiency = NAN;
  if (is_idle) {
    // Unheld capacity: no allocation, nobody's effective use; all of its cost is waste. Where
    // its price is unknown, so is the row's money: a total of unpriced rows must not read $0.
    row.allocated_usd = has_idle_money_ ? 0 : NAN;
    row.idle_usd = has_idle_money_ ? idle_.value() : NAN;
    row.waste_usd = row.idle_usd;
    return;
  }
  const bool any_money = priced_hours_.value() > 0 || received_idle_ || has_effective_;
  const double received = received_idle_ ? idle_.value() : 0.0;
  row.allocated_usd = any_money ? allocated_.value() + received : NAN;
  row.idle_usd = any_money ? received : NAN;
  if (has_effective_) {
    row.effective_usd = effective_.value();
    row.waste_usd = measured_allocated_.value() - row.effective_usd + received;
    const double base = measured_allocated_.value();
    if (base > 0) row.utilization = row.effective_usd / base;
    if (row.allocated_usd > 0) row.efficiency = row.effective_usd / row.allocated_usd;
  }
  if (std::isnan(row.utilization) && measured_hours_.value() > 0) {
    // No priced measured part (unknown prices): the GPU-hour-weighted utilization, equal to
    // the money-weighted one whenever a row has a single price.
    row.utilization = used_hours_.value() / measured_hours_.value();
  }
}

}  // namespace gpucost
