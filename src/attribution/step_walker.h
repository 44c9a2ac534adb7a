// The step loop: walks one unit's pieces, its node's price spans and its usage series step by
// step with cursors, and emits the unit's CostRecords into a reusable batch that is flushed to
// the sink when full. No hashing and no allocation per step. Thread-compatible; one walker per
// thread.
#pragma once

#include <span>
#include <vector>

#include "attribution/attributor.h"
#include "attribution/engine_common.h"
#include "attribution/price_spans.h"
#include "attribution/timeline.h"
#include "attribution/usage_index.h"
#include "core/money.h"
#include "model/usage.h"

namespace gpucost::attribution {

// Running totals of one Attribute call (compensated, so conservation holds to rounding).
struct Totals {
  CompensatedSum node_cost_usd;
  CompensatedSum allocated_usd;
  CompensatedSum idle_usd;
  CompensatedSum unpriced_gpu_hours;
  int64_t records = 0;
  int64_t oversubscribed_unit_steps = 0;
};

// What the walker needs to know about one unit.
struct UnitWork {
  UnitIndex unit = kNoIndex;
  double fraction = 1.0;
  bool mig = false;  // activity comes from the MIG instance's own series
  const std::vector<UsageSample>* device = nullptr;  // the unit's device series, if any
  int64_t device_hold_ms = 0;                        // how long its samples hold at most
  std::span<const PriceSpan> prices;                 // the unit's node, covering the window
};

class StepWalker {
 public:
  // Small enough that the batch stays in the first-level cache between the walker writing it
  // and the sink reading it.
  static constexpr size_t kBatchSize = 512;

  StepWalker(const UnitTimelines& timelines, const Usage& usage, const UsageIndex& usage_index,
             Span window, int64_t step_ms, CostSink& sink);

  // Walks one unit; its timeline must be in `timelines` now (it may be refilled between calls).
  void Walk(const UnitWork& work);
  // Hands the records still in the batch to the sink.
  void Flush();
  // Flushes and adds the walked units' sums to the totals, in unit order whatever order the
  // units were walked in, so the totals do not depend on it.
  void FinishTotals();
  const Totals& totals() const { return totals_; }

 private:
  struct SlotAcc {
    int64_t held_ms = 0;
    int64_t covered_ms = 0;
    double share_ms = 0;     // share x ms
    double usd_ms = 0;       // share x price x ms
    double list_usd_ms = 0;  // share x list price x ms
    double activity_ms = 0;  // a x ms over covered time
    bool estimated = false;
    bool oversubscribed = false;
    bool touched = false;
  };

  // Running sums of one unit. Plain doubles: one unit's terms are of similar size, so the error
  // stays below (steps x 1e-16) relative; the units' sums are then added with compensation.
  struct UnitSums {
    double node_cost_usd = 0;
    double allocated_usd = 0;
    double idle_usd = 0;
    double unpriced_ms = 0;  // f x ms
    int64_t records = 0;
    int64_t oversubscribed_steps = 0;
    bool walked = false;
  };

  // What stays constant for one claim over a run of whole steps.
  struct RunClaim {
    CostRecord proto;  // the claim's record as if unmeasured; the step and usage vary
    double activity_weight = 0;
    double inv_share = 0;
    SeriesCursor* own = nullptr;  // the holder's own series, if any
    bool split = false;
  };

  // The next record of the batch; the batch is flushed once it is full.
  CostRecord& Next() {
    if (batch_size_ == kBatchSize) Flush();
    return batch_[batch_size_++];
  }
  // `m` (at most kBatchSize) consecutive records of the batch.
  CostRecord* Reserve(size_t m) {
    if (batch_size_ + m > kBatchSize) Flush();
    CostRecord* out = batch_.data() + batch_size_;
    batch_size_ += m;
    return out;
  }
  void FullRun(const UnitWork& w, const Piece& piece, const PriceSpan& price, int64_t k,
               int64_t n, int64_t s0, int64_t len, SeriesCursor& device, UnitSums& sums);
  void PartialStep(const UnitWork& w, const Piece* pieces, uint32_t pi, uint32_t n_pieces,
                   size_t price, int64_t k, int64_t s0, int64_t s1, SeriesCursor& device,
                   UnitSums& sums);

  const UnitTimelines& timelines_;
  const Usage& usage_;
  Span window_;
  const UsageIndex& usage_index_;
  int64_t step_ms_;
  CostSink& sink_;
  std::vector<CostRecord> batch_;  // kBatchSize records, the first batch_size_ in use
  size_t batch_size_ = 0;
  const Slot* slots_ = nullptr;  // of the unit being walked
  std::vector<SlotAcc> acc_;
  std::vector<SeriesCursor> cursors_;  // per slot: the holder's own series, if any
  std::vector<uint32_t> touched_;
  std::vector<RunClaim> run_;  // claims of the current run of whole steps
  std::vector<UnitSums> unit_sums_;  // per unit index
  Totals totals_;
};

}  // namespace gpucost::attribution
