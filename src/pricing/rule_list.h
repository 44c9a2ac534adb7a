// Reading lists of node-selected price entries (rate-card rules, overrides, spot prices,
// commitments) from YAML. Internal to the pricing module.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>
#include <vector>

#include "core/result.h"
#include "pricing/rate_card.h"
#include "pricing/yaml_util.h"

namespace gpucost {

// Which value keys an entry may carry; exactly one must be given.
enum RuleValueKey : unsigned {
  kRulePerGpuHour = 1,  // usd_per_gpu_hour
  kRulePerHour = 2,     // usd_per_hour (an instance-hour)
  kRuleDiscount = 4,    // discount
  kRuleName = 8,        // name (optional, never counts as the value)
};

// Errors read "prices.yaml:7: overrides entry 2: usd_per_gpu_hour: must be >= 0 ...";
// `why` reads "prices.yaml overrides entry 2 (node=gpu-7)" ("prices.yaml rule 2 (...)" for the
// rate card, whose list name is left out).
Result<PriceRule> ReadPriceRule(const YamlContext& cx, const YAML::Node& node,
                                std::string_view list_name, std::string_view entry_word,
                                size_t number, unsigned allowed);
Result<std::vector<PriceRule>> ReadPriceRules(const YamlContext& cx, const YAML::Node& list,
                                              std::string_view list_name,
                                              std::string_view entry_word, unsigned allowed);

}  // namespace gpucost
