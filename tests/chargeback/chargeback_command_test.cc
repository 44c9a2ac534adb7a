// `gpucost chargeback` as a user runs it: the golden statement of issue 8 from its dataset
// (golden/ml_research_2026_10, written by golden/generate.py), every format, Slurm jobs under
// their account, and errors that name what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;

const std::string kCase =
    std::string(GPUCOST_SOURCE_DIR) + "/tests/chargeback/golden/ml_research_2026_10";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The case's own flags (`args`, with ${CASE} standing for its folder) plus `extra`.
RunResult Chargeback(const std::string& extra, bool with_stderr = false) {
  std::string args = ReadFile(kCase + "/args");
  while (!args.empty() && (args.back() == '\n' || args.back() == ' ')) args.pop_back();
  for (size_t p = args.find("${CASE}"); p != std::string::npos; p = args.find("${CASE}")) {
    args.replace(p, 7, kCase);
  }
  return RunShell(kBinary + " chargeback --input " + kCase + "/input " + args + " " + extra +
                  (with_stderr ? " 2>&1" : " 2>/dev/null"));
}

TEST(ChargebackGolden, TheIssuesStatementToTheCent) {
  const RunResult r = Chargeback("--team ml-research");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, ReadFile(kCase + "/expected.txt"));
}

TEST(ChargebackGolden, JsonCarriesTheSameNumbers) {
  const RunResult r = Chargeback("--team ml-research --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json doc = nlohmann::json::parse(r.output);
  ASSERT_EQ(doc["statements"].size(), 1u);
  const nlohmann::json& s = doc["statements"][0];
  EXPECT_DOUBLE_EQ(s["total_usd"].get<double>(), 3428.67);
  EXPECT_NEAR(s["gpu_hours"].get<double>(), 2847, 1e-9);
  EXPECT_NEAR(s["allocated_usd"].get<double>(), 3428.67, 1e-9);
  EXPECT_NEAR(s["idle_gpu_hours"].get<double>(), 423, 1e-9);
  EXPECT_NEAR(s["idle_usd"].get<double>(), 495.09, 1e-9);
  // 308 x 3.06 x 0.995 + 1200 x 1.17 x 0.99 + 130 x 1.17 x 0.99 + 350 x 1.17 x 0.02
  // + 195 x 1.17 + 591 x 0.35 x 0.98 (README.md of the case)
  const double effective = 308 * 3.06 * 0.995 + 1200 * 1.17 * 0.99 + 130 * 1.17 * 0.99 +
                           350 * 1.17 * 0.02 + 195 * 1.17 + 591 * 0.35 * 0.98;
  EXPECT_NEAR(s["effective_usd"].get<double>(), effective, 1e-9);
  EXPECT_NEAR(s["efficiency"].get<double>(), effective / 3428.67, 1e-12);
  EXPECT_NEAR(s["spot_ratio"].get<double>(), 2535.0 / 2847, 1e-12);
  EXPECT_EQ(s["prices_known"], true);
  ASSERT_EQ(s["lines"].size(), 3u);
  const double amounts[] = {954.72, 2263.95, 210.00};
  const double rates[] = {3.06, 1.17, 0.35};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(s["lines"][i]["amount_usd"].get<double>(), amounts[i]);
    EXPECT_DOUBLE_EQ(s["lines"][i]["rate_usd_per_gpu_hour"].get<double>(), rates[i]);
  }
  EXPECT_EQ(s["workloads"][0]["workload"], "training-llama-ft-v3");
  EXPECT_DOUBLE_EQ(s["workloads"][0]["amount_usd"].get<double>(), 1404.00);
  EXPECT_EQ(s["days"].size(), 31u);
}

TEST(ChargebackCommand, EveryTeamWithUnknownPricesSaidSo) {
  const RunResult r = Chargeback("--by team");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "Monthly GPU Report — ml-research\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Monthly GPU Report — search\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "└── T4 on-demand: 100 hrs × $0.53 = $53.00\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "└── H100 on-demand: 10.0 hrs × unknown price = unknown\n"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "Total: unknown (no price for 10.0 hrs)\n")) << r.output;
}

