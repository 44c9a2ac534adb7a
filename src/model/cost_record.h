// CostRecord: the engine's output, one per (step, unit, holder) and one idle record per
// (step, unit) with unheld capacity (DESIGN.md "Money"). Sinks aggregate and store them; none
// recomputes attribution. Plain value type.
#pragma once

#include <cmath>
#include <cstdint>

#include "model/capacity.h"
#include "model/price.h"

namespace gpucost {

struct CostRecord {
  int64_t step = 0;                 // index of the step in the window
  UnitIndex unit = kNoIndex;
  HolderIndex holder = kNoIndex;    // kNoIndex: the idle record of the unit
  double gpu_hours = 0;             // share x hours held in the step (idle: unheld f x hours)
  double allocated_usd = 0;         // share x price x hours (idle: idle_usd)
  double effective_usd = NAN;       // allocated x u; NaN when unmeasured or idle
  double list_usd = NAN;            // allocated at the public list price (see PricePeriod)
  double unmeasured_gpu_hours = 0;  // gpu_hours that had no usage sample
  double activity_gpu_hours = NAN;  // a x hours: the holder's activity in GPU-equivalent hours
  bool estimated = false;           // u came from splitting a shared GPU's activity by shares
  bool oversubscribed = false;      // holders' shares on the unit exceeded f and were scaled
  bool price_known = true;          // false: money fields are NaN (unknown, never zero)
  PriceSource price_source = PriceSource::kUnknown;

  bool is_idle() const { return holder == kNoIndex; }
  // waste = allocated - effective; NaN when effective is unknown.
  double waste_usd() const { return allocated_usd - effective_usd; }
};

}  // namespace gpucost
