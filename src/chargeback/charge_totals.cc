#include "chargeback/charge_totals.h"

#include <algorithm>

namespace gpucost::chargeback {

double ChargeTotals::waste_usd() const {
  return measured_allocated_usd > 0 ? measured_allocated_usd - effective_usd : NAN;
}

double ChargeTotals::efficiency() const {
  if (measured_allocated_usd > 0 && allocated_usd > 0) return effective_usd / allocated_usd;
  if (measured_gpu_hours > 0) return used_gpu_hours / gpu_hours;
  return NAN;
}

double ChargeTotals::idle_ratio() const { return gpu_hours > 0 ? idle_gpu_hours / gpu_hours : NAN; }

double ChargeTotals::spot_ratio() const {
  return typed_gpu_hours > 0 ? spot_gpu_hours / typed_gpu_hours : NAN;
}

void ChargeSums::Add(const ChargeAmounts& c, bool idle, bool spot, bool typed) {
  sums_[kGpuHours].Add(c.gpu_hours);
  if (spot) sums_[kSpotGpuHours].Add(c.gpu_hours);
  if (typed) sums_[kTypedGpuHours].Add(c.gpu_hours);
  const bool priced = c.priced();
  if (priced) {
    sums_[kAllocatedUsd].Add(c.allocated_usd);
  } else {
    sums_[kUnpricedGpuHours].Add(c.gpu_hours);
  }
  if (!c.measured()) return;
  sums_[kMeasuredGpuHours].Add(c.gpu_hours);
  sums_[kUsedGpuHours].Add(std::min(c.gpu_hours, c.used_gpu_hours));
  if (priced && std::isfinite(c.effective_usd)) {
    sums_[kMeasuredAllocatedUsd].Add(c.allocated_usd);
    sums_[kEffectiveUsd].Add(c.effective_usd);
  }
  if (idle) {
    sums_[kIdleGpuHours].Add(c.gpu_hours);
    if (priced) {
      sums_[kIdleUsd].Add(c.allocated_usd);
    } else {
      sums_[kIdleUnpricedGpuHours].Add(c.gpu_hours);
    }
  }
}

void ChargeSums::Merge(const ChargeSums& o) {
  for (size_t f = 0; f < kFieldCount; ++f) sums_[f].Add(o.sums_[f]);
}

ChargeTotals ChargeSums::Totals() const {
  return {.gpu_hours = Get(kGpuHours),
          .unpriced_gpu_hours = Get(kUnpricedGpuHours),
          .allocated_usd = Get(kAllocatedUsd),
          .measured_gpu_hours = Get(kMeasuredGpuHours),
          .used_gpu_hours = Get(kUsedGpuHours),
          .measured_allocated_usd = Get(kMeasuredAllocatedUsd),
          .effective_usd = Get(kEffectiveUsd),
          .idle_gpu_hours = Get(kIdleGpuHours),
          .idle_usd = Get(kIdleUsd),
          .idle_unpriced_gpu_hours = Get(kIdleUnpricedGpuHours),
          .spot_gpu_hours = Get(kSpotGpuHours),
          .typed_gpu_hours = Get(kTypedGpuHours)};
}

}  // namespace gpucost::chargeback
