// `gpucost rules`: writes the built-in alert rules (docs/alerts.md) as a Prometheus Operator
// PrometheusRule or a plain Prometheus rule file, over gpucost's metrics, dcgm-exporter's and
// Kueue's, with the same threshold flags as `gpucost alerts`.
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "alerts/alert_settings.h"
#include "alerts/prometheus_rules.h"
#include "cli/commands.h"
#include "cli/format_flag.h"
#include "core/strings.h"

namespace gpucost::cli {
namespace {

struct RulesFlags {
  std::string format = "prometheus-rule";
  std::string name = "gpucost";
  std::string namespace_name;
  std::vector<std::string> labels;  // KEY=VALUE
  std::string groups;
  std::string output = "-";
  std::map<std::string, std::string> settings;
};

Status Run(const RulesFlags& flags) {
  alerts::AlertSettings settings;
  for (const auto& [name, text] : flags.settings) {
    if (!text.empty()) GPUCOST_RETURN_IF_ERROR(alerts::SetAlertSetting(settings, name, text));
  }
  alerts::RulesOptions options;
  GPUCOST_ASSIGN_OR_RETURN(options.format, alerts::ParseRulesFormat(flags.format));
  options.name = flags.name;
  options.namespace_name = flags.namespace_name;
  for (const std::string& l : flags.labels) {
    const size_t eq = l.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument(StrCat("--label \"", l, "\": expected KEY=VALUE"));
    }
    options.labels[l.substr(0, eq)] = l.substr(eq + 1);
  }
  options.groups = SplitList(flags.groups);
  GPUCOST_ASSIGN_OR_RETURN(std::string yaml, alerts::WriteRules(settings, options));
  if (flags.output.empty() || flags.output == "-") {
    std::cout << yaml;
    return Status::Ok();
  }
  std::ofstream out(flags.output, std::ios::binary);
  out << yaml;
  out.close();
  if (!out) return Status::IoError(StrCat("--output ", flags.output, ": cannot write"));
  return Status::Ok();
}

}  // namespace

void AddRulesCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<RulesFlags>();
  CLI::App* cmd = app.add_subcommand(
      "rules",
      "Write the built-in alert rules as a PrometheusRule (or a plain Prometheus rule file) over "
      "gpucost's, dcgm-exporter's and Kueue's metrics");
  AddFormatOption(*cmd, f->format, {"prometheus-rule", "rules"});
  cmd->add_option("--name", f->name, "metadata.name of the PrometheusRule")->capture_default_str();
  cmd->add_option("--namespace", f->namespace_name, "metadata.namespace of the PrometheusRule");
  cmd->add_option("--label", f->labels,
                  "KEY=VALUE metadata label of the PrometheusRule (repeatable), e.g. the "
                  "Prometheus Operator's ruleSelector");
  cmd->add_option(
      "--groups", f->groups,
      "Groups to write, comma-separated: gpucost, gpucost-dcgm, gpucost-kueue, gpucost-serve "
      "(default: all)");
  cmd->add_option("--output,-o", f->output, "Write to this file; - is stdout")
      ->capture_default_str();
  for (const alerts::SettingDef& d : alerts::AlertSettingDefs()) {
    cmd->add_option(StrCat("--", d.name), f->settings[std::string(d.name)], std::string(d.help))
        ->default_str(std::string(d.default_text));
  }
  cmd->footer("Exit status: 0 on success, 2 on bad flags.");
  SetStatusCallback(*cmd, exit_code, [f] { return Run(*f); });
}

}  // namespace gpucost::cli
