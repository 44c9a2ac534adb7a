// The settings of a chargeback statement (docs/chargeback.md "Settings"): the utilization under
// which held GPU-hours count as idle, the efficiency and spot-ratio targets, and how many top
// consumers to list. Plain value type.
#pragma once

#include "core/status.h"

namespace gpucost::chargeback {

struct ChargebackSettings {
  double idle_threshold = 0.05;     // a held GPU-hour with utilization under this is idle
  double efficiency_target = 0.80;  // effective / allocated should exceed this
  double spot_ratio_target = 0.70;  // spot GPU-hours / all GPU-hours should exceed this
  int top = 5;                      // top consumers (workloads) listed

  // InvalidArgument naming the setting: ratios must lie in [0, 1], top must be >= 0.
  [[nodiscard]] Status Validate() const;
};

}  // namespace gpucost::chargeback
