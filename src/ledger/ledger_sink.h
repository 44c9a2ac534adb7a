// LedgerSink: the CostSink that keeps an engine run's records and writes them to a ledger in one
// transaction on Commit() (ledger/ledger.h). One per write; not thread-safe.
#pragma once

#include <span>
#include <vector>

#include "ledger/ledger.h"

namespace gpucost::ledger {

// A CostSink that keeps an engine run's records and writes them to a ledger on Commit().
class LedgerSink final : public CostSink {
 public:
  LedgerSink(Ledger& ledger, const Inventory& inventory, Window window, Duration step);
  void Consume(std::span<const CostRecord> records) override;
  // Which steps of the window the records consumed so far fall in.
  std::vector<bool> StepsWithRecords() const;
  // Writes what was consumed in one transaction, with `gaps` (see WriteGaps) when given; the sink
  // is empty afterwards.
  Status Commit(WriteGaps* gaps = nullptr, const WriteScope& scope = {});
  size_t pending() const { return records_.size(); }

 private:
  Ledger* ledger_;
  const Inventory* inventory_;
  Window window_;
  Duration step_;
  std::vector<CostRecord> records_;
};

}  // namespace gpucost::ledger