// A month's statement from one day of data says which part of the month its money covers, in
// every format that prints the period, and a complete one says nothing more.
TEST(ChargebackCommand, AStatementSaysWhatPartOfThePeriodTheDataCovers) {
  testing_util::TempDir dir;
  const std::string input = (dir.path() / "day.om").string();
  const RunResult sim = RunShell(kBinary + " simulate --nodes 2 --duration 1d --seed 4 --out " +
                                 input + " 2>&1");
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  const std::string base = kBinary + " chargeback --input " + input +
                           " --by team --price-per-gpu-hour 2 ";
  const std::string note =
      "(data covers 2026-10-01T00:00:00Z to 2026-10-02T00:00:00Z only; the rest is not charged)";
  RunResult r = RunShell(base + "--month 2026-10 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "Period: 2026-10-01T00:00:00Z to 2026-11-01T00:00:00Z " + note))
      << r.output;
  r = RunShell(base + "--month 2026-10 --format markdown 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, note)) << r.output;
  // The HTML page says the same for people: days, the last one included.
  r = RunShell(base + "--month 2026-10 --format html 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "Oct 1\u2013Oct 31, 2026 (data covers Oct 1, 2026 only; the "
                       "rest is not charged)"))
      << r.output;
  r = RunShell(base + "--month 2026-10 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc["covered"]["hours"].get<double>(), 24);
  EXPECT_FALSE(doc["covered"]["complete"].get<bool>());
  // The day itself: complete, no note.
  r = RunShell(base + "--window 2026-10-01T00:00:00Z,2026-10-02T00:00:00Z 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(Contains(r.output, "data covers")) << r.output;
}

TEST(ChargebackCommand, EveryFormat) {
  RunResult r = Chargeback("--team ml-research --format markdown");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.output, "| A100 spot | 1,935 | $1.17 | $2,263.95 |")) << r.output;
  r = Chargeback("--team ml-research --format csv");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.output, ",2263.95,")) << r.output;
  r = Chargeback("--team ml-research --format html");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_FALSE(Contains(r.output, "http"));
  EXPECT_TRUE(Contains(r.output, "<td class=\"n\">$3,428.67</td>")) << r.output;
}

