// The minimal price functions the engine calls (model/price.h PriceFn): one flat $/GPU-hour,
// a YAML rate card, or both (the flag then replaces the file's default). A later price book
// replaces these behind the same PriceFn. The returned functions own their data and are
// thread-safe.
//
//   PriceFn FlatPriceFn(double usd_per_gpu_hour);
//   PriceFn RateCardPriceFn(RateCard card);
//   Result<PriceFn> MakePriceFn(const PriceOptions& options);  // from
//   --price-per-gpu-hour/--prices
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "model/price.h"
#include "pricing/rate_card.h"

namespace gpucost {

// Every node at `usd_per_gpu_hour`, source kDefault, why "--price-per-gpu-hour".
PriceFn FlatPriceFn(double usd_per_gpu_hour);

// First matching rule of `card`, else its default, else unknown.
PriceFn RateCardPriceFn(RateCard card);

// Every node unknown: money comes out null, never zero.
PriceFn UnknownPriceFn();

struct PriceOptions {
  std::optional<double> usd_per_gpu_hour;  // --price-per-gpu-hour
  std::string prices_file;                 // --prices FILE (YAML); empty: none
};

// Neither set: UnknownPriceFn. Only the flag: FlatPriceFn. A file: its rules, with the flag (if
// set) as the default for nodes no rule matches, replacing the file's own default.
// A negative or non-finite flag is InvalidArgument; file errors come from LoadRateCard.
Result<PriceFn> MakePriceFn(const PriceOptions& options);

}  // namespace gpucost
