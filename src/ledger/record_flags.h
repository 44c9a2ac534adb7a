// How cost_records stores a record's booleans (its `flags` column), and reading a record's values
// back. Internal to the ledger.
#pragma once

#include <cstdint>

#include "ledger/sql_db.h"
#include "model/cost_record.h"

namespace gpucost::ledger {

inline constexpr int64_t kEstimated = 1;
inline constexpr int64_t kOversubscribed = 2;
inline constexpr int64_t kPriceKnown = 4;
// Carried over a gap (ledger_gaps.cc): the holdings of the step before, no usage.
inline constexpr int64_t kCarried = 8;

// The columns every record read selects, in this order from some column on.
inline constexpr const char* kRecordValueColumns =
    "gpu_hours, allocated_usd, effective_usd, list_usd, unmeasured_gpu_hours, "
    "activity_gpu_hours, flags, price_source";

// Where `flags` is among kRecordValueColumns.
inline constexpr int kFlagsColumn = 6;

// Fills `r`'s values (not its step, unit or holder) from kRecordValueColumns at `col`.
inline void ReadRecordValues(const Statement& q, int col, CostRecord& r) {
  r.gpu_hours = q.Double(col);
  r.allocated_usd = q.Double(col + 1);
  r.effective_usd = q.Double(col + 2);
  r.list_usd = q.Double(col + 3);
  r.unmeasured_gpu_hours = q.Double(col + 4);
  r.activity_gpu_hours = q.Double(col + 5);
  const int64_t flags = q.Int(col + kFlagsColumn);
  r.estimated = (flags & kEstimated) != 0;
  r.oversubscribed = (flags & kOversubscribed) != 0;
  r.price_known = (flags & kPriceKnown) != 0;
  r.price_source = static_cast<PriceSource>(q.Int(col + 7));
}

}  // namespace gpucost::ledger
