// ChargeSink: a CostSink that turns the engine's CostRecords into charges for a
// StatementBuilder: each holder record becomes one charge labelled with its holder's team and
// workload and its unit's GPU model and node capacity type. Idle records (capacity nobody held)
// belong to no team and are skipped. Keeps pointers to the Inventory and the builder, which must
// outlive it. Thread-compatible: one engine run feeds one instance.
#pragma once

#include <span>
#include <unordered_map>

#include "attribution/attributor.h"
#include "chargeback/statement_builder.h"
#include "model/inventory.h"

namespace gpucost::chargeback {

class ChargeSink final : public CostSink {
 public:
  // `window` and `step` are the engine run's: a record's step index places it in time.
  ChargeSink(const Inventory& inventory, Window window, Duration step, StatementBuilder& builder);

  void Consume(std::span<const CostRecord> records) override;

 private:
  StatementBuilder::Key KeyFor(UnitIndex unit, HolderIndex holder);

  const Inventory* inventory_;
  Window window_;
  Duration step_;
  StatementBuilder* builder_;
  std::unordered_map<uint64_t, StatementBuilder::Key> keys_;  // unit << 32 | holder
};

}  // namespace gpucost::chargeback
