// `gpucost completion bash|zsh`: the scripts, loaded into the shells, offer the commands, flags
// and fixed values of the command tree.
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_app_util.h"
#include "cli/cli_test_util.h"
#include "cli/completion_script.h"

namespace {

using gpucost::testing_util::Contains;
using gpucost::testing_util::RunResult;
using gpucost::testing_util::RunShell;
using gpucost::testing_util::TempDir;

class Completion : public ::testing::Test {
 protected:
  Completion() {
    // What `gpucost completion bash` prints, once for all the questions below.
    const RunResult r = RunShell(std::string("'") + GPUCOST_BINARY + "' completion bash");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    script_ = dir_.Write("gpucost.bash", r.output);
  }

  // What bash offers for the command line `words` (a bash array's body; the cursor on the last).
  std::string BashOffers(const std::string& words) {
    const std::string test =
        dir_.Write("ask.sh", "source '" + script_ + "'\nCOMP_WORDS=(" + words +
                                 ")\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n_gpucost\n"
                                 "echo \"${COMPREPLY[*]}\"\n");
    const RunResult r = RunShell("bash '" + test + "' 2>&1");
    EXPECT_EQ(r.exit_code, 0) << words << "\n" << r.output;
    return " " + r.output.substr(0, r.output.find('\n')) + " ";
  }

  TempDir dir_;
  std::string script_;
};

TEST_F(Completion, BashOffersCommandsFlagsAndValues) {
  EXPECT_EQ(BashOffers("gpucost rep"), " report ");
  const std::string report_b = BashOffers("gpucost report --b");
  EXPECT_TRUE(Contains(report_b, " --by ")) << report_b;
  EXPECT_FALSE(Contains(report_b, " --input ")) << report_b;
  const std::string all = BashOffers("gpucost ''");
  EXPECT_TRUE(Contains(all, " version ")) << all;
  EXPECT_TRUE(Contains(all, " grafana-dashboard ")) << all;
  EXPECT_EQ(BashOffers("gpucost ledger w"), " write ");
  // An option's value is skipped on the way to the cursor: --input x is not a command.
  EXPECT_EQ(BashOffers("gpucost report --input x --form"), " --format ");
  EXPECT_EQ(BashOffers("gpucost report --format j"), " json ");
  EXPECT_EQ(BashOffers("gpucost report --format ''"), " table csv json focus ");
  EXPECT_EQ(BashOffers("gpucost completion ''"), " bash zsh ");
  EXPECT_EQ(BashOffers("gpucost chargeback --idle ''"), " separate proportional even ");
  const std::string dashboard = BashOffers("gpucost grafana-dashboard -");
  EXPECT_TRUE(Contains(dashboard, " -o ")) << dashboard;
  // No fixed values: nothing offered, and bash completes file names (complete -o default).
  EXPECT_EQ(BashOffers("gpucost report --input ''"), "  ");
}

TEST_F(Completion, ZshScriptOffersTheSame) {
  CLI::App app{"gpucost"};
  int exit_code = 0;
  gpucost::cli::AddGpucostCommands(app, exit_code);
  const std::string zsh = gpucost::cli::ZshCompletion(app, "gpucost");
  EXPECT_EQ(zsh.rfind("#compdef gpucost\n", 0), 0u) << zsh;
  EXPECT_TRUE(Contains(zsh, "compdef _gpucost gpucost")) << zsh;
  EXPECT_TRUE(Contains(zsh, "\"report --format\") echo \"table csv json focus\"")) << zsh;
  EXPECT_TRUE(Contains(zsh, "    \"ledger\") echo \"write info check\"")) << zsh;
  if (RunShell("command -v zsh >/dev/null").exit_code != 0) {
    GTEST_SKIP() << "zsh is not installed (scripts/install-deps.sh installs it): checked the "
                    "script's structure only";
  }
  const std::string file = dir_.Write("_gpucost", zsh);
  const RunResult check = RunShell("zsh -n '" + file + "' 2>&1");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  // Outside a completion widget: compadd and _files print what they are given (zsh itself
  // keeps the words that match what is typed).
  const std::string ask =
      dir_.Write("ask.zsh",
                 "compdef() { : }\ncompadd() { shift; print -r -- \"$*\" }\n"
                 "_files() { print -r -- FILES }\nsource '" +
                     file +
                     "'\n"
                     "words=(gpucost rep); CURRENT=2; _gpucost\n"
                     "words=(gpucost report --input x --format ''); CURRENT=6; _gpucost\n"
                     "words=(gpucost report --input ''); CURRENT=4; _gpucost\n"
                     "words=(gpucost ledger ''); CURRENT=3; _gpucost\n");
  const RunResult offers = RunShell("zsh -f '" + ask + "' 2>&1");
  ASSERT_EQ(offers.exit_code, 0) << offers.output;
  EXPECT_TRUE(Contains(offers.output, " report chargeback ")) << offers.output;
  EXPECT_TRUE(Contains(offers.output, "\ntable csv json focus\nFILES\nwrite info check\n"))
      << offers.output;
}

}  // namespace
