// `gpucost grafana-dashboard`: writes the Grafana dashboard of gpucost's exported metrics
// (docs/grafana.md) to stdout or a file.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/strings.h"
#include "monitoring/dashboard.h"

namespace gpucost::cli {
namespace {

struct GrafanaFlags {
  monitoring::DashboardOptions dashboard;
  std::string output = "-";
};

Status Run(const GrafanaFlags& flags) {
  if (flags.dashboard.uid.empty() || flags.dashboard.uid.size() > 40) {
    return Status::InvalidArgument("--uid must be 1 to 40 characters (Grafana's limit)");
  }
  if (flags.dashboard.title.empty()) return Status::InvalidArgument("--title must not be empty");
  const std::string text = monitoring::DashboardJson(flags.dashboard);
  if (flags.output == "-") {
    std::cout << text;
    return std::cout ? Status::Ok() : Status::IoError("stdout: write failed");
  }
  std::ofstream out(flags.output, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IoError(StrCat(flags.output, ": cannot open for writing"));
  out << text;
  out.close();
  if (!out) return Status::IoError(StrCat(flags.output, ": write failed"));
  return Status::Ok();
}

}  // namespace

void AddGrafanaDashboardCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<GrafanaFlags>();
  CLI::App* cmd = app.add_subcommand(
      "grafana-dashboard",
      "Write a Grafana (10+) dashboard of gpucost's metrics: cost per team over time, top "
      "workloads, efficiency, spot ratio, unmeasured GPUs, idle capacity, budgets, health");
  cmd->add_option("--title", f->dashboard.title, "Dashboard title")->capture_default_str();
  cmd->add_option("--uid", f->dashboard.uid, "Dashboard uid (stable across re-imports)")
      ->capture_default_str();
  cmd->add_option("--datasource-uid", f->dashboard.datasource_uid,
                  "Uid of the Prometheus datasource; default: chosen in Grafana's import dialog "
                  "(DS_PROMETHEUS input)");
  cmd->add_option("--output,-o", f->output, "Write to this file; - is stdout")
      ->capture_default_str();
  cmd->footer("Import: Dashboards > New > Import, or the provisioning folder (docs/grafana.md).");
  SetStatusCallback(*cmd, exit_code, [f] { return Run(*f); });
}

}  // namespace gpucost::cli
