#include "pricing/rate_card.h"

#include <yaml-cpp/yaml.h>

#include <array>

#include "core/strings.h"
#include "pricing/glob.h"
#include "pricing/price_book_config.h"
#include "pricing/rule_list.h"
#include "pricing/yaml_util.h"

namespace gpucost {
namespace {

constexpr std::array<NodeField, 7> kNamedFields = {
    NodeField::kNode,    NodeField::kInstanceType, NodeField::kGpuModel, NodeField::kCapacityType,
    NodeField::kCluster, NodeField::kRegion,       NodeField::kZone};

std::string ExpectedFields() {
  std::string out;
  for (NodeField f : kNamedFields) out += StrCat(NodeFieldName(f), ", ");
  out += "label:<key>";
  return out;
}

// A capacity_type as users copy it from their node labels (Karpenter's "on-demand", EKS's
// "ON_DEMAND", Azure's "regular", GKE's "preemptible") is the capacity type gpucost reads from
// them; a value none of them means is an error naming the valid ones, never a rule that silently
// matches nothing. Glob patterns are taken as written.
Result<std::string> CapacityTypePattern(const YamlContext& cx, std::string_view prefix,
                                        const YAML::Node& value) {
  const std::string text = ToLower(value.Scalar());
  if (text.find_first_of("*?[") != std::string::npos) return text;
  if (text == "on_demand" || text == "on-demand" || text == "ondemand" || text == "regular") {
    return std::string("on_demand");
  }
  if (text == "spot" || text == "preemptible") return std::string("spot");
  if (text == "reserved") return text;
  return cx.Error(value, StrCat(prefix, "match: capacity_type: unknown value \"", value.Scalar(),
                                "\" (expected on_demand, spot or reserved; Karpenter's on-demand "
                                "and Azure's regular are on_demand)"));
}

Result<NodeSelector> ReadSelector(const YamlContext& cx, std::string_view prefix,
                                  const YAML::Node& key, const YAML::Node& value) {
  const std::string name = key.Scalar();
  NodeSelector sel;
  if (name.starts_with("label:") && name.size() > 6) {
    sel.field = NodeField::kLabel;
    sel.label = name.substr(6);
  } else if (const std::optional<NodeField> field = ParseNodeField(name)) {
    sel.field = *field;
  } else {
    return cx.Error(key, StrCat(prefix, "match: unknown key \"", name, "\" (expected ",
                                ExpectedFields(), ")"));
  }
  if (!value.IsScalar()) return cx.Error(value, StrCat(prefix, "match: ", name, ": expected a string"));
  sel.pattern = value.Scalar();
  if (sel.field == NodeField::kCapacityType) {
    GPUCOST_ASSIGN_OR_RETURN(sel.pattern, CapacityTypePattern(cx, prefix, value));
  }
  return sel;
}

std::string AllowedKeys(unsigned allowed) {
  std::string out = "match";
  if (allowed & kRulePerGpuHour) out += ", usd_per_gpu_hour";
  if (allowed & kRulePerHour) out += ", usd_per_hour";
  if (allowed & kRuleDiscount) out += ", discount";
  if (allowed & kRuleName) out += ", name";
  out += ", from, until";
  return out;
}

}  // namespace

Result<PriceRule> ReadPriceRule(const YamlContext& cx, const YAML::Node& node,
                                std::string_view list_name, std::string_view entry_word,
                                size_t number, unsigned allowed) {
  const std::string prefix =
      StrCat(list_name, list_name.empty() ? "" : " ", entry_word, " ", number, ": ");
  if (!node.IsMap()) return cx.Error(node, StrCat(prefix, "expected a map with ", AllowedKeys(allowed)));
  PriceRule rule;
  bool have_match = false;
  int values = 0;
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    const YAML::Node value = entry.second;
    if (key == "match") {
      have_match = true;
      if (value.IsNull()) continue;  // "match:" with nothing: every node
      if (!value.IsMap()) return cx.Error(value, StrCat(prefix, "match: expected a map"));
      for (const auto& selector : value) {
        GPUCOST_ASSIGN_OR_RETURN(NodeSelector sel,
                                 ReadSelector(cx, prefix, selector.first, selector.second));
        rule.match.push_back(std::move(sel));
      }
    } else if (key == "usd_per_gpu_hour" && (allowed & kRulePerGpuHour)) {
      GPUCOST_ASSIGN_OR_RETURN(rule.usd_per_gpu_hour, cx.Price(value, StrCat(prefix, key)));
      ++values;
    } else if (key == "usd_per_hour" && (allowed & kRulePerHour)) {
      GPUCOST_ASSIGN_OR_RETURN(rule.usd_per_hour, cx.Price(value, StrCat(prefix, key)));
      ++values;
    } else if (key == "discount" && (allowed & kRuleDiscount)) {
      GPUCOST_ASSIGN_OR_RETURN(rule.discount, cx.Fraction(value, StrCat(prefix, key)));
      ++values;
    } else if (key == "name" && (allowed & kRuleName)) {
      GPUCOST_ASSIGN_OR_RETURN(rule.name, cx.String(value, StrCat(prefix, key)));
    } else if (key == "from") {
      GPUCOST_ASSIGN_OR_RETURN(rule.from, cx.Time(value, StrCat(prefix, key)));
    } else if (key == "until") {
      GPUCOST_ASSIGN_OR_RETURN(rule.until, cx.Time(value, StrCat(prefix, key)));
    } else {
      return cx.Error(entry.first, StrCat(prefix, "unknown key \"", key, "\" (expected ",
                                          AllowedKeys(allowed), ")"));
    }
  }
  if (!have_match) return cx.Error(node, StrCat(prefix, "match: missing"));
  if (values == 0) {
    const std::string first = (allowed & kRulePerGpuHour) ? "usd_per_gpu_hour"
                              : (allowed & kRulePerHour)  ? "usd_per_hour"
                                                          : "discount";
    return cx.Error(node, StrCat(prefix, first, ": missing"));
  }
  if (values > 1) {
    std::string keys;
    for (const auto& [bit, key] : {std::pair{kRulePerGpuHour, "usd_per_gpu_hour"},
                                   std::pair{kRulePerHour, "usd_per_hour"},
                                   std::pair{kRuleDiscount, "discount"}}) {
      if (allowed & bit) keys += StrCat(keys.empty() ? "" : ", ", key);
    }
    return cx.Error(node, StrCat(prefix, "give one of ", keys, " (not several)"));
  }
  if (rule.from && rule.until && *rule.until <= *rule.from) {
    return cx.Error(node, StrCat(prefix, "until must be after from"));
  }
  std::string selectors;
  for (const NodeSelector& sel : rule.match) {
    if (!selectors.empty()) selectors += ", ";
    selectors += sel.ToString();
  }
  rule.why = StrCat(cx.source, " ", list_name.empty() ? "" : StrCat(list_name, " "), entry_word,
                    " ", number, " (", selectors.empty() ? "any node" : selectors, ")");
  return rule;
}

