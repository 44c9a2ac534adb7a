// Prices: what one GPU-hour on a node costs over a span of time, and why. The engine asks one
// function, PriceFn, once per node and window; a later price book answers it from catalogs,
// overrides and bills. Plain value types.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/capacity.h"

namespace gpucost {

enum class PriceSource : uint8_t { kUnknown, kDefault, kCatalog, kRateCard, kOverride, kSpot, kBill };
std::string_view PriceSourceName(PriceSource s);

struct PricePeriod {
  Interval interval;             // the span this price applies to, clipped to the request
  double usd_per_gpu_hour = 0;   // meaningless when source == kUnknown
  PriceSource source = PriceSource::kUnknown;
  Instant effective_from;        // when this price took effect
  std::string why;               // "prices.yaml rule 2 (instance_type=p4d.24xlarge)"
  bool known() const { return source != PriceSource::kUnknown; }
};

// Returns the prices covering `window` for `node`, sorted, disjoint, covering the window
// entirely (spans with no price carry source kUnknown).
using PriceFn = std::function<std::vector<PricePeriod>(const Node& node, Window window)>;

}  // namespace gpucost
