// `gpucost recommend` and `gpucost whatif` as a user runs them, on the built-in demo cluster's
// input: the recommendation's dollars are checked against `gpucost report`'s own per-step rows
// of the same input (a different code path), and bad flags give clear errors.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using nlohmann::json;
using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

class AdviseCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    input_ = (dir_.path() / "demo.om").string();
    const RunResult r = RunShell(kBinary + " demo --write-openmetrics " + input_ + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  RunResult Gpucost(const std::string& args) {
    return RunShell(kBinary + " " + args + " --input " + input_ + " --price-per-gpu-hour 12 2>&1");
  }
  // Three hours of two nodes of whole GPUs of `models` (simulate's --gpu-models), in dir_.
  std::string SimulateWhole(const std::string& name, const std::string& models) {
    const std::string sim = (dir_.path() / name).string();
    const RunResult r =
        RunShell(kBinary + " simulate --nodes 2 --gpu-models " + models +
                 " --sharing whole:1 --duration 3h --seed 3 --out " + sim + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return sim;
  }

  TempDir dir_;
  std::string input_;
};

TEST_F(AdviseCommand, DemoNotebookCullingSavesWhatTheReportSaysItsIdleStepsCost) {
  const RunResult r = RunShell(kBinary + " recommend --input " + input_ +
                               " --price-per-gpu-hour 12 --notebook-idle-for 15m --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  const json& items = doc["recommendations"];
  ASSERT_EQ(items.size(), 2u) << r.output;

  // The report's 5-minute rows per workload: a notebook culled after 15 min idle is down in each
  // idle step (utilization under 5%) past the first three of a run.
  const RunResult rep =
      RunShell(kBinary + " report --input " + input_ +
               " --price-per-gpu-hour 12 --by workload --step 5m --every 5m --format json");
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  const json report = json::parse(rep.output);
  std::map<std::string, std::vector<std::pair<double, double>>> steps;  // (utilization, $)
  for (const json& row : report["rows"]) {
    steps[row["workload"].get<std::string>()].emplace_back(row["utilization"].get<double>(),
                                                           row["allocated_usd"].get<double>());
  }
  double total = 0;
  for (const json& item : items) {
    EXPECT_EQ(item["kind"], "scale-to-zero");
    EXPECT_EQ(item["category"], "notebook");
    EXPECT_EQ(item["risk"], "low");
    const std::string name = item["workload"].get<std::string>();
    double freed = 0;
    int run = 0;
    for (const auto& [u, usd] : steps[name]) {
      run = u < 0.05 ? run + 1 : 0;
      if (run > 3) freed += usd;
    }
    ASSERT_GT(freed, 0) << name;
    EXPECT_NEAR(item["monthly_savings_usd"].get<double>(), freed * 730, 1e-6) << name;
    EXPECT_TRUE(item["evidence"]["idle_at_end"].get<bool>()) << name;
    total += item["monthly_savings_usd"].get<double>();
  }
  EXPECT_NEAR(doc["monthly_savings_usd"].get<double>(), total, 1e-9);

  // The default (1 h idle) is longer than the demo's idle runs: nothing to recommend.
  const RunResult quiet = Gpucost("recommend");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_TRUE(Contains(quiet.output, "Potential savings: $0.00/month from 0 recommendations"))
      << quiet.output;
}

// The demo's hour is under a --min-window of 2 hours: nothing is recommended, and the text and
// the JSON say why.
TEST_F(AdviseCommand, AWindowUnderTheMinimumRecommendsNothingAndSaysWhy) {
  const RunResult text = Gpucost("recommend --notebook-idle-for 15m --min-window 2h");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("No recommendation: the window holds 1h, and monthly savings need "
                             "at least 2h of evidence (--min-window)"),
            std::string::npos)
      << text.output;
  EXPECT_NE(text.output.find("Potential savings: $0.00/month from 0 recommendations"),
            std::string::npos)
      << text.output;
  const RunResult j = Gpucost("recommend --notebook-idle-for 15m --min-window 2h --format json");
  ASSERT_EQ(j.exit_code, 0) << j.output;
  const json doc = json::parse(j.output.substr(j.output.find('{')));
  EXPECT_TRUE(doc["window_too_short"].get<bool>());
  EXPECT_EQ(doc["min_window_hours"].get<double>(), 2);
  EXPECT_TRUE(doc["recommendations"].empty());
  EXPECT_EQ(Gpucost("recommend --min-window soon").exit_code, 2);
}

TEST_F(AdviseCommand, WhatIfTablesAddUp) {
  // recommend's step (5m) for both, so the culled steps are the same.
  const RunResult r =
      Gpucost("whatif --policy cull-notebooks --notebook-idle-for 15m --step 5m --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output.substr(r.output.find('{')));
  EXPECT_NEAR(doc["before_usd"].get<double>(), 12, 1e-9);
  ASSERT_EQ(doc["policies"].size(), 1u);
  const double saved = doc["policies"][0]["savings_usd"].get<double>();
  EXPECT_GT(saved, 0);
  EXPECT_NEAR(doc["after_usd"].get<double>(), 12 - saved, 1e-9);
  // The same figure as recommend's monthly savings, over the window instead of a month.
  const RunResult rec = Gpucost("recommend --notebook-idle-for 15m --format json");
  ASSERT_EQ(rec.exit_code, 0) << rec.output;
  const json recs = json::parse(rec.output.substr(rec.output.find('{')));
  EXPECT_NEAR(recs["monthly_savings_usd"].get<double>(), saved * 730, 1e-6);

  const RunResult text = Gpucost("whatif --policy cull-notebooks --notebook-idle-for 15m --step 5m");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_TRUE(Contains(text.output, "bu-c")) << text.output;
  EXPECT_TRUE(Contains(text.output, "total            12.00")) << text.output;
}

// What-if's "before" is the report: per team, on a simulated cluster whose workloads' pods carry
// different team labels, with the defaults of both commands.
TEST(WhatIfBefore, IsTheReportPerTeam) {
  TempDir dir;
  const std::string input = (dir.path() / "c.om").string();
  const RunResult sim = RunShell(kBinary + " simulate --nodes 6 --duration 1d --seed 2 --out " +
                                 input + " 2>&1");
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  const RunResult rep = RunShell(kBinary + " report --input " + input +
                                 " --price-per-gpu-hour 2 --by team --accumulate --format json "
                                 "2>/dev/null");
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  const RunResult wi = RunShell(kBinary + " whatif --input " + input +
                                " --price-per-gpu-hour 2 --policy cull-notebooks --format json "
                                "2>/dev/null");
  ASSERT_EQ(wi.exit_code, 0) << wi.output;
  const json report = json::parse(rep.output);
  const json whatif = json::parse(wi.output);
  std::map<std::string, double> teams;
  for (const json& row : report["rows"]) {
    if (row["team"] != "__idle__") teams[row["team"].get<std::string>()] = row["allocated_usd"];
  }
  ASSERT_GE(teams.size(), 3u);
  // The case the test is for: some workload's pods carry two teams.
  const RunResult mixed =
      RunShell(kBinary + " report --input " + input +
               " --price-per-gpu-hour 2 --by namespace,workload,team --accumulate --format csv "
               "2>/dev/null | cut -d, -f1,2 | sort | uniq -d | wc -l");
  ASSERT_GT(std::stoi(mixed.output), 0) << "no workload spans two teams";
  ASSERT_EQ(whatif["by_team"].size(), teams.size()) << wi.output;
  for (const json& row : whatif["by_team"]) {
    const std::string team = row["team"].get<std::string>();
    ASSERT_TRUE(teams.count(team)) << team;
    EXPECT_NEAR(row["before_usd"].get<double>(), teams[team], 1e-9) << team;
  }
  EXPECT_NEAR(whatif["before_usd"].get<double>(), report["totals"]["allocated_usd"].get<double>(),
              1e-9);
}

// With no price for any GPU-hour, every figure of a what-if is unknown ("-", JSON null), never
// 0.00, and the notebooks a policy would cull are counted with their savings unknown.
TEST_F(AdviseCommand, WhatIfWithoutPricesIsUnknownNotZero) {
  const std::string cmd = kBinary + " whatif --input " + input_ +
                          " --no-catalog --policy cull-notebooks " + "--notebook-idle-for 15m";
  const RunResult text = RunShell(cmd + " 2>/dev/null");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_FALSE(Contains(text.output, "0.00")) << text.output;
  EXPECT_TRUE(Contains(text.output, "total             -             -             -        -"))
      << text.output;
  EXPECT_TRUE(Contains(text.output, "2 more notebooks idle that long, with no price"))
      << text.output;
  const RunResult r = RunShell(cmd + " --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  EXPECT_TRUE(doc["before_usd"].is_null()) << r.output;
  EXPECT_TRUE(doc["after_usd"].is_null()) << r.output;
  EXPECT_FALSE(doc["prices_known"].get<bool>());
  for (const char* table : {"by_team", "by_category"}) {
    ASSERT_FALSE(doc[table].empty()) << table;
    for (const json& row : doc[table]) EXPECT_TRUE(row["before_usd"].is_null()) << row;
  }
  EXPECT_TRUE(doc["policies"][0]["savings_usd"].is_null()) << r.output;
  EXPECT_EQ(doc["policies"][0]["unpriced_workloads"].get<int>(), 2);

  // recommend on the same: the two notebooks, savings unknown, not $0.00.
  const std::string rec =
      kBinary + " recommend --input " + input_ + " --no-catalog --notebook-idle-for 15m";
  const RunResult rt = RunShell(rec + " 2>/dev/null");
  ASSERT_EQ(rt.exit_code, 0) << rt.output;
  EXPECT_TRUE(Contains(rt.output, "Potential savings: unknown/month from 2 recommendations"))
      << rt.output;
  EXPECT_TRUE(Contains(rt.output, "the GPU price is unknown for all of its 0.14 GPU-hours"))
      << rt.output;
  const RunResult rj = RunShell(rec + " --format json 2>/dev/null");
  ASSERT_EQ(rj.exit_code, 0) << rj.output;
  EXPECT_TRUE(json::parse(rj.output)["monthly_savings_usd"].is_null()) << rj.output;
}

// A batch workload on demand with an on-demand price but no spot price: what moving it to spot
// saves is unknown ("-", null), never 0.00; with a spot discount it is a figure.
TEST_F(AdviseCommand, SpotBatchWithoutASpotPriceSavesAnUnknownAmountNotZero) {
  const std::string sim = (dir_.path() / "sim.om").string();
  ASSERT_EQ(RunShell(kBinary +
                     " simulate --nodes 5 --duration 2h --seed 21 --spot-fraction 0.5 "
                     "--out " +
                     sim + " >/dev/null 2>&1")
                .exit_code,
            0);
  const std::string cmd =
      kBinary + " whatif --input " + sim + " --price-per-gpu-hour 2 --policy spot-batch";
  const RunResult text = RunShell(cmd + " 2>/dev/null");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_TRUE(Contains(text.output,
                       "spot-batch             -          0  1 batch workload left "
                       "on demand: no spot price"))
      << text.output;
  const RunResult r = RunShell(cmd + " --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  EXPECT_TRUE(doc["policies"][0]["savings_usd"].is_null()) << r.output;
  EXPECT_EQ(doc["policies"][0]["unpriced_workloads"].get<int>(), 1);
  const RunResult known = RunShell(cmd + " --spot-discount 0.6 --format json 2>/dev/null");
  ASSERT_EQ(known.exit_code, 0) << known.output;
  EXPECT_GT(json::parse(known.output)["policies"][0]["savings_usd"].get<double>(), 0);
}

// A team whose hours are partly priced: its figures are the priced part, "+ unknown" beside
// them, as chargeback prints it; the JSON says prices_known false.
TEST_F(AdviseCommand, APartlyPricedTeamsFiguresSayTheRestIsUnknown) {
  const std::string sim = SimulateWhole("mixed.om", "a100-40gb:1,mi300x:1");
  const std::string cmd = kBinary + " whatif --input " + sim + " --policy spot-batch";
  const RunResult text = RunShell(cmd + " 2>/dev/null");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  const RunResult r = RunShell(cmd + " --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  int partly = 0;
  for (const json& row : doc["by_team"]) {
    const std::string key = row["team"].get<std::string>();
    const size_t at = text.output.find("\n" + key + " ");
    ASSERT_NE(at, std::string::npos) << key << "\n" << text.output;
    const std::string line = text.output.substr(at + 1, text.output.find('\n', at + 1) - at - 1);
    const bool part = !row["before_usd"].is_null() && !row["prices_known"].get<bool>();
    partly += part ? 1 : 0;
    EXPECT_EQ(line.ends_with("+ unknown"), part) << line;
  }
  EXPECT_GT(partly, 0) << text.output;
  EXPECT_TRUE(Contains(text.output, "+ unknown\n\nteam ")) << text.output;  // the total
}

// Committing to capacity none of whose hours has a price saves an unknown amount, not $0.00 at
// "$0.0000/GPU-hour"; the rate of a commitment is that of the priced hours alone.
TEST_F(AdviseCommand, CommitBaseOnUnpricedCapacitySavesAnUnknownAmountAtNoMadeUpRate) {
  const std::string sim = SimulateWhole("mi300x.om", "mi300x:1");
  const std::string cmd = kBinary + " whatif --input " + sim + " --policy commit-base";
  const RunResult text = RunShell(cmd + " 2>/dev/null");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_FALSE(Contains(text.output, "$0.0000")) << text.output;
  EXPECT_TRUE(Contains(text.output, "off an unknown rate")) << text.output;
  const RunResult r = RunShell(cmd + " --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json policy = json::parse(r.output)["policies"][0];
  EXPECT_TRUE(policy["savings_usd"].is_null()) << r.output;
  EXPECT_GT(policy["unpriced_workloads"].get<int>(), 0) << r.output;
  // Priced, the same base saves 31% of its hours at the price.
  const RunResult priced = RunShell(cmd + " --price-per-gpu-hour 2 --format json 2>/dev/null");
  ASSERT_EQ(priced.exit_code, 0) << priced.output;
  const json doc = json::parse(priced.output);
  EXPECT_NEAR(doc["policies"][0]["savings_usd"].get<double>(),
              doc["committed_gpus"].get<double>() * 3 * 2 * 0.31, 1e-4)
      << priced.output;
}

TEST_F(AdviseCommand, BadFlagsNameTheFlag) {
  RunResult r = Gpucost("recommend --idle-threshold 5x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--idle-threshold")) << r.output;
  r = Gpucost("recommend --notebook-idle-for soon");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--notebook-idle-for")) << r.output;
  r = Gpucost("recommend --format yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--format")) << r.output;
  r = Gpucost("whatif --policy spot-everything");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "spot-everything")) << r.output;
  r = Gpucost("recommend --max-replicas 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "replicas")) << r.output;
}

}  // namespace
}  // namespace gpucost
