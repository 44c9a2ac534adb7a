// ChargeTotals: the sums a statement reports for any group of charges (a line, a workload, a
// day, a team) and the ratios derived from them; ChargeSums accumulates them drift-free
// (compensated sums). Value types, thread-compatible.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "chargeback/charge.h"
#include "core/money.h"

namespace gpucost::chargeback {

struct ChargeTotals {
  double gpu_hours = 0;                // GPU-equivalent hours held
  double unpriced_gpu_hours = 0;       // of which on capacity with no known price
  double allocated_usd = 0;            // money of the priced hours
  double measured_gpu_hours = 0;       // held hours with a usage sample
  double used_gpu_hours = 0;           // utilization x hours over the measured hours
  double measured_allocated_usd = 0;   // money of the priced, measured hours
  double effective_usd = 0;            // allocated x utilization over the priced, measured hours
  double idle_gpu_hours = 0;           // measured hours whose utilization was under the threshold
  double idle_usd = 0;                 // money of the priced idle hours
  double idle_unpriced_gpu_hours = 0;  // idle hours with no known price
  double spot_gpu_hours = 0;           // hours on spot capacity
  double typed_gpu_hours = 0;          // hours on capacity of a known type (spot or not)

  bool prices_known() const { return unpriced_gpu_hours <= 0; }
  bool any_priced() const { return gpu_hours > unpriced_gpu_hours; }
  double unmeasured_gpu_hours() const { return std::max(0.0, gpu_hours - measured_gpu_hours); }
  // Allocated money of hours without a usage sample (neither effective nor waste).
  double unmeasured_allocated_usd() const {
    return std::max(0.0, allocated_usd - measured_allocated_usd);
  }
  // measured allocated - effective; NaN when no priced hour was measured.
  double waste_usd() const;
  // effective / allocated (a lower bound when part is unmeasured); over GPU-hours
  // (used / held) when no priced hour was measured; NaN when nothing was measured.
  double efficiency() const;
  double idle_ratio() const;  // idle / held GPU-hours; NaN for no hours
  // spot / GPU-hours on capacity of a known type (hours of unknown type are in neither part, as
  // the alert rules count them); NaN for none.
  double spot_ratio() const;
};

class ChargeSums {
 public:
  // `idle`: the charge's utilization was under the threshold; `spot`: it ran on spot capacity;
  // `typed`: the capacity's type is known.
  void Add(const ChargeAmounts& c, bool idle, bool spot, bool typed);
  void Merge(const ChargeSums& o);
  ChargeTotals Totals() const;

 private:
  // One running sum per ChargeTotals field.
  enum Field : size_t {
    kGpuHours,
    kUnpricedGpuHours,
    kAllocatedUsd,
    kMeasuredGpuHours,
    kUsedGpuHours,
    kMeasuredAllocatedUsd,
    kEffectiveUsd,
    kIdleGpuHours,
    kIdleUsd,
    kIdleUnpricedGpuHours,
    kSpotGpuHours,
    kTypedGpuHours,
    kFieldCount
  };
  double Get(Field f) const { return sums_[f].value(); }
  std::array<CompensatedSum, kFieldCount> sums_;
};

}  // namespace gpucost::chargeback
