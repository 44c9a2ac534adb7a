// gpucost: who requested what share of the GPUs, who used it, what it cost, what was wasted.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"gpucost: exact GPU cost attribution for shared Kubernetes and Slurm clusters"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");
  int exit_code = 0;
  gpucost::cli::AddVersionCommand(app, exit_code);
  gpucost::cli::AddDemoCommand(app, exit_code);
  gpucost::cli::AddReportCommand(app, exit_code);
  gpucost::cli::AddChargebackCommand(app, exit_code);
  gpucost::cli::AddAlertsCommand(app, exit_code);
  gpucost::cli::AddRulesCommand(app, exit_code);
  gpucost::cli::AddRecommendCommand(app, exit_code);
  gpucost::cli::AddWhatIfCommand(app, exit_code);
  gpucost::cli::AddLedgerCommand(app, exit_code);
  gpucost::cli::AddServeCommand(app, exit_code);
  gpucost::cli::AddConfigCommand(app, exit_code);
  gpucost::cli::AddParseCommand(app, exit_code);
  gpucost::cli::AddPricesCommand(app, exit_code);
  gpucost::cli::AddSimulateCommand(app, exit_code);
  gpucost::cli::AddAgentCommand(app, exit_code);
  gpucost::cli::AddKubeCommand(app, exit_code);
  gpucost::cli::AddGrafanaDashboardCommand(app, exit_code);
  gpucost::cli::AddUnitCostCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}
