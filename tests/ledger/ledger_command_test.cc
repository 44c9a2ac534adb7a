// The ledger from the command line: every reader gives from a ledger what it gives from the inputs
// the ledger was written from (report, chargeback, recommend), writing a window twice changes
// nothing, and misuse is refused with the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using nlohmann::json;
using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

class LedgerCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    input_ = (dir_.path() / "demo.om").string();
    ledger_ = (dir_.path() / "costs.db").string();
    const RunResult r = RunShell(kBinary + " demo --write-openmetrics " + input_ + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  RunResult Run(const std::string& args) { return RunShell(kBinary + " " + args + " 2>&1"); }
  std::string FromInput() const { return " --input " + input_ + " --price-per-gpu-hour 12"; }
  std::string FromLedger() const { return " --ledger " + ledger_; }
  json Json(const std::string& args) {
    const RunResult r = RunShell(kBinary + " " + args + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    return json::parse(r.output, nullptr, false);
  }

  TempDir dir_;
  std::string input_;
  std::string ledger_;
};

TEST_F(LedgerCommand, ReadersGiveFromTheLedgerWhatTheyGiveFromTheInputs) {
  RunResult w = Run("ledger write " + ledger_ + FromInput() + " --step 5m");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  EXPECT_TRUE(Contains(w.output, "wrote 84 cost records")) << w.output;  // 7 slices x 12 steps
  EXPECT_TRUE(Contains(w.output, "rolled up 1 hours")) << w.output;

  // A time series of the input's 5-minute attribution, and of the records written at 5 minutes.
  const std::string report = " report --by team,workload --every 5m --format json";
  const json a = Json(report + " --step 5m" + FromInput());
  const json b = Json(report + FromLedger());
  ASSERT_EQ(a["rows"].size(), b["rows"].size());
  for (size_t i = 0; i < a["rows"].size(); ++i) {
    for (const char* field : {"team", "workload", "start"}) {
      EXPECT_EQ(a["rows"][i][field], b["rows"][i][field]) << i << " " << field;
    }
    for (const char* field : {"gpu_hours", "allocated_usd", "effective_usd", "waste_usd",
                              "activity_gpu_hours"}) {
      EXPECT_NEAR(a["rows"][i][field].get<double>(), b["rows"][i][field].get<double>(), 1e-12)
          << i << " " << field;
    }
  }
  EXPECT_NEAR(a["totals"]["cost_usd"].get<double>(), b["totals"]["cost_usd"].get<double>(), 1e-12);

  const RunResult s1 = Run("chargeback --team bu-c --step 5m" + FromInput());
  const RunResult s2 = Run("chargeback --team bu-c" + FromLedger());
  ASSERT_EQ(s1.exit_code, 0) << s1.output;
  EXPECT_EQ(s1.output, s2.output);

  const json r1 = Json("recommend --notebook-idle-for 15m --format json" + FromInput());
  const json r2 = Json("recommend --notebook-idle-for 15m --format json" + FromLedger());
  EXPECT_NEAR(r1["monthly_savings_usd"].get<double>(), r2["monthly_savings_usd"].get<double>(),
              1e-9);
  EXPECT_EQ(r1["recommendations"].size(), r2["recommendations"].size());

  const std::string policy =
      " whatif --policy cull-notebooks --notebook-idle-for 15m --format json";
  const json w1 = Json(policy + " --step 5m" + FromInput());
  const json w2 = Json(policy + FromLedger());
  EXPECT_NEAR(w1["after_usd"].get<double>(), w2["after_usd"].get<double>(), 1e-9);
  EXPECT_LT(w2["after_usd"].get<double>(), w2["before_usd"].get<double>());

  // Alerts fire the same from the ledger (exit status 1: some fire).
  const std::string alerts = " alerts --notebook-idle-for 15m --format json";
  const RunResult a1 = RunShell(kBinary + alerts + " --step 5m" + FromInput() + " 2>/dev/null");
  const RunResult a2 = RunShell(kBinary + alerts + FromLedger() + " 2>/dev/null");
  EXPECT_EQ(a1.exit_code, 1) << a1.output;
  EXPECT_EQ(a2.exit_code, 1) << a2.output;
  const json f1 = json::parse(a1.output, nullptr, false);
  const json f2 = json::parse(a2.output, nullptr, false);
  ASSERT_TRUE(f1.contains("alerts")) << a1.output;
  ASSERT_EQ(f1["alerts"].size(), f2["alerts"].size());
  EXPECT_GE(f2["alerts"].size(), 1u);
  for (size_t i = 0; i < f1["alerts"].size(); ++i) {
    EXPECT_EQ(f1["alerts"][i]["labels"], f2["alerts"][i]["labels"]) << i;
  }
}

// Real scrapes are stamped a few seconds past the minute. A ledger written from them the
// documented way (no --window) has its steps on the minute all the same, its window widened to
// them at no cost: a month's statement can be read from it, with the money the inputs give.
TEST_F(LedgerCommand, SamplesPastTheMinuteAreWrittenOnTheMinuteGridAtNoCost) {
  std::ifstream in(input_);
  std::string late;
  for (std::string line; std::getline(in, line);) {
    const size_t sp = line.rfind(' ');
    if (!line.starts_with("#") && sp != std::string::npos) {
      line = line.substr(0, sp + 1) + std::to_string(std::stoll(line.substr(sp + 1)) + 7);
    }
    late += line + "\n";
  }
  const std::string late_input = dir_.Write("late.om", late);
  const RunResult w = Run("ledger write " + ledger_ + " --input " + late_input +
                          " --price-per-gpu-hour 12 --step 5m");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  EXPECT_TRUE(Contains(w.output, "(2026-10-01T00:00:00Z to 2026-10-01T01:05:00Z, 300 s steps)"))
      << w.output;
  const json files =
      Json("report --format json --step 5m --input " + late_input + " --price-per-gpu-hour 12");
  const json ledger = Json("report --format json" + FromLedger());
  // The files' own span is widened to the same steps (docs/report.md, "Window").
  EXPECT_EQ(files["window"]["start"], "2026-10-01T00:00:00Z");
  EXPECT_EQ(files["covered"]["complete"], true);
  EXPECT_NEAR(files["totals"]["cost_usd"].get<double>(), ledger["totals"]["cost_usd"].get<double>(),
              1e-9);
  const json month = Json("chargeback --format json --by team --month 2026-10" + FromLedger());
  const json month_files = Json("chargeback --format json --by team --month 2026-10 --input " +
                                late_input + " --price-per-gpu-hour 12");
  ASSERT_TRUE(month.contains("cluster")) << month;
  EXPECT_NEAR(month["cluster"]["cost_usd"].get<double>(), 12, 1e-9);
  EXPECT_NEAR(month["cluster"]["cost_usd"].get<double>(),
              month_files["cluster"]["cost_usd"].get<double>(), 1e-9);
}

TEST_F(LedgerCommand, WritingTheSameWindowTwiceChangesNothing) {
  ASSERT_EQ(Run("ledger write " + ledger_ + FromInput()).exit_code, 0);
  const json once = Json("ledger info --format json " + ledger_);
  const RunResult again = Run("ledger write " + ledger_ + FromInput());
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_FALSE(Contains(again.output, "this write changed")) << again.output;
  const json twice = Json("ledger info --format json " + ledger_);
  EXPECT_EQ(once["records"], twice["records"]);
  EXPECT_EQ(twice["records"].get<int>(), 7 * 60);
  EXPECT_EQ(twice["steps_s"], json::array({60}));
  EXPECT_EQ(twice["span"]["start"], "2026-10-01T00:00:00Z");
  const json report = Json("report --accumulate --format json" + FromLedger());
  EXPECT_NEAR(report["totals"]["cost_usd"].get<double>(), 12, 1e-9);
  // The hour was rolled up when written; reading every record instead gives the same report.
  const json records = Json("report --accumulate --no-rollups --format json" + FromLedger());
  ASSERT_EQ(report["rows"].size(), records["rows"].size());
  for (size_t i = 0; i < report["rows"].size(); ++i) {
    for (const char* field : {"gpu_hours", "allocated_usd", "effective_usd", "utilization"}) {
      EXPECT_NEAR(report["rows"][i][field].get<double>(),
                  records["rows"][i][field].get<double>(), 1e-9)
          << i << " " << field;
    }
  }
}

// A write that changes the money the ledger held in its window (other prices, other or shorter
// input) says so per cluster, with both amounts.
TEST_F(LedgerCommand, ARewriteThatChangesMoneySaysWhereAndHowMuch) {
  ASSERT_EQ(Run("ledger write " + ledger_ + FromInput()).exit_code, 0);
  const RunResult cheaper =
      Run("ledger write " + ledger_ + " --input " + input_ + " --price-per-gpu-hour 3");
  ASSERT_EQ(cheaper.exit_code, 0) << cheaper.output;
  EXPECT_TRUE(Contains(cheaper.output,
                       "this write changed cluster default's cost from 2026-10-01T00:00:00Z to "
                       "2026-10-01T01:00:00Z: allocated $12.00 -> $3.00, effective $"))
      << cheaper.output;
  EXPECT_TRUE(Contains(cheaper.output, "this write changed team bu-a of cluster default's cost"))
      << cheaper.output;
  // Money that no price covers any more is unknown, never $0.00.
  const RunResult unpriced =
      Run("ledger write " + ledger_ + " --input " + input_ + " --no-catalog");
  ASSERT_EQ(unpriced.exit_code, 0) << unpriced.output;
  EXPECT_TRUE(Contains(unpriced.output, "allocated $3.00 -> unknown, ")) << unpriced.output;
  EXPECT_FALSE(Contains(unpriced.output, "-> $0.00")) << unpriced.output;
}

// docs/ledger.md's salvage of a SQLite ledger, pasted: what the shell reads comes back whole and
// checks sound; an empty ledger checks sound and says it holds nothing.
TEST_F(LedgerCommand, TheDocumentedSalvageKeepsWhatItReads) {
  ASSERT_EQ(Run("ledger write " + ledger_ + FromInput()).exit_code, 0);
  const std::string salvaged = (dir_.path() / "salvaged.db").string();
  const RunResult dump = RunShell("sqlite3 " + ledger_ + " .dump | sqlite3 " + salvaged + " 2>&1");
  ASSERT_EQ(dump.exit_code, 0) << dump.output;
  const RunResult check = Run("ledger check " + salvaged);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_TRUE(Contains(check.output, ": sound: ")) << check.output;
  EXPECT_FALSE(Contains(check.output, "holds no cost records")) << check.output;
  const json report = Json("report --accumulate --format json --ledger " + salvaged);
  EXPECT_NEAR(report["totals"]["cost_usd"].get<double>(), 12, 1e-9);

  // A salvage that read no record (the tables, no rows) is sound, and says it is empty.
  const RunResult emptied =
      RunShell("sqlite3 " + salvaged +
               " 'DELETE FROM cost_records; DELETE FROM rollups; DELETE FROM rollup_periods; "
               "DELETE FROM period_checks;' 2>&1");
  ASSERT_EQ(emptied.exit_code, 0) << emptied.output;
  const RunResult nothing = Run("ledger check " + salvaged);
  EXPECT_EQ(nothing.exit_code, 0) << nothing.output;
  EXPECT_TRUE(Contains(nothing.output, "; it holds no cost records")) << nothing.output;
}

TEST_F(LedgerCommand, MisuseIsRefusedWithTheReason) {
  ASSERT_EQ(Run("ledger write " + ledger_ + FromInput()).exit_code, 0);
  RunResult r = Run("report" + FromLedger() + " --input " + input_);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "give it alone")) << r.output;
  r = Run("report --format focus" + FromLedger());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "does not read --ledger")) << r.output;
  r = Run("report --window 2026-11-01T00:00:00Z,2026-11-02T00:00:00Z" + FromLedger());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "no cost records")) << r.output;
  const std::string junk = dir_.Write("junk.db", std::string(2048, 'j'));
  r = Run("report --ledger " + junk);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, junk)) << r.output;
  // A reader given a path with no ledger says so, and leaves no empty ledger behind.
  const std::string missing = (dir_.path() / "nothere.db").string();
  for (const std::string cmd : {"report", "chargeback --by team", "recommend"}) {
    r = Run(cmd + " --ledger " + missing);
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_TRUE(Contains(r.output, missing + ": no ledger there")) << r.output;
    EXPECT_FALSE(std::filesystem::exists(missing)) << cmd;
  }
  // Nor does a write whose input holds nothing to attribute.
  const std::string empty = dir_.Write("empty.prom", "");
  r = Run("ledger write " + missing + " --input " + empty + " --price-per-gpu-hour 12");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "holds no samples")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

}  // namespace
}  // namespace gpucost
