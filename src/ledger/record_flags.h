// How cost_records stores a record's booleans (its `flags` column). Internal to the ledger.
#pragma once

#include <cstdint>

namespace gpucost::ledger {

inline constexpr int64_t kEstimated = 1;
inline constexpr int64_t kOversubscribed = 2;
inline constexpr int64_t kPriceKnown = 4;

}  // namespace gpucost::ledger
