#include "pricing/rate_card.h"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/strings.h"
#include "pricing/glob.h"

namespace gpucost {
namespace {

constexpr std::array<NodeField, 6> kAllFields = {NodeField::kNode,     NodeField::kInstanceType,
                                                 NodeField::kGpuModel, NodeField::kCapacityType,
                                                 NodeField::kCluster,  NodeField::kRegion};

std::string ExpectedFields() {
  std::string out;
  for (NodeField f : kAllFields) {
    if (!out.empty()) out += ", ";
    out += NodeFieldName(f);
  }
  return out;
}

// "prices.yaml:7: " when the node has a position, else "prices.yaml: ".
std::string Where(std::string_view source, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return StrCat(source, ": ");
  return StrCat(source, ":", mark.line + 1, ": ");
}

// A non-negative finite price, or an error naming `field`.
Result<double> ReadPrice(std::string_view where, std::string_view field, const YAML::Node& node) {
  if (!node.IsScalar()) {
    return Status::ParseError(StrCat(where, field, ": expected a number of USD per GPU-hour"));
  }
  double value = 0;
  try {
    value = node.as<double>();
  } catch (const YAML::Exception&) {
    return Status::ParseError(StrCat(where, field, ": not a number: \"", node.Scalar(), "\""));
  }
  if (!std::isfinite(value) || value < 0) {
    return Status::ParseError(
        StrCat(where, field, ": must be a finite number >= 0, got \"", node.Scalar(), "\""));
  }
  return value;
}

Result<PriceRule> ReadRule(std::string_view source, size_t number, const YAML::Node& node) {
  // "prices.yaml:7: rule 2: ", with the line of the offending node.
  const auto at = [&](const YAML::Node& n) {
    return StrCat(Where(source, n), "rule ", number, ": ");
  };
  if (!node.IsMap()) {
    return Status::ParseError(StrCat(at(node), "expected a map with match and usd_per_gpu_hour"));
  }
  PriceRule rule;
  bool have_match = false, have_price = false;
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    const YAML::Node value = entry.second;
    if (key == "match") {
      have_match = true;
      if (value.IsNull()) continue;  // "match:" with nothing: every node
      if (!value.IsMap()) return Status::ParseError(StrCat(at(value), "match: expected a map"));
      for (const auto& selector : value) {
        const std::string name = selector.first.Scalar();
        const std::optional<NodeField> field = ParseNodeField(name);
        if (!field) {
          return Status::ParseError(StrCat(at(selector.first), "match: unknown key \"", name,
                                           "\" (expected ", ExpectedFields(), ")"));
        }
        if (!selector.second.IsScalar()) {
          return Status::ParseError(
              StrCat(at(selector.second), "match: ", name, ": expected a string"));
        }
        rule.match.emplace_back(*field, selector.second.Scalar());
      }
    } else if (key == "usd_per_gpu_hour") {
      have_price = true;
      GPUCOST_ASSIGN_OR_RETURN(rule.usd_per_gpu_hour, ReadPrice(at(value), key, value));
    } else {
      return Status::ParseError(
          StrCat(at(entry.first), "unknown key \"", key, "\" (expected match, usd_per_gpu_hour)"));
    }
  }
  if (!have_match) return Status::ParseError(StrCat(at(node), "match: missing"));
  if (!have_price) return Status::ParseError(StrCat(at(node), "usd_per_gpu_hour: missing"));
  std::string selectors;
  for (const auto& [field, pattern] : rule.match) {
    if (!selectors.empty()) selectors += ", ";
    selectors += StrCat(NodeFieldName(field), "=", pattern);
  }
  rule.why =
      StrCat(source, " rule ", number, " (", selectors.empty() ? "any node" : selectors, ")");
  return rule;
}

Result<RateCard> ReadCard(std::string_view source, const YAML::Node& root) {
  RateCard card;
  card.source_name = std::string(source);
  if (root.IsNull()) return Status::ParseError(StrCat(source, ": empty price file"));
  if (!root.IsMap()) {
    return Status::ParseError(
        StrCat(Where(source, root), "expected a map with prices and default_usd_per_gpu_hour"));
  }
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    const YAML::Node value = entry.second;
    if (key == "prices") {
      if (value.IsNull()) continue;
      if (!value.IsSequence()) {
        return Status::ParseError(StrCat(Where(source, value), "prices: expected a list of rules"));
      }
      size_t number = 0;
      for (const YAML::Node& rule_node : value) {
        GPUCOST_ASSIGN_OR_RETURN(PriceRule rule, ReadRule(source, ++number, rule_node));
        card.rules.push_back(std::move(rule));
      }
    } else if (key == "default_usd_per_gpu_hour") {
      GPUCOST_ASSIGN_OR_RETURN(card.default_usd_per_gpu_hour,
                               ReadPrice(Where(source, value), key, value));
      card.default_why = StrCat(source, " default_usd_per_gpu_hour");
    } else {
      return Status::ParseError(StrCat(Where(source, entry.first), "unknown key \"", key,
                                       "\" (expected prices, default_usd_per_gpu_hour)"));
    }
  }
  if (card.rules.empty() && !card.default_usd_per_gpu_hour) {
    return Status::ParseError(StrCat(source, ": no price rules and no default_usd_per_gpu_hour"));
  }
  return card;
}

}  // namespace

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
  }
  return "node";
}

std::optional<NodeField> ParseNodeField(std::string_view name) {
  for (NodeField f : kAllFields) {
    if (NodeFieldName(f) == name) return f;
  }
  return std::nullopt;
}

std::string_view NodeFieldValue(const Node& node, NodeField f) {
  switch (f) {
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
  }
  return {};
}

bool PriceRule::Matches(const Node& node) const {
  for (const auto& [field, pattern] : match) {
    if (!GlobMatch(pattern, NodeFieldValue(node, field))) return false;
  }
  return true;
}

PricePeriod RateCard::Lookup(const Node& node, Window window) const {
  PricePeriod period;
  period.interval = Interval{window.start, window.end};
  // A static file has no history: its prices are in effect since the epoch.
  period.effective_from = Instant{};
  for (const PriceRule& rule : rules) {
    if (rule.Matches(node)) {
      period.usd_per_gpu_hour = rule.usd_per_gpu_hour;
      period.source = PriceSource::kRateCard;
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
  try {
    const YAML::Node root = YAML::Load(std::string(yaml_text));
    return ReadCard(source_name, root);
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) return Status::ParseError(StrCat(source_name, ": ", e.msg));
    return Status::ParseError(
        StrCat(source_name, ":", e.mark.line + 1, ":", e.mark.column + 1, ": ", e.msg));
  }
}

Result<RateCard> LoadRateCard(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(StrCat("cannot open ", path, ": ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError(StrCat("cannot read ", path));
  return ParseRateCard(text.str(), path);
}

}  // namespace gpucost
