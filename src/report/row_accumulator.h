// RowAccumulator: drift-free running sums for one report cell (bucket x group x idle scope),
// fed record by record, merged across cells, and turned into a ReportRow's derived values
// (nulls, utilization, efficiency, waste). Internal to the report module. Thread-compatible.
//
//   void AddHolder(const CostRecord&);  void AddIdle(const CostRecord&);
//   void ReceiveIdle(double usd);       void ReleaseIdle();  void Merge(const RowAccumulator&);
//   void Fill(ReportRow& row) const;
#pragma once

#include <cmath>

#include "core/money.h"
#include "model/cost_record.h"
#include "report/report.h"

namespace gpucost {

class RowAccumulator {
 public:
  // A holder's record: hours, own allocation, measured part, flags.
  // `billing_per_gpu_hour` is the holder's Slurm billing rate (NaN: none).
  void AddHolder(const CostRecord& r, double billing_per_gpu_hour = NAN);
  // An idle record: unheld hours and their cost.
  void AddIdle(const CostRecord& r);
  // Adds idle cost shared to this (holder) cell.
  void ReceiveIdle(double usd);
  // This (idle) cell's priced idle has been shared out: drop its money and priced hours; any
  // unpriced hours stay, so the row survives only when something could not be shared.
  void ReleaseIdle();
  void Merge(const RowAccumulator& o);

  double own_allocated_usd() const { return allocated_.value(); }
  double idle_usd() const { return idle_.value(); }
  double gpu_hours() const { return priced_hours_.value() + unpriced_hours_.value(); }
  bool has_priced() const { return priced_hours_.value() > 0 || received_idle_; }
  bool empty() const { return gpu_hours() <= 0 && !received_idle_ && !has_idle_money_; }

  // Writes the sums and derived fields. `is_idle` selects the idle-row conventions
  // (allocated 0, effective and ratios null, waste = idle).
  void Fill(bool is_idle, ReportRow& row) const;

 private:
  CompensatedSum priced_hours_;
  CompensatedSum unpriced_hours_;
  CompensatedSum unmeasured_hours_;
  CompensatedSum measured_hours_;  // held hours with a usage sample
  CompensatedSum used_hours_;      // sum of min(activity, measured hours): u x hours
  CompensatedSum activity_hours_;
  CompensatedSum allocated_;           // own allocation, priced records only
  CompensatedSum measured_allocated_;  // own allocation over measured, priced hours
  CompensatedSum effective_;
  CompensatedSum idle_;          // idle cost (idle cells) or idle received (others)
  CompensatedSum billing_;       // Slurm billing units
  bool has_billing_ = false;
  bool has_effective_ = false;   // a measured, priced record was seen
  bool has_idle_money_ = false;  // a priced idle record was seen
  bool received_idle_ = false;
  bool estimated_ = false;
  bool oversubscribed_ = false;
};

}  // namespace gpucost
