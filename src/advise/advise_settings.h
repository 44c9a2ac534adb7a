// The settings of `gpucost recommend` and `gpucost whatif`: what counts as idle, how much headroom
// a right-sized workload keeps, and the spot and commitment economics. Every threshold here is a
// flag (docs/recommend.md says which). Plain value type.
#pragma once

#include "core/status.h"

namespace gpucost::advise {

struct AdviseSettings {
  // A step whose utilization (activity / share) is under this is idle.
  double idle_threshold = 0.05;
  // Scale-to-zero: a notebook idle for this many hours in a row, or another workload idle for
  // this many hours in a row, is worth scaling down.
  double notebook_idle_hours = 1;
  double idle_hours = 24;
  // Right-sizing keeps the workload's 99th-percentile activity under this share of what it is
  // given (time-slicing replicas, a smaller MIG profile, fewer GPUs).
  double target_utilization = 0.8;
  // Consolidation: whole-GPU workloads whose 95th-percentile utilization is under this.
  double consolidate_below = 0.5;
  // The most replicas a time-sliced or MPS GPU is given.
  int max_replicas = 8;
  // Spot: interruptions per hour, and the checkpoint interval (hours); an interruption loses half
  // of it, paid again at the spot rate.
  double spot_interruptions_per_hour = 0.02;
  double checkpoint_interval_hours = 1;
  // Spot discount off the on-demand price where the price book has no spot price; < 0: none
  // (spot savings are then unknown, never guessed).
  double spot_discount = -1;
  // Commitments (what-if): the discount of a 1-year commitment on the steady on-demand base.
  double commitment_discount = 0.31;
  // Recommendations saving less than this per month are not listed.
  double min_monthly_savings_usd = 1;
  // No recommendation from a window shorter than this (hours): monthly savings from a few minutes
  // of evidence would multiply them by thousands (a new ledger's first minutes).
  double min_window_hours = 1;
  // Hours in a month, for monthly figures.
  double hours_per_month = 730;

  // InvalidArgument naming the setting when a value is out of range.
  Status Validate() const;
  // Effective hourly cost of a spot GPU-hour at `spot_rate` (DESIGN of the spot recommendation):
  // rate + interruptions/h x (checkpoint interval / 2) x rate.
  double EffectiveSpotRate(double spot_rate) const {
    return spot_rate * (1 + spot_interruptions_per_hour * checkpoint_interval_hours / 2);
  }
};

}  // namespace gpucost::advise
