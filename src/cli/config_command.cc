// `gpucost config print-defaults|docs [COMMAND]`: the settings of a command that takes --config
// (serve), as a YAML file of defaults or as the Markdown of docs/config.md.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/config_file.h"
#include "core/result.h"
#include "core/strings.h"

namespace gpucost::cli {
namespace {

Result<const CLI::App*> ConfigurableCommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name && sub->get_option_no_throw("--config") != nullptr) return sub;
  }
  return Status::InvalidArgument(
      StrCat("gpucost ", name, " takes no configuration file (gpucost serve does)"));
}

}  // namespace

void AddConfigCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("config", "The settings of gpucost serve: defaults and docs");
  cmd->require_subcommand(1);
  for (const bool markdown : {false, true}) {
    auto command = std::make_shared<std::string>("serve");
    CLI::App* sub = cmd->add_subcommand(
        markdown ? "docs" : "print-defaults",
        markdown ? "Print the Markdown reference of a command's settings (docs/config.md)"
                 : "Print a YAML configuration file of every setting with its default");
    sub->add_option("command", *command, "The command whose settings to print")
        ->capture_default_str();
    SetStatusCallback(*sub, exit_code, [&app, command, markdown]() -> Status {
      GPUCOST_ASSIGN_OR_RETURN(const CLI::App* target, ConfigurableCommand(app, *command));
      std::cout << (markdown ? ConfigMarkdown(*target) : DefaultsYaml(*target));
      return Status::Ok();
    });
  }
}

}  // namespace gpucost::cli