// Slurm jobs are holders like pods: each appears under its team (the account), beside the
// Kubernetes team. The data of `gpucost report`'s Kubernetes + Slurm test, at $4/GPU-hour.
TEST(ChargebackCommand, SlurmJobsUnderTheirAccount) {
  const std::string src = GPUCOST_SOURCE_DIR;
  const RunResult r = RunShell(
      kBinary + " chargeback --by team --input " + src + "/tests/golden/cases/whole_gpu/input" +
      " --slurm-sacct " + src + "/tests/cli/data/report/sacct_mixed.txt" +
      " --slurm-time-zone UTC --slurm-gpus-per-node 2 --window 1790812800,1790813400" +
      " --price-per-gpu-hour 4 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json doc = nlohmann::json::parse(r.output);
  std::map<std::string, double> total;
  for (const auto& s : doc["statements"]) total[s["team"]] = s["allocated_usd"].get<double>();
  ASSERT_EQ(total.size(), 3u) << r.output;
  EXPECT_NEAR(total["ml"], 4.0 / 6, 1e-9);
  EXPECT_NEAR(total["physics"], 4 * 5.0 / 60, 1e-9);   // job 501: 1 GPU, 5 minutes
  EXPECT_NEAR(total["chemistry"], 2 * 4.0 / 6, 1e-9);  // job 502: 2 GPUs, all window
  EXPECT_TRUE(doc["period"]["month"].is_null());
}

// The cluster summary under the statements: a part whose hours have no price at all is
// "unknown" (JSON null), never $0.00; one priced in part says "+ unknown".
TEST(ChargebackCommand, TheClusterSummaryNeverShowsUnknownMoneyAsZero) {
  testing_util::TempDir dir;
  const std::string input = (dir.path() / "demo.om").string();
  ASSERT_EQ(RunShell(kBinary + " demo --write-openmetrics " + input + " 2>&1").exit_code, 0);
  const std::string cmd = kBinary + " chargeback --input " + input + " --no-catalog --team bu-c";
  RunResult r = RunShell(cmd + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "1 team's statement:                      unknown\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Other teams:                             unknown\n")) << r.output;
  EXPECT_TRUE(Contains(r.output, "Total GPU cost: unknown\n")) << r.output;
  // The only $0.00 left is the idle of no hours (the demo's seven slices are all held).
  EXPECT_TRUE(Contains(r.output, "(0.00 GPU-hrs): $0.00\n")) << r.output;
  EXPECT_EQ(r.output.find("$0.00"), r.output.rfind("$0.00")) << r.output;
  r = RunShell(cmd + " --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json c = nlohmann::json::parse(r.output)["cluster"];
  EXPECT_TRUE(c["cost_usd"].is_null()) << c;
  EXPECT_TRUE(c["stated_teams_usd"].is_null()) << c;
  EXPECT_TRUE(c["other_teams_usd"].is_null()) << c;
  EXPECT_FALSE(c["prices_known"].get<bool>()) << c;

  // Priced in part: the demo node priced, a second node of another model not.
  const std::string sim = (dir.path() / "two.om").string();
  ASSERT_EQ(RunShell(kBinary + " simulate --nodes 2 --gpu-models h100-80gb:1,l4:1 --sharing " +
                     "whole:1 --duration 2h --seed 3 --out " + sim + " 2>&1")
                .exit_code,
            0);
  const std::string prices = (dir.path() / "prices.yaml").string();
  std::ofstream(prices) << "prices:\n  - match: {gpu_model: \"*H100*\"}\n"
                        << "    usd_per_gpu_hour: 6.88\ncatalog: none\n";
  r = RunShell(kBinary + " chargeback --input " + sim + " --prices " + prices +
               " --by team 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, " + unknown\n\u2514\u2500\u2500 Idle")) << r.output;
  const size_t total = r.output.find("Total GPU cost: $");
  ASSERT_NE(total, std::string::npos) << r.output;
  EXPECT_EQ(r.output.substr(r.output.find('\n', total) - 10, 10), " + unknown") << r.output;
}

// A month the input has no data in gives no statements of $0.00 (exit 0) but an error naming the
// period and what the input covers, for --by team as for --team.
TEST(ChargebackCommand, APeriodWithoutDataIsAnErrorNotZeroStatements) {
  testing_util::TempDir dir;
  const std::string input = (dir.path() / "demo.om").string();
  ASSERT_EQ(RunShell(kBinary + " demo --write-openmetrics " + input + " 2>&1").exit_code, 0);
  const RunResult r = RunShell(kBinary + " chargeback --input " + input +
                               " --price-per-gpu-hour 12 --by team --month 2026-11 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(Contains(r.output,
                       "the input has no data in the period 2026-11-01T00:00:00Z to "
                       "2026-12-01T00:00:00Z (it covers 2026-10-01T00:00:00Z to "
                       "2026-10-01T01:00:00Z): nothing to state"))
      << r.output;
  EXPECT_FALSE(Contains(r.output, "$0.00")) << r.output;
}

TEST(ChargebackCommand, ErrorsNameWhatIsWrong) {
  RunResult r = Chargeback("--team nope", true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "no GPU usage for team \"nope\"")) << r.output;
  EXPECT_TRUE(Contains(r.output, "teams: ml-research, platform, search")) << r.output;

  struct BadFlags {
    std::string args;
    std::string says;
  };
  const std::string input = " --input " + kCase + "/input";
  for (const BadFlags& bad : std::vector<BadFlags>{
           {"--team a --month 2026-13" + input, "bad month \"2026-13\""},
           {"--team a --by team" + input, "--team"},
           {"--by namespace" + input, "per team"},
           {"--team a --month 2026-10 --window 0,1" + input, "either --month or --window"},
           {"--team a --format pdf" + input, "pdf"},
           {"--team a --idle-threshold 150%" + input, "--idle-threshold"},
           {"--team a", "nothing to attribute"},
       }) {
    r = RunShell(kBinary + " chargeback " + bad.args + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << bad.args;
    EXPECT_TRUE(Contains(r.output, bad.says)) << bad.args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace gpucost
