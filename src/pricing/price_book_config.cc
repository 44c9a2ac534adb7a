#include "pricing/price_book_config.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/strings.h"
#include "pricing/rule_list.h"
#include "pricing/yaml_util.h"

namespace gpucost {
namespace {

constexpr std::string_view kTopKeys =
    "overrides, prices, default_usd_per_gpu_hour, catalog, gpu_share, spot, commitments";

Status ReadSpot(const YamlContext& cx, const YAML::Node& node, PriceBookConfig& config) {
  if (node.IsNull()) return Status::Ok();
  if (!node.IsMap()) return cx.Error(node, "spot: expected a map with discount and/or prices");
  for (const auto& e : node) {
    const std::string key = e.first.Scalar();
    if (key == "discount") {
      GPUCOST_ASSIGN_OR_RETURN(config.spot_discount, cx.Fraction(e.second, "spot: discount"));
    } else if (key == "prices") {
      GPUCOST_ASSIGN_OR_RETURN(
          config.spot_prices,
          ReadPriceRules(cx, e.second, "spot prices", "entry", kRulePerGpuHour | kRulePerHour));
    } else {
      return cx.Error(e.first,
                      StrCat("spot: unknown key \"", key, "\" (expected discount, prices)"));
    }
  }
  return Status::Ok();
}

Result<PriceBookConfig> ReadConfig(const YamlContext& cx, const YAML::Node& root) {
  PriceBookConfig config;
  config.source_name = std::string(cx.source);
  config.card.source_name = config.source_name;
  if (!root.IsMap()) return cx.Error(root, StrCat("expected a map with ", kTopKeys));
  bool settings = false;  // catalog or gpu_share given
  for (const auto& e : root) {
    const std::string key = e.first.Scalar();
    const YAML::Node value = e.second;
    if (key == "prices") {
      GPUCOST_ASSIGN_OR_RETURN(config.card.rules,
                               ReadPriceRules(cx, value, "prices", "rule", kRulePerGpuHour));
    } else if (key == "overrides") {
      GPUCOST_ASSIGN_OR_RETURN(config.overrides,
                               ReadPriceRules(cx, value, "overrides", "entry", kRulePerGpuHour));
    } else if (key == "commitments") {
      GPUCOST_ASSIGN_OR_RETURN(
          config.commitments,
          ReadPriceRules(cx, value, "commitments", "entry",
                         kRulePerGpuHour | kRulePerHour | kRuleDiscount | kRuleName));
    } else if (key == "default_usd_per_gpu_hour") {
      GPUCOST_ASSIGN_OR_RETURN(config.card.default_usd_per_gpu_hour, cx.Price(value, key));
      config.card.default_why = StrCat(cx.source, " default_usd_per_gpu_hour");
    } else if (key == "catalog") {
      settings = true;
      GPUCOST_ASSIGN_OR_RETURN(std::string v, cx.String(value, key));
      if (v == "builtin") {
        config.use_catalog = true;
      } else if (v == "none") {
        config.use_catalog = false;
      } else {
        return cx.Error(value, StrCat("catalog: expected builtin or none, got \"", v, "\""));
      }
    } else if (key == "gpu_share") {
      settings = true;
      GPUCOST_ASSIGN_OR_RETURN(std::string v, cx.String(value, key));
      auto share = ParseGpuShare(v);
      if (!share.ok()) return cx.Error(value, share.status().message());
      config.gpu_share = *share;
    } else if (key == "spot") {
      GPUCOST_RETURN_IF_ERROR(ReadSpot(cx, value, config));
    } else {
      return cx.Error(e.first, StrCat("unknown key \"", key, "\" (expected ", kTopKeys, ")"));
    }
  }
  if (!settings && config.card.rules.empty() && !config.card.default_usd_per_gpu_hour &&
      config.overrides.empty() && config.commitments.empty() && config.spot_prices.empty() &&
      !config.spot_discount) {
    return Status::ParseError(StrCat(cx.source,
                                     ": no price rules and no default_usd_per_gpu_hour (nor "
                                     "overrides, spot, commitments, catalog or gpu_share)"));
  }
  return config;
}

}  // namespace

Result<PriceBookConfig> ParsePriceBookConfig(std::string_view yaml_text,
                                             std::string_view source_name) {
  return ParseYaml<PriceBookConfig>(yaml_text, source_name, ReadConfig);
}

Result<PriceBookConfig> LoadPriceBookConfig(const std::string& path) {
  GPUCOST_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParsePriceBookConfig(text, path);
}

Result<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(StrCat("cannot open ", path, ": ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError(StrCat("cannot read ", path));
  return text.str();
}

}  // namespace gpucost
