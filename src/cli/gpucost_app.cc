// The gpucost command tree: the top-level flags and every subcommand (main.cc parses it; the
// tests build the same tree), or, for a command line that runs one command, that command alone.
#include <array>
#include <string_view>

#include "cli/build_info.h"
#include "cli/commands.h"

namespace gpucost::cli {

namespace {

struct Command {
  std::string_view name;
  void (*add)(CLI::App& app, int& exit_code);
};

// In the order of `gpucost --help`. Each adds the one subcommand it is named after.
constexpr std::array<Command, 19> kCommands = {{
    {"version", AddVersionCommand},
    {"demo", AddDemoCommand},
    {"report", AddReportCommand},
    {"chargeback", AddChargebackCommand},
    {"alerts", AddAlertsCommand},
    {"rules", AddRulesCommand},
    {"recommend", AddRecommendCommand},
    {"whatif", AddWhatIfCommand},
    {"ledger", AddLedgerCommand},
    {"serve", AddServeCommand},
    {"config", AddConfigCommand},  // after serve: it prints the settings of the commands before it
    {"parse", AddParseCommand},
    {"prices", AddPricesCommand},
    {"simulate", AddSimulateCommand},
    {"agent", AddAgentCommand},
    {"kube", AddKubeCommand},
    {"grafana-dashboard", AddGrafanaDashboardCommand},
    {"unit-cost", AddUnitCostCommand},
    {"completion", AddCompletionCommand},  // last: it walks every command added before it
}};

}  // namespace

std::string_view CommandToBuild(int argc, const char* const* argv) {
  if (argc < 2 || argv[1] == nullptr) return {};
  const std::string_view first = argv[1];
  if (first == "config" || first == "completion") return {};
  for (int i = 2; i < argc; ++i) {
    if (argv[i] != nullptr && std::string_view(argv[i]) == "--help-all") return {};
  }
  for (const Command& command : kCommands) {
    if (command.name == first) return command.name;
  }
  return {};
}

void AddGpucostCommands(CLI::App& app, int& exit_code, std::string_view only) {
  app.name("gpucost");
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");
  app.set_version_flag("--version", VersionLine(),
                       "Print the version, git commit and build date, and exit");
  app.footer(
      "Run 'gpucost COMMAND --help' for a command's flags. Without a command, gpucost prints this "
      "help and exits 2.\n"
      "Exit status: 0 success; 1 a finding the command reports (alerts: an alert fires; parse: "
      "malformed lines); 2 a command line that cannot run (an unknown command or flag, a bad or "
      "missing value), or an error while running.");
  for (const Command& command : kCommands) {
    if (only.empty() || command.name == only) command.add(app, exit_code);
  }
}

}  // namespace gpucost::cli
