// The price functions the engine calls (model/price.h PriceFn): one flat $/GPU-hour, a static
// rate card, or (what the CLI uses) the price book built from the command line's options. The
// returned functions own their data and are thread-safe.
//
//   PriceFn FlatPriceFn(double usd_per_gpu_hour);
//   PriceFn RateCardPriceFn(RateCard card);
//   Result<PriceFn> MakePriceFn(const PriceOptions& options);  // from
//   --price-per-gpu-hour/--prices
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/result.h"
#include "model/price.h"
#include "pricing/price_book.h"
#include "pricing/rate_card.h"

namespace gpucost {

// Every node at `usd_per_gpu_hour`, source kDefault, why "--price-per-gpu-hour".
PriceFn FlatPriceFn(double usd_per_gpu_hour);

// First matching rule of `card`, else its default, else unknown.
PriceFn RateCardPriceFn(RateCard card);

// Every node unknown: money comes out null, never zero.
PriceFn UnknownPriceFn();

struct PriceOptions {
  std::optional<double> usd_per_gpu_hour;  // --price-per-gpu-hour: the default rate
  std::string prices_file;                 // --prices FILE (YAML); empty: none
  bool use_catalog = true;                 // --no-catalog turns the built-in catalog off
  std::string bill_file;                   // --bill FILE: an AWS CUR (CSV or gzip); empty: none
  bool bill_net = false;                   // --bill-net: effective cost after EDP discounts
};

// The price book the options describe: the file's overrides, rules, spot and commitment
// settings (if any), the built-in catalog (unless turned off here or in the file), and the flag
// as the default rate for nodes nothing else prices (replacing the file's default), and the bill's
// instance charges (docs/billing.md) matched to nodes by provider ID. A negative
// or non-finite flag is InvalidArgument; file errors come from LoadPriceBookConfig.
Result<std::shared_ptr<const PriceBook>> MakePriceBook(const PriceOptions& options);
// The same, as the function the engine calls.
Result<PriceFn> MakePriceFn(const PriceOptions& options);

}  // namespace gpucost
