// The subcommands of the gpucost binary. Each Add*Command registers its flags on `app` and a
// callback that stores the process exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string_view>

#include "core/status.h"

namespace gpucost::cli {

// The whole gpucost command tree on `app` (its name, --version, the footer, every subcommand);
// with `only` set, every top-level setting and that one command (CommandToBuild).
void AddGpucostCommands(CLI::App& app, int& exit_code, std::string_view only = {});

// The command a command line runs, when the tree it parses against needs no other: argv[1] when
// it names a command other than `config` and `completion` (they look at the other commands) and
// no --help-all follows; "" (the whole tree) for anything else: no command, a flag first, a
// misspelt command (the error lists the commands). Building one command's flags instead of every
// command's takes a third off a start under the sanitizers (docs/perf.md, "CI").
std::string_view CommandToBuild(int argc, const char* const* argv);

// The usual callback: runs `run`; an error is logged and exits 2, success exits 0.
void SetStatusCallback(CLI::App& cmd, int& exit_code, std::function<Status()> run);

void AddVersionCommand(CLI::App& app, int& exit_code);
void AddParseCommand(CLI::App& app, int& exit_code);
void AddReportCommand(CLI::App& app, int& exit_code);
void AddChargebackCommand(CLI::App& app, int& exit_code);
void AddAlertsCommand(CLI::App& app, int& exit_code);
void AddRulesCommand(CLI::App& app, int& exit_code);
void AddRecommendCommand(CLI::App& app, int& exit_code);
void AddWhatIfCommand(CLI::App& app, int& exit_code);
void AddLedgerCommand(CLI::App& app, int& exit_code);
void AddServeCommand(CLI::App& app, int& exit_code);
// Needs the commands that take --config (serve) registered on `app` first.
void AddConfigCommand(CLI::App& app, int& exit_code);
void AddDemoCommand(CLI::App& app, int& exit_code);
void AddPricesCommand(CLI::App& app, int& exit_code);
void AddSimulateCommand(CLI::App& app, int& exit_code);
void AddAgentCommand(CLI::App& app, int& exit_code);
void AddKubeCommand(CLI::App& app, int& exit_code);
void AddGrafanaDashboardCommand(CLI::App& app, int& exit_code);
void AddUnitCostCommand(CLI::App& app, int& exit_code);
// `completion bash|zsh`: walks the commands registered on `app` when it runs.
void AddCompletionCommand(CLI::App& app, int& exit_code);
// The agent's options and callback on `cmd` (the `agent` subcommand, or gpucost-agent's app).
void AddAgentOptions(CLI::App* cmd, int& exit_code);

}  // namespace gpucost::cli
