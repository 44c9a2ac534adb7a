// Price spans: a node's prices over the window as compact, gap-free spans in integer
// milliseconds, so the step loop walks them with a cursor. Gaps and spans the price function
// marks unknown become unknown spans (money NaN downstream, never zero). Thread-compatible.
#pragma once

#include <vector>

#include "attribution/engine_common.h"
#include "core/result.h"
#include "model/price.h"

namespace gpucost::attribution {

struct PriceSpan {
  Span span;
  double usd_per_gpu_hour = 0;  // 0 when unknown, so it never turns a sum into NaN by itself
  double list_usd_per_gpu_hour = 0;  // PricePeriod::list_or_price(); 0 when unknown
  PriceSource source = PriceSource::kUnknown;
  bool known = false;
};

// Clips `periods` to `window` and fills gaps. Overlapping or unsorted periods, or a known price
// that is negative, not finite or above kMaxUsdPerHour, are InvalidArgument naming the node.
Result<std::vector<PriceSpan>> BuildPriceSpans(const Node& node, Span window,
                                               const std::vector<PricePeriod>& periods);

}  // namespace gpucost::attribution
