// The pool draws of the holdings running at an instant, from what the ledger holds: where a write
// (or a report) starts, a pod whose request drew units from its node's pool keeps the units it
// held in the step before (AttributionOptions::prior_draws), as one attribution over both would
// keep them. `gpucost ledger write` places the pods running at its window's start with them.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "attribution/inventory_union.h"
#include "core/result.h"
#include "core/time.h"
#include "ledger/ledger.h"

namespace gpucost::ledger {

// Per holder, node and resource, the units the holder held in the ledger's step [start - step,
// start) of `clusters` (every cluster's when empty); empty when the ledger holds no such step.
Result<std::vector<KeyedDraw>> DrawsHeldBefore(Ledger& ledger, Instant start, Duration step,
                                               std::span<const std::string> clusters);

}  // namespace gpucost::ledger
