// The price file (`--prices FILE`, YAML): everything the user tells the price book. A plain
// rate card (prices + default_usd_per_gpu_hour) is a valid price file. See docs/pricing.md.
//
//   overrides:     [{match: {node: gpu-7}, usd_per_gpu_hour: 2.5, from: 2026-10-01}]
//   prices:        [{match: {instance_type: p4d.24xlarge}, usd_per_gpu_hour: 2.75}]
//   default_usd_per_gpu_hour: 2.0
//   catalog: builtin | none
//   gpu_share: all | aws-split | price-ratio | 0.8
//   spot: {discount: 0.6, prices: [{match: {instance_type: g6.xlarge}, usd_per_hour: 0.40}]}
//   commitments: [{match: {instance_type: p5.48xlarge}, discount: 0.31, name: "1-yr SP"}]
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "pricing/gpu_share.h"
#include "pricing/rate_card.h"

namespace gpucost {

struct PriceBookConfig {
  std::string source_name;
  std::vector<PriceRule> overrides;  // usd_per_gpu_hour; beat every other source
  RateCard card;                     // rules (usd_per_gpu_hour) and the default rate
  bool use_catalog = true;           // the built-in catalog
  GpuShare gpu_share;
  std::optional<double> spot_discount;  // for spot nodes priced from the catalog
  std::vector<PriceRule> spot_prices;   // usd_per_hour (instance) or usd_per_gpu_hour
  std::vector<PriceRule> commitments;   // discount, usd_per_gpu_hour or usd_per_hour
};

Result<PriceBookConfig> ParsePriceBookConfig(std::string_view yaml_text,
                                             std::string_view source_name);
Result<PriceBookConfig> LoadPriceBookConfig(const std::string& path);

}  // namespace gpucost