Result<std::vector<PriceRule>> ReadPriceRules(const YamlContext& cx, const YAML::Node& list,
                                              std::string_view list_name,
                                              std::string_view entry_word, unsigned allowed) {
  std::vector<PriceRule> rules;
  if (list.IsNull()) return rules;
  if (!list.IsSequence()) {
    return cx.Error(list, StrCat(list_name, ": expected a list of ",
                                 entry_word == "rule" ? "rules" : "entries"));
  }
  size_t number = 0;
  for (const YAML::Node& node : list) {
    GPUCOST_ASSIGN_OR_RETURN(PriceRule rule,
                             ReadPriceRule(cx, node, list_name == "prices" ? "" : list_name,
                                           entry_word, ++number, allowed));
    rules.push_back(std::move(rule));
  }
  return rules;
}

std::string_view NodeFieldName(NodeField f) {
  switch (f) {
    case NodeField::kNode:
      return "node";
    case NodeField::kInstanceType:
      return "instance_type";
    case NodeField::kGpuModel:
      return "gpu_model";
    case NodeField::kCapacityType:
      return "capacity_type";
    case NodeField::kCluster:
      return "cluster";
    case NodeField::kRegion:
      return "region";
    case NodeField::kZone:
      return "zone";
    case NodeField::kLabel:
      return "label";
  }
  return "node";
}

std::optional<NodeField> ParseNodeField(std::string_view name) {
  for (NodeField f : kNamedFields) {
    if (NodeFieldName(f) == name) return f;
  }
  return std::nullopt;
}

std::string_view NodeSelector::Value(const Node& node) const {
  switch (field) {
    case NodeField::kNode:
      return node.name;
    case NodeField::kInstanceType:
      return node.instance_type;
    case NodeField::kGpuModel:
      return node.gpu_model;
    case NodeField::kCapacityType:
      return node.capacity_type;
    case NodeField::kCluster:
      return node.cluster;
    case NodeField::kRegion:
      return node.region;
    case NodeField::kZone:
      return node.zone;
    case NodeField::kLabel:
      return node.labels.Get(label);
  }
  return {};
}

std::string NodeSelector::ToString() const {
  if (field == NodeField::kLabel) return StrCat("label:", label, "=", pattern);
  return StrCat(NodeFieldName(field), "=", pattern);
}

bool PriceRule::Matches(const Node& node) const {
  for (const NodeSelector& sel : match) {
    if (!GlobMatch(sel.pattern, sel.Value(node))) return false;
  }
  return true;
}

PricePeriod RateCard::Lookup(const Node& node, Window window) const {
  PricePeriod period;
  period.interval = Interval{window.start, window.end};
  period.effective_from = Instant{};
  for (const PriceRule& rule : rules) {
    if (rule.Matches(node) && rule.ActiveAt(window.start)) {
      period.usd_per_gpu_hour = rule.usd_per_gpu_hour;
      period.source = PriceSource::kRateCard;
      period.effective_from = rule.from.value_or(Instant{});
      period.why = rule.why;
      return period;
    }
  }
  if (default_usd_per_gpu_hour) {
    period.usd_per_gpu_hour = *default_usd_per_gpu_hour;
    period.source = PriceSource::kDefault;
    period.why = default_why;
    return period;
  }
  period.source = PriceSource::kUnknown;
  period.why = StrCat(source_name, ": no rule matches node ", node.name, " and no default");
  return period;
}

Result<RateCard> ParseRateCard(std::string_view yaml_text, std::string_view source_name) {
  GPUCOST_ASSIGN_OR_RETURN(PriceBookConfig config, ParsePriceBookConfig(yaml_text, source_name));
  return std::move(config.card);
}

Result<RateCard> LoadRateCard(const std::string& path) {
  GPUCOST_ASSIGN_OR_RETURN(PriceBookConfig config, LoadPriceBookConfig(path));
  return std::move(config.card);
}

}  // namespace gpucost
