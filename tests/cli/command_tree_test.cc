// main.cc builds only the command a command line runs (cli::CommandToBuild): each command built
// alone is the command of the whole tree, flag for flag, and the command lines that need the
// whole tree (none, a flag first, config, completion, --help-all, a misspelt command) get it.
// The usage-error tests (usage_error_test.cc) parse against the tree main.cc builds, too.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"

namespace {

using gpucost::cli::AddGpucostCommands;
using gpucost::cli::CommandToBuild;

std::string_view Pick(const std::vector<const char*>& argv) {
  return CommandToBuild(static_cast<int>(argv.size()), argv.data());
}

// A command's help, and its subcommands' (ledger write, config docs...), as one text.
std::string HelpOfTree(const CLI::App& command) {
  std::string text = command.help();
  for (const CLI::App* sub : command.get_subcommands({})) text += HelpOfTree(*sub);
  return text;
}

TEST(CommandTree, EachCommandAloneIsTheWholeTreesCommand) {
  CLI::App whole{"gpucost"};
  int exit_code = 0;
  AddGpucostCommands(whole, exit_code);
  const std::vector<CLI::App*> commands = whole.get_subcommands({});
  ASSERT_GE(commands.size(), 19u);
  for (const CLI::App* command : commands) {
    const std::string name = command->get_name();
    SCOPED_TRACE(name);
    const std::vector<const char*> argv = {"gpucost", name.c_str(), "--flag"};
    const std::string_view picked = Pick(argv);
    if (name == "config" || name == "completion") {
      EXPECT_EQ(picked, "");  // they read the other commands
      continue;
    }
    ASSERT_EQ(picked, name);
    CLI::App alone{"gpucost"};
    AddGpucostCommands(alone, exit_code, picked);
    const std::vector<CLI::App*> built = alone.get_subcommands({});
    ASSERT_EQ(built.size(), 1u);
    EXPECT_EQ(built[0]->get_name(), name);
    EXPECT_EQ(HelpOfTree(*built[0]), HelpOfTree(*command));
    EXPECT_EQ(alone.get_footer(), whole.get_footer());
  }
}

TEST(CommandTree, CommandLinesThatSeeOtherCommandsGetTheWholeTree) {
  EXPECT_EQ(Pick({"gpucost"}), "");
  EXPECT_EQ(Pick({"gpucost", "--help"}), "");
  EXPECT_EQ(Pick({"gpucost", "--version"}), "");
  EXPECT_EQ(Pick({"gpucost", "--help", "report"}), "");
  EXPECT_EQ(Pick({"gpucost", "report", "--help-all"}), "");
  EXPECT_EQ(Pick({"gpucost", "reprot"}), "");
  EXPECT_EQ(Pick({"gpucost", "config", "docs", "serve"}), "");
  EXPECT_EQ(Pick({"gpucost", "completion", "bash"}), "");
  EXPECT_EQ(Pick({"gpucost", "ledger", "write", "x.db"}), "ledger");
  EXPECT_EQ(Pick({"gpucost", "report", "--help"}), "report");
}

}  // namespace
