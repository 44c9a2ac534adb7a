// RowAccumulator: drift-free running sums for one report cell (bucket x group x idle scope),
// fed record by record, merged across cells, and turned into a ReportRow's derived values
// (nulls, utilization, efficiency, waste). Internal to the report module. Thread-compatible.
//
//   void AddHolder(const CostRecord&);  void AddIdle(const CostRecord&);
//   void ReceiveIdle(double usd);       void ReleaseIdle();  void Merge(const RowAccumulator&);
//   void Fill(ReportRow& row) const;
//   RowSums Sums() const;               void AddSums(const RowSums&, double billing);
// The ledger's roll-ups keep RowSums per (period, unit, holder), so a report read from them is the
// report of the records they sum.
#pragma once

#include <cmath>

#include "core/money.h"
#include "model/cost_record.h"
#include "report/report.h"

namespace gpucost {

// The additive state of an accumulator fed holder or idle records (never shared idle), as plain
// values. Not the records' sums: utilization and waste need min(activity, measured hours) and the
// allocation of the measured part, taken record by record.
struct RowSums {
  double priced_hours = 0;
  double unpriced_hours = 0;
  double unmeasured_hours = 0;
  double measured_hours = 0;
  double used_hours = 0;
  double activity_hours = 0;
  double allocated_usd = 0;
  double measured_allocated_usd = 0;
  double effective_usd = 0;
  double idle_usd = 0;
  bool has_effective = false;
  bool has_idle_money = false;
  bool estimated = false;
  bool oversubscribed = false;
};

// The records of one (unit, holder) over a period of whole steps, summed: what a ledger roll-up
// holds. `step` is the index of the period's first step in the report's window.
struct RolledRecord {
  int64_t step = 0;
  UnitIndex unit = kNoIndex;
  HolderIndex holder = kNoIndex;  // kNoIndex: the unit's idle records
  int64_t records = 0;            // how many records it sums
  int64_t unpriced_records = 0;   // of which without a known price (or money)
  // Steps of the period in which the unit was oversubscribed (the same on every holder's entry).
  int64_t unit_oversubscribed_steps = 0;
  RowSums sums;
  // The price source of every priced record it sums (PriceSource), or -1 where they differ or it
  // is not known (a roll-up made before it was kept).
  int price_source = -1;

  bool is_idle() const { return holder == kNoIndex; }
};

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

  // The state fed so far (holder or idle records only, no billing), and adding such a state
  // back; `billing_per_gpu_hour` as for AddHolder, applied to the state's hours.
  RowSums Sums() const;
  void AddSums(const RowSums& s, double billing_per_gpu_hour = NAN);

  double own_allocated_usd() const { return allocated_.value(); }
  double idle_usd() const { return idle_.value(); }
  bool has_idle_money() const { return has_idle_money_; }
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
  CompensatedSum idle_;     // idle cost (idle cells) or idle received (others)
  CompensatedSum billing_;  // Slurm billing units
  bool has_billing_ = false;
  bool has_effective_ = false;   // a measured, priced record was seen
  bool has_idle_money_ = false;  // a priced idle record was seen
  bool received_idle_ = false;
  bool estimated_ = false;
  bool oversubscribed_ = false;
};

}  // namespace gpucost
