// Aggregator: a CostSink that groups the engine's CostRecords by report dimensions and time
// bucket, applies the idle policy and produces a Report (docs/report.md). It keeps a pointer to
// the Inventory, which must outlive it and may grow between batches (segments of a window).
// Thread-compatible: one engine run feeds one instance.
//
//   Result<Aggregator> Aggregator::Create(const Inventory& inventory, AggregatorOptions options);
//   void Consume(std::span<const CostRecord> records) override;   // CostSink
//   void ConsumeRolled(std::span<const RolledRecord> rolled);      // ledger roll-ups
//   Report Finish() const;                                          // may be called repeatedly
#pragma once

#include <array>
#include <chrono>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "attribution/attributor.h"
#include "core/result.h"
#include "model/inventory.h"
#include "report/dimension.h"
#include "report/report.h"
#include "report/row_accumulator.h"

namespace gpucost {

struct AggregatorOptions {
  Window window;                                    // the engine's window
  Duration engine_step = std::chrono::seconds(60);  // the engine's step
  // Length of one output bucket, a whole multiple of engine_step; 0 means engine_step.
  Duration output_step{0};
  bool accumulate = false;  // one bucket for the whole window
  // Calendar months (UTC) instead of output_step: a bucket per month the window touches, the
  // first and last clipped to the window; a step belongs to the month it starts in.
  bool calendar_months = false;
  std::vector<Dimension> by;
  IdleOptions idle;
};

class Aggregator final : public CostSink {
 public:
  // InvalidArgument for an empty `by`, an empty window, a non-positive step or an output step
  // that is not a whole multiple of the engine step.
  static Result<Aggregator> Create(const Inventory& inventory, AggregatorOptions options);

  void Consume(std::span<const CostRecord> records) override;
  // Summed records (ledger roll-ups), each within one output bucket: the report is the report of
  // the records they sum.
  void ConsumeRolled(std::span<const RolledRecord> rolled);
  Report Finish() const;

  // The money of every priced record consumed (holders' allocations plus idle): what
  // Report::totals.cost_usd must equal under every idle policy.
  double recorded_cost_usd() const { return cost_usd_.value(); }

  // Internal cell key and bookkeeping, public only for the idle-sharing step.
  struct Cell {
    int64_t bucket = 0;
    uint32_t group = 0;    // index of the row's values (idle and holder groups apart)
    uint32_t scope = 0;    // node or cluster index (0 when idle stays separate)
    bool is_idle = false;  // unheld capacity; its group carries only capacity values
    int64_t holders = 0;   // distinct holders seen in this cell (even policy only)
    RowAccumulator acc;
  };

 private:
  Aggregator(const Inventory& inventory, AggregatorOptions options);

  struct PairInfo {
    uint32_t group;
    uint32_t scope;
  };
  const PairInfo& Lookup(UnitIndex unit, HolderIndex holder);
  uint32_t ScopeOf(UnitIndex unit);
  Cell& CellFor(int64_t bucket, uint32_t group, uint32_t scope);
  // Even policy: counts `holder` once per (bucket, scope), in `cell`.
  void CountHolder(int64_t bucket, uint32_t scope, HolderIndex holder, Cell& cell);

  const Inventory* inventory_;
  AggregatorOptions options_;
  int64_t steps_per_bucket_ = 1;  // 0 when accumulated or by calendar months
  // By calendar months: the first step of each month after the first (bucket = how many of
  // these a step reaches), and each bucket's start, the window's end last.
  std::vector<int64_t> month_first_steps_;
  std::vector<Instant> month_edges_;
  int64_t BucketOf(int64_t step) const;
  int64_t bucket_count_ = 1;
  std::unordered_map<uint64_t, PairInfo> pairs_;  // (unit << 32 | holder) -> group, scope
  // Joined values -> group; idle groups' keys start with a mark, so that an idle row and a
  // holder row with the same values (--by cluster) stay apart.
  std::unordered_map<std::string, uint32_t> group_ids_;
  struct Group {
    std::vector<std::string> values;
    bool is_idle = false;
  };
  std::vector<Group> groups_;
  std::unordered_map<std::string, uint32_t> cluster_ids_;
  std::vector<uint32_t> node_cluster_;  // node -> cluster id, lazily filled
  struct CellKeyHash {
    size_t operator()(const std::pair<int64_t, uint64_t>& k) const;
  };
  std::unordered_map<std::pair<int64_t, uint64_t>, size_t, CellKeyHash> cell_index_;
  std::vector<Cell> cells_;
  // Even policy: (bucket, scope, holder) already counted.
  std::unordered_set<std::pair<int64_t, uint64_t>, CellKeyHash> holder_seen_;
  CompensatedSum cost_usd_;  // every priced record's money: the conservation reference
  bool any_unpriced_ = false;
  // GPU-hours of capacity (held and idle) by the source of their price (PriceSource order);
  // roll-ups carry no source, so a report that reads any does not say.
  std::array<CompensatedSum, kPriceSourceCount> source_hours_;
  std::array<CompensatedSum, 2> kind_hours_;  // by UnitKind: GPU-hours, accelerator-hours
  bool sources_known_ = true;
};

}  // namespace gpucost
