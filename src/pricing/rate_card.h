// RateCard: $/GPU-hour chosen by node selectors, read from a YAML file; the first rule whose
// selectors all match a node wins, then the file's default, else the price is unknown (never
// zero). Immutable once parsed; const methods are thread-safe.
//
//   Result<RateCard> LoadRateCard(const std::string& path);
//   Result<RateCard> ParseRateCard(std::string_view yaml_text, std::string_view source_name);
//   PricePeriod RateCard::Lookup(const Node& node, Window window) const;
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/time.h"
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
  kRegion,
  kZone,
  kLabel,  // "label:<key>": a node label, e.g. label:slurm.partition
};
std::string_view NodeFieldName(NodeField f);
std::optional<NodeField> ParseNodeField(std::string_view name);  // not kLabel

struct NodeSelector {
  NodeField field = NodeField::kNode;
  std::string label;    // the key, for kLabel
  std::string pattern;  // exact, or a glob with '*'

  std::string_view Value(const Node& node) const;  // "" for a missing label
  std::string ToString() const;                     // "instance_type=p4d.*"
};

// One entry of a list of node-selected prices (rate-card rules, overrides, spot prices and
// commitments share this shape; each list allows its own value keys).
struct PriceRule {
  // All selectors must match. Empty: every node.
  std::vector<NodeSelector> match;
  std::optional<Instant> from;   // inclusive; none: since ever
  std::optional<Instant> until;  // exclusive; none: for ever
  double usd_per_gpu_hour = NAN;  // NaN when the entry gives no per-GPU-hour price
  double usd_per_hour = NAN;      // an instance-hour price (spot prices, commitments)
  double discount = NAN;          // a fraction off (commitments)
  std::string name;               // optional label, e.g. "1-yr compute savings plan"
  std::string why;  // "prices.yaml rule 2 (instance_type=p4d.24xlarge)"

  bool Matches(const Node& node) const;
  bool ActiveAt(Instant t) const { return (!from || t >= *from) && (!until || t < *until); }
};

struct RateCard {
  std::string source_name;  // the file as named by the user; prefixes every `why` and error
  std::vector<PriceRule> rules;
  std::optional<double> default_usd_per_gpu_hour;
  std::string default_why;  // "prices.yaml default_usd_per_gpu_hour"

  // The price of `node` over the whole of `window` by the rules active at window.start: source
  // kRateCard for a rule, kDefault for the default, kUnknown when neither applies. (The price
  // book evaluates rules with dates over time; this is the static view.)
  PricePeriod Lookup(const Node& node, Window window) const;
};

// Rules are numbered from 1 in messages. Errors name the source, the rule and the field:
// "prices.yaml: rule 2: match: unknown key \"zone\" (expected node, instance_type, ...)".
Result<RateCard> ParseRateCard(std::string_view yaml_text, std::string_view source_name);
Result<RateCard> LoadRateCard(const std::string& path);

}  // namespace gpucost
