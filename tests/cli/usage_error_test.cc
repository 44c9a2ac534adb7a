// The command-line conventions of gpucost: every command line that cannot run exits 2 with one
// line that names the word and a hint to run --help; bare gpucost prints help; --version and
// `version` say the version, commit and build date; the same flag works the same everywhere.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "cli/cli_app_util.h"
#include "cli/cli_test_util.h"

namespace {

using gpucost::cli::NearestName;
using gpucost::testing_util::Contains;
using gpucost::testing_util::ParseAnswer;
using gpucost::testing_util::ParseGpucost;
using gpucost::testing_util::RunResult;
using gpucost::testing_util::RunShell;
using gpucost::testing_util::TempDir;

RunResult RunGpucostLine(const std::string& args) {
  return RunShell(std::string("'") + GPUCOST_BINARY + "' " + args + " 2>&1");
}

struct UsageCase {
  std::vector<std::string> args;
  std::string err;  // all of stderr: the error line and the hint
};

TEST(UsageErrors, ExitTwoWithOneLineAndAHint) {
  const std::vector<UsageCase> cases = {
      {{"grafana-dashbord"},
       "gpucost: unknown command 'grafana-dashbord'; did you mean 'grafana-dashboard'?\n"
       "run 'gpucost --help'\n"},
      {{"--bogus"}, "gpucost: unknown flag '--bogus'\nrun 'gpucost --help'\n"},
      // The unknown flag is the news, not the --input it also lacks.
      {{"report", "--bb"},
       "gpucost report: unknown flag '--bb'; did you mean '--by'?\nrun 'gpucost report --help'\n"},
      {{"rules", "--outptu=x"},
       "gpucost rules: unknown flag '--outptu'; did you mean '--output'?\n"
       "run 'gpucost rules --help'\n"},
      {{"rules", "extra"},
       "gpucost rules: unexpected argument 'extra'\nrun 'gpucost rules --help'\n"},
      {{"report", "--input"},
       "gpucost report: --input: 1 required TEXT missing\nrun 'gpucost report --help'\n"},
      {{"rules", "--format", "yaml"},
       "gpucost rules: --format: yaml not in {prometheus-rule,rules}\n"
       "run 'gpucost rules --help'\n"},
      {{"alerts", "--format", "yaml"},
       "gpucost alerts: --format: yaml not in {text,json}\nrun 'gpucost alerts --help'\n"},
      {{"ledger", "wirte"},
       "gpucost ledger: unknown command 'wirte'; did you mean 'write'?\n"
       "run 'gpucost ledger --help'\n"},
      {{"ledger", "write", "--inptu", "x"},
       "gpucost ledger write: unknown flag '--inptu'; did you mean '--input'?\n"
       "run 'gpucost ledger write --help'\n"},
      // Values checked while parsing: the flag named, and the nearest dimension.
      {{"report", "--by", "team,teem"},
       "gpucost report: --by: unknown dimension \"teem\" (expected cluster, node, namespace, team, "
       "workload, workload_kind, pod, container, gpu_model, mig_profile, capacity_type, "
       "unit_kind, label:KEY); did you mean \"team\"?\nrun 'gpucost report --help'\n"},
      {{"chargeback", "--window", "2026-10-02,2026-10-01"},
       "gpucost chargeback: --window: bad window \"2026-10-02,2026-10-01\": END must be after "
       "START\nrun 'gpucost chargeback --help'\n"},
      {{"report", "--slurm-gpus-per-node", "-1"},
       "gpucost report: --slurm-gpus-per-node: Value -1 not in range 0 to 65536\n"
       "run 'gpucost report --help'\n"},
      {{"completion", "fish"},
       "gpucost completion: shell: fish not in {bash,zsh}\nrun 'gpucost completion --help'\n"},
      // A password in an echoed argument is not shown.
      {{"rules", "postgresql://finops:S3cret-pw@db:5432/costs"},
       "gpucost rules: unexpected argument 'postgresql://finops:***@db:5432/costs'\n"
       "run 'gpucost rules --help'\n"},
  };
  for (const UsageCase& c : cases) {
    const ParseAnswer a = ParseGpucost(c.args);
    EXPECT_EQ(a.exit_code, 2) << c.args[0];
    EXPECT_EQ(a.err, c.err) << c.args[0];
    EXPECT_EQ(a.out, "") << c.args[0];
  }
}

// Every command and subcommand (ledger write, config docs, ...) of the tree.
void CommandPaths(const CLI::App& cmd, std::vector<std::string> path,
                  std::vector<std::vector<std::string>>& out) {
  for (const CLI::App* sub : cmd.get_subcommands([](const CLI::App*) { return true; })) {
    std::vector<std::string> sub_path = path;
    sub_path.push_back(sub->get_name());
    out.push_back(sub_path);
    CommandPaths(*sub, sub_path, out);
  }
}

TEST(UsageErrors, EveryCommandExitsTwoOnAnUnknownFlag) {
  CLI::App app{"gpucost"};
  int exit_code = 0;
  gpucost::cli::AddGpucostCommands(app, exit_code);
  std::vector<std::vector<std::string>> paths;
  CommandPaths(app, {}, paths);
  for (std::vector<std::string> args : paths) {
    std::string name = "gpucost";
    for (const std::string& a : args) name += " " + a;
    args.push_back("--no-such-flag");
    const ParseAnswer a = ParseGpucost(args);
    EXPECT_EQ(a.exit_code, 2) << name;
    EXPECT_EQ(a.err, name + ": unknown flag '--no-such-flag'\nrun '" + name + " --help'\n");
  }
  EXPECT_GE(paths.size(), 24u);  // 19 commands, ledger's 3 and config's 2
}

TEST(UsageErrors, NearestName) {
  const std::vector<std::string> names = {"report", "rules", "recommend", "version", "serve"};
  EXPECT_EQ(NearestName("reprot", names), "report");
  EXPECT_EQ(NearestName("rport", names), "report");
  EXPECT_EQ(NearestName("rule", names), "rules");
  EXPECT_EQ(NearestName("recomend", names), "recommend");
  EXPECT_EQ(NearestName("vers", names), "version");  // a prefix
  EXPECT_EQ(NearestName("zzz", names), "");
  EXPECT_EQ(NearestName("kubectl", names), "");
}

// The real binary: the exit status and which stream gets what.
TEST(UsageErrors, TheBinaryAnswersTheSame) {
  const RunResult misspelt =
      RunShell(std::string("'") + GPUCOST_BINARY + "' reprot 2>&1 >/dev/null");
  EXPECT_EQ(misspelt.exit_code, 2) << misspelt.output;
  EXPECT_EQ(misspelt.output,
            "gpucost: unknown command 'reprot'; did you mean 'report'?\nrun 'gpucost --help'\n");
  // Bare gpucost: the commands on stdout, exit 2.
  const RunResult bare = RunShell(std::string("'") + GPUCOST_BINARY + "' 2>/dev/null");
  EXPECT_EQ(bare.exit_code, 2) << bare.output;
  EXPECT_TRUE(Contains(bare.output, "completion")) << bare.output;
  EXPECT_TRUE(Contains(bare.output, "Exit status:")) << bare.output;
  EXPECT_FALSE(Contains(bare.output, "A subcommand is required")) << bare.output;
}

TEST(UsageErrors, ACommandWithoutItsSubcommandPrintsItsHelp) {
  const ParseAnswer ledger = ParseGpucost({"ledger"});
  EXPECT_EQ(ledger.exit_code, 2);
  EXPECT_TRUE(Contains(ledger.out, "write")) << ledger.out;
  EXPECT_EQ(ParseGpucost({"--help"}).exit_code, 0);
  EXPECT_EQ(ParseGpucost({"report", "--help"}).exit_code, 0);
}

// An error while running exits 2 as well, in the agent too (its --probe without NVML).
TEST(UsageErrors, AnErrorWhileRunningExitsTwo) {
  const RunResult probe =
      RunGpucostLine("agent --probe 1 --nvml-library /nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(probe.exit_code, 2) << probe.output;
  EXPECT_TRUE(Contains(probe.output, "/nonexistent/libnvidia-ml.so.1")) << probe.output;
}

TEST(Version, FlagAndCommandSayVersionCommitAndDate) {
  const RunResult flag = RunGpucostLine("--version");
  const RunResult cmd = RunGpucostLine("version");
  ASSERT_EQ(flag.exit_code, 0) << flag.output;
  ASSERT_EQ(cmd.exit_code, 0) << cmd.output;
  EXPECT_EQ(flag.output, cmd.output);
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      cmd.output, m,
      std::regex(
          R"(gpucost (\d+\.\d+\.\d+) \(commit ([0-9a-f]{4,}|unknown), built (\d{4}-\d\d-\d\d)\)\n)")))
      << cmd.output;
  // Built from a git checkout, the commit is one of the checkout's (HEAD when built; a commit
  // since, without a build, leaves the binary on its own).
  const RunResult git =
      RunShell(std::string("git -C '") + GPUCOST_SOURCE_DIR + "' rev-parse --git-dir 2>/dev/null");
  if (git.exit_code == 0) {
    ASSERT_NE(m[2].str(), "unknown");
    EXPECT_EQ(RunShell(std::string("git -C '") + GPUCOST_SOURCE_DIR + "' cat-file -e " +
                       m[2].str() + "^{commit}")
                  .exit_code,
              0)
        << m[2].str();
  }
  const RunResult json = RunGpucostLine("version --json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const nlohmann::json j = nlohmann::json::parse(json.output);
  EXPECT_EQ(j["version"], m[1].str());
  EXPECT_EQ(j["commit"], m[2].str());
  EXPECT_EQ(j["build_date"], m[3].str());
}

TEST(SameFlags, OutputFileAndFormatNamesEverywhere) {
  const TempDir dir;
  const std::string rules = (dir.path() / "rules.yaml").string();
  const std::string dash = (dir.path() / "dash.json").string();
  const std::string sim = (dir.path() / "sim.prom").string();
  EXPECT_EQ(RunGpucostLine("rules -o '" + rules + "'").exit_code, 0);
  EXPECT_EQ(RunGpucostLine("grafana-dashboard -o '" + dash + "'").exit_code, 0);
  const RunResult s =
      RunGpucostLine("simulate --nodes 1 --duration 2m -o '" + sim + "' --format text");
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_TRUE(Contains(dir.Read("rules.yaml"), "groups:"));
  EXPECT_TRUE(Contains(dir.Read("dash.json"), "\"panels\""));
  EXPECT_TRUE(Contains(dir.Read("sim.prom"), "kube_node_labels{"));
  EXPECT_FALSE(Contains(dir.Read("sim.prom"), "# EOF"));  // text, not OpenMetrics
  // "text" and "table" name the same format, wherever either is one.
  const std::string input =
      std::string(" --input '") + GPUCOST_SOURCE_DIR + "/tests/golden/cases/whole_gpu/input'";
  const RunResult table = RunGpucostLine("report --accumulate --format table" + input);
  const RunResult text = RunGpucostLine("report --accumulate --format text" + input);
  EXPECT_EQ(table.exit_code, 0) << table.output;
  EXPECT_EQ(text.output, table.output);
}

}  // namespace
