// The gpucost command tree: the top-level flags and every subcommand (main.cc parses it; the
// tests build the same tree).
#include "cli/build_info.h"
#include "cli/commands.h"

namespace gpucost::cli {

void AddGpucostCommands(CLI::App& app, int& exit_code) {
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
  AddVersionCommand(app, exit_code);
  AddDemoCommand(app, exit_code);
  AddReportCommand(app, exit_code);
  AddChargebackCommand(app, exit_code);
  AddAlertsCommand(app, exit_code);
  AddRulesCommand(app, exit_code);
  AddRecommendCommand(app, exit_code);
  AddWhatIfCommand(app, exit_code);
  AddLedgerCommand(app, exit_code);
  AddServeCommand(app, exit_code);
  AddConfigCommand(app, exit_code);
  AddParseCommand(app, exit_code);
  AddPricesCommand(app, exit_code);
  AddSimulateCommand(app, exit_code);
  AddAgentCommand(app, exit_code);
  AddKubeCommand(app, exit_code);
  AddGrafanaDashboardCommand(app, exit_code);
  AddUnitCostCommand(app, exit_code);
  AddCompletionCommand(app, exit_code);
}

}  // namespace gpucost::cli
