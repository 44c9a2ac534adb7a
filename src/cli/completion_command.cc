// `gpucost completion bash|zsh`: prints a shell completion script written from the command tree
// (cli/completion_script.h).
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/completion_script.h"

namespace gpucost::cli {

void AddCompletionCommand(CLI::App& app, int& exit_code) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "completion", "Print a shell completion script (commands, flags and their fixed values)");
  cmd->add_option("shell", *shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  cmd->footer(
      "bash: gpucost completion bash > ~/.local/share/bash-completion/completions/gpucost\n"
      "      (or: source <(gpucost completion bash) in ~/.bashrc)\n"
      "zsh:  gpucost completion zsh > \"${fpath[1]}/_gpucost\"\n"
      "      (or: source <(gpucost completion zsh) in ~/.zshrc, after compinit)");
  cmd->callback([&app, &exit_code, shell] {
    const std::string program = app.get_name();
    std::cout << (*shell == "zsh" ? ZshCompletion(app, program) : BashCompletion(app, program));
    exit_code = std::cout ? 0 : 2;
  });
}

}  // namespace gpucost::cli
