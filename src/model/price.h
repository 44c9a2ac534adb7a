// Prices: what one GPU-hour on a node costs over a span of time, and why. The engine asks one
// function, PriceFn, once per node and window; a later price book answers it from catalogs,
// overrides and bills. Plain value types.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/capacity.h"

namespace gpucost {

// kSpot: a spot price or discount applied; kCommitment: a reserved-instance or savings-plan rate or
// discount applied (both to catalog or rate-card prices).
enum class PriceSource : uint8_t {
  kUnknown,
  kDefault,
  kCatalog,
  kRateCard,
  kOverride,
  kSpot,
  kBill,
  kCommitment
};
inline constexpr size_t kPriceSourceCount = 8;
std::string_view PriceSourceName(PriceSource s);

struct PricePeriod {
  Interval interval;             // the span this price applies to, clipped to the request
  double usd_per_gpu_hour = 0;   // meaningless when source == kUnknown
  PriceSource source = PriceSource::kUnknown;
  Instant effective_from;        // when this price took effect
  std::string why;               // "prices.yaml rule 2 (instance_type=p4d.24xlarge)"
  // The public (list, on-demand) price of the same GPU-hour, for ListCost in exports and the
  // discount shown by `gpucost prices`. NaN when there is no public price (an on-premises rate):
  // list is then taken to equal the price itself.
  double list_usd_per_gpu_hour = NAN;
  // With source kCommitment: the commitment that applied, by its name in the price file (or the
  // entry that defines it), for CommitmentDiscountId/Name in exports.
  std::string commitment{};
  // With source kBill: the accounts the bill charged the instance to, for BillingAccountId and
  // SubAccountId in exports (docs/focus.md "Accounts"): the payer and the usage (member)
  // account, with their names where the bill has them; empty where it does not say.
  std::string payer_account{};
  std::string payer_account_name{};
  std::string usage_account{};
  std::string usage_account_name{};
  // With a catalog price: the GPUs of the instance its price is split over; 0 otherwise.
  int instance_gpus = 0;
  bool known() const { return source != PriceSource::kUnknown; }
  double list_or_price() const {
    return std::isnan(list_usd_per_gpu_hour) ? usd_per_gpu_hour : list_usd_per_gpu_hour;
  }
};

// The largest price gpucost accepts, per GPU-hour or per instance-hour, wherever it comes from
// (--price-per-gpu-hour, price files, the catalog, a bill): far above any real price, so that a
// larger one is a typo or a unit mix-up, and small enough that the money of years of a large
// cluster stays a figure every output prints exactly (core/money.h). docs/pricing.md, "Limits".
inline constexpr double kMaxUsdPerHour = 1'000'000;
inline constexpr std::string_view kMaxUsdPerHourText = "1000000";

// Returns the prices covering `window` for `node`, sorted, disjoint, covering the window
// entirely (spans with no price carry source kUnknown).
using PriceFn = std::function<std::vector<PricePeriod>(const Node& node, Window window)>;

}  // namespace gpucost
