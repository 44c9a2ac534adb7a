#include "chargeback/settings.h"

#include <cmath>
#include <string_view>

#include "core/strings.h"

namespace gpucost::chargeback {
namespace {

Status CheckRatio(std::string_view name, double v) {
  if (!std::isfinite(v) || v < 0 || v > 1) {
    return Status::InvalidArgument(
        StrCat(name, " must be a fraction in [0, 1] (or a percent), got ", v));
  }
  return Status::Ok();
}

}  // namespace

Status ChargebackSettings::Validate() const {
  if (Status s = CheckRatio("--idle-threshold", idle_threshold); !s.ok()) return s;
  if (Status s = CheckRatio("--efficiency-target", efficiency_target); !s.ok()) return s;
  if (Status s = CheckRatio("--spot-ratio-target", spot_ratio_target); !s.ok()) return s;
  if (top < 0) return Status::InvalidArgument(StrCat("--top must be 0 or more, got ", top));
  return Status::Ok();
}

}  // namespace gpucost::chargeback
