// The JSON endpoints that the web UI reads besides /api/v1/report (docs/serve.md, "Web UI"):
//   /api/v1/ledger  what the ledger spans, its step and its clusters (the UI's windows);
//   /api/v1/fleet   the newest step's nodes, their GPUs and each unit (whole GPU, MIG slice,
//                   time-sliced or MPS replica) with who held how much of it, what was idle and
//                   the node's price per GPU-hour with its source.
// Each opens the ledger for the request, as /api/v1/report does.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "ledger/ledger.h"

namespace gpucost::serve {

Result<std::string> LedgerInfoJson(const std::string& ledger_target);

// `clusters`: only these clusters' nodes; every cluster's when empty.
Result<std::string> FleetJson(const std::string& ledger_target,
                              const std::vector<std::string>& clusters);

// The same from records already read (one step's `window` of `records` over `inventory`).
std::string FleetJsonOf(const Inventory& inventory, const std::vector<CostRecord>& records,
                        Window window);

}  // namespace gpucost::serve
