// RateCard: $/GPU-hour chosen by node selectors, read from a YAML file; the first rule whose
// selectors all match a node wins, then the file's default, else the price is unknown (never
// zero). Immutable once parsed; const methods are thread-safe.
//
//   Result<RateCard> LoadRateCard(const std::string& path);
//   Result<RateCard> ParseRateCard(std::string_view yaml_text, std::string_view source_name);
//   PricePeriod RateCard::Lookup(const Node& node, Window window) const;
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "model/capacity.h"
#include "model/price.h"

namespace gpucost {

// The node fields a rule may select on, named as in the YAML file.
enum class NodeField : uint8_t {
  kNode,
  kInstanceType,
  kGpuModel,
  kCapacityType,
  kCluster,
  kRegion
};
std::string_view NodeFieldName(NodeField f);
std::optional<NodeField> ParseNodeField(std::string_view name);
std::string_view NodeFieldValue(const Node& node, NodeField f);

struct PriceRule {
  // All selectors must match; a value may contain '*' (see GlobMatch). Empty: every node.
  std::vector<std::pair<NodeField, std::string>> match;
  double usd_per_gpu_hour = 0;
  std::string why;  // "prices.yaml rule 2 (instance_type=p4d.24xlarge)"

  bool Matches(const Node& node) const;
};

struct RateCard {
  std::string source_name;  // the file as named by the user; prefixes every `why` and error
  std::vector<PriceRule> rules;
  std::optional<double> default_usd_per_gpu_hour;
  std::string default_why;  // "prices.yaml default_usd_per_gpu_hour"

  // The price of `node` over the whole of `window`: source kRateCard for a rule, kDefault for
  // the default, kUnknown when neither applies.
  PricePeriod Lookup(const Node& node, Window window) const;
};

// Rules are numbered from 1 in messages. Errors name the source, the rule and the field:
// "prices.yaml: rule 2: match: unknown key \"zone\" (expected node, instance_type, ...)".
Result<RateCard> ParseRateCard(std::string_view yaml_text, std::string_view source_name);
Result<RateCard> LoadRateCard(const std::string& path);

}  // namespace gpucost
