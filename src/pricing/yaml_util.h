// Reading the pricing module's YAML files (price book, catalog) with errors that name the file
// and line: "prices.yaml:7: spot: discount: must be a fraction in [0, 1), got \"1.5\"". Internal
// to the pricing module; stateless.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/strings.h"
#include "core/time.h"
#include "core/yaml_keys.h"
#include "model/price.h"

namespace gpucost {

struct YamlContext {
  std::string_view source;

  // "prices.yaml:7: " when the node has a position, else "prices.yaml: ".
  std::string Where(const YAML::Node& node) const {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) return StrCat(source, ": ");
    return StrCat(source, ":", mark.line + 1, ": ");
  }
  Status Error(const YAML::Node& node, std::string_view message) const {
    return Status::ParseError(StrCat(Where(node), message));
  }
  Result<std::string> String(const YAML::Node& node, std::string_view field) const {
    if (!node || !node.IsScalar()) return Error(node, StrCat(field, ": expected a string"));
    return node.Scalar();
  }
  Result<double> Number(const YAML::Node& node, std::string_view field) const {
    if (!node || !node.IsScalar()) return Error(node, StrCat(field, ": expected a number"));
    double value = 0;
    try {
      value = node.as<double>();
    } catch (const YAML::Exception&) {
      return Error(node, StrCat(field, ": not a number: \"", node.Scalar(), "\""));
    }
    return value;  // callers check the range, finiteness included
  }
  Result<double> NonNegative(const YAML::Node& node, std::string_view field) const {
    GPUCOST_ASSIGN_OR_RETURN(double v, Number(node, field));
    if (!std::isfinite(v) || v < 0) {
      return Error(node, StrCat(field, ": must be a finite number >= 0, got \"", node.Scalar(),
                                "\""));
    }
    return v;
  }
  // A price in USD per GPU-hour or per instance-hour: >= 0 and at most kMaxUsdPerHour.
  Result<double> Price(const YAML::Node& node, std::string_view field) const {
    GPUCOST_ASSIGN_OR_RETURN(double v, NonNegative(node, field));
    if (v > kMaxUsdPerHour) {
      return Error(
          node, StrCat(field, ": must be at most ", kMaxUsdPerHourText,
                       " USD an hour (docs/pricing.md, \"Limits\"), got \"", node.Scalar(), "\""));
    }
    return v;
  }
  // A discount or share: 0 <= x < 1 (a 100 % discount would make capacity free, which is never
  // what a price file means).
  Result<double> Fraction(const YAML::Node& node, std::string_view field) const {
    GPUCOST_ASSIGN_OR_RETURN(double v, Number(node, field));
    if (!std::isfinite(v) || v < 0 || v >= 1) {
      return Error(node, StrCat(field, ": must be a fraction in [0, 1), got \"", node.Scalar(),
                                "\""));
    }
    return v;
  }
  Result<Instant> Time(const YAML::Node& node, std::string_view field) const {
    GPUCOST_ASSIGN_OR_RETURN(std::string text, String(node, field));
    auto t = ParseInstant(text);
    if (!t.ok()) {
      return Error(node, StrCat(field, ": not a date or time: \"", text,
                                "\" (expected 2026-10-01 or 2026-10-01T00:00:00Z)"));
    }
    return *t;
  }
};

// Parses `text` and hands the root to `read`, turning yaml-cpp exceptions into ParseErrors that
// name the line and column.
template <typename T, typename Fn>
Result<T> ParseYaml(std::string_view text, std::string_view source_name, Fn read) {
  const YamlContext cx{source_name};
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    if (!root || root.IsNull()) return Status::ParseError(StrCat(source_name, ": empty price file"));
    GPUCOST_RETURN_IF_ERROR(CheckUniqueYamlKeys(root, source_name));
    return read(cx, root);
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) return Status::ParseError(StrCat(source_name, ": ", e.msg));
    return Status::ParseError(
        StrCat(source_name, ":", e.mark.line + 1, ":", e.mark.column + 1, ": ", e.msg));
  }
}

// The whole file, or an IoError naming it.
Result<std::string> ReadTextFile(const std::string& path);

}  // namespace gpucost
