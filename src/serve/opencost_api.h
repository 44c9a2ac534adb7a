// OpenCost's allocation API over the ledger (`gpucost serve`: /allocation, /allocation/compute
// and the autocomplete of the OpenCost UI's filters), so existing OpenCost clients read gpucost's
// numbers unchanged: the same query parameters (window, step, aggregate, accumulate, includeIdle,
// shareIdle, idleByNode) and the same response shape and GPU field names (gpuHours, gpuCost,
// gpuCostIdle, gpuEfficiency, gpuAllocation...), with gpucost's effective and waste cost beside
// them (docs/serve.md).
#pragma once

#include <functional>
#include <string>

#include "core/result.h"
#include "core/time.h"

namespace gpucost::serve {

struct ApiResponse {
  int status = 200;
  std::string body;                    // JSON
  StatusCode cause = StatusCode::kOk;  // of a failure: kDataLoss for a damaged ledger
};

// `param(name)` returns the query parameter or "" when absent. `now` anchors relative windows
// ("7d", "today", "lastmonth").
ApiResponse OpenCostAllocation(const std::string& ledger_path,
                               const std::function<std::string(const char*)>& param, Instant now);

// OpenCost's /model/allocation/autocomplete: the distinct values of `field` (cluster, node,
// namespace, controllerKind, controller, pod, container, label: the label keys, label:KEY or
// label[KEY]: that label's values) among the allocations of `window` (default 7d) that `filter`
// keeps, sorted, those containing `search` (case-insensitive) only, at most `limit`.
ApiResponse OpenCostAutocomplete(const std::string& ledger_path,
                                 const std::function<std::string(const char*)>& param, Instant now);

// OpenCost's window forms, as OpenCost counts them (UTC): "START,END" (RFC 3339 or unix seconds);
// "45m" and "24h" ending now; "7d" and "2w" as whole days ending at tomorrow 00:00; "24h offset
// 48h" ending 48 hours ago; "today" (to tomorrow 00:00), "yesterday", "week" and "lastweek"
// (from Sunday), "month", "lastmonth". Exposed for tests.
Result<Window> ParseOpenCostWindow(std::string_view text, Instant now);

}  // namespace gpucost::serve
