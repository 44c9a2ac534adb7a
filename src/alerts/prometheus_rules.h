// Writes the rule catalogue as Prometheus alerting rules (`gpucost rules`, docs/alerts.md): a
// Prometheus Operator PrometheusRule (apiVersion monitoring.coreos.com/v1) or a plain rule file
// for Prometheus' rule_files, with the thresholds of the given settings. Pure; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "alerts/alert_settings.h"
#include "core/result.h"

namespace gpucost::alerts {

enum class RulesFormat : uint8_t { kPrometheusRule, kRules };
Result<RulesFormat> ParseRulesFormat(std::string_view text);

struct RulesOptions {
  RulesFormat format = RulesFormat::kPrometheusRule;
  std::string name = "gpucost";             // metadata.name of the PrometheusRule
  std::string namespace_name;               // metadata.namespace; "" leaves it out
  std::map<std::string, std::string> labels;  // metadata.labels (e.g. the operator's ruleSelector)
  std::vector<std::string> groups;          // the groups written; empty: every group
};

// The YAML document. InvalidArgument for an unknown group.
Result<std::string> WriteRules(const AlertSettings& settings, const RulesOptions& options);

}  // namespace gpucost::alerts
