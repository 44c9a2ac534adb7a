#include "advise/advise_settings.h"

#include <cmath>
#include <string>

#include "core/strings.h"

namespace gpucost::advise {
namespace {

Status Range(const char* name, double v, double lo, double hi, bool hi_open = false) {
  if (!std::isfinite(v) || v < lo || (hi_open ? v >= hi : v > hi)) {
    return Status::InvalidArgument(StrCat(name, " = ", v, ": must be in [", lo, ", ", hi,
                                          hi_open ? ")" : "]"));
  }
  return Status::Ok();
}

}  // namespace

Status AdviseSettings::Validate() const {
  GPUCOST_RETURN_IF_ERROR(Range("idle threshold", idle_threshold, 0, 1));
  GPUCOST_RETURN_IF_ERROR(Range("notebook idle hours", notebook_idle_hours, 0, 1e6));
  GPUCOST_RETURN_IF_ERROR(Range("idle hours", idle_hours, 0, 1e6));
  GPUCOST_RETURN_IF_ERROR(Range("target utilization", target_utilization, 0.01, 1));
  GPUCOST_RETURN_IF_ERROR(Range("consolidate-below", consolidate_below, 0, 1));
  if (max_replicas < 2 || max_replicas > 64) {
    return Status::InvalidArgument(StrCat("max replicas = ", max_replicas, ": must be 2 to 64"));
  }
  GPUCOST_RETURN_IF_ERROR(Range("spot interruptions per hour", spot_interruptions_per_hour, 0, 100));
  GPUCOST_RETURN_IF_ERROR(Range("checkpoint interval hours", checkpoint_interval_hours, 0, 1e4));
  if (spot_discount >= 0) GPUCOST_RETURN_IF_ERROR(Range("spot discount", spot_discount, 0, 1, true));
  GPUCOST_RETURN_IF_ERROR(Range("commitment discount", commitment_discount, 0, 1, true));
  GPUCOST_RETURN_IF_ERROR(Range("minimum monthly savings", min_monthly_savings_usd, 0, 1e12));
  GPUCOST_RETURN_IF_ERROR(Range("hours per month", hours_per_month, 1, 1e4));
  GPUCOST_RETURN_IF_ERROR(Range("minimum window hours", min_window_hours, 0, 1e5));
  return Status::Ok();
}

}  // namespace gpucost::advise
