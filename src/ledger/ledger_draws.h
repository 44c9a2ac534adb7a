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

// The holders ("namespace/pod", sorted, each once) that hold other units of one resource on one
// node in the ledger's step [t, t + step) than in [t - step, t): a pod drawn anew at t, which one
// attribution of both sides never does (a write before the other side was written, a rewrite of
// one side alone); empty when the ledger lacks either step.
Result<std::vector<std::string>> MovedAcross(Ledger& ledger, Instant t, Duration step,
                                             std::span<const std::string> clusters);

}  // namespace gpucost::ledger
