// `gpucost report` totals its window by default, and `--every` cuts the same money into a time
// series: the buckets of every group add up to its accumulated row (to 1e-9), whatever the bucket
// (hours, days, UTC calendar months); bad values and contradictions are usage errors (exit 2).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "core/strings.h"

namespace gpucost {
namespace {

using nlohmann::json;
using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

constexpr const char* kMoneyFields[] = {"gpu_hours", "allocated_usd", "effective_usd",
                                        "waste_usd", "idle_usd",      "unmeasured_gpu_hours"};

class ReportEvery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    // Five hours across a month's end, so that hourly, daily and monthly buckets all cut it.
    input_ = (dir_->path() / "sim.om").string();
    const RunResult sim = RunShell(kBinary +
                                   " simulate --nodes 3 --seed 5 --window "
                                   "2026-10-31T21:00:00Z,2026-11-01T02:00:00Z --out " +
                                   input_ + " 2>&1");
    ASSERT_EQ(sim.exit_code, 0) << sim.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static json Report(const std::string& args) {
    const RunResult r = RunShell(kBinary + " report --input " + input_ +
                                 " --by namespace --format json " + args + " 2>/dev/null");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    return json::parse(r.output, nullptr, false);
  }
  // Σ over buckets of each group's field, keyed by the group.
  static std::map<std::string, std::map<std::string, double>> SumByGroup(const json& doc) {
    std::map<std::string, std::map<std::string, double>> out;
    for (const json& row : doc["rows"]) {
      auto& sums = out[row["namespace"].get<std::string>()];
      for (const char* f : kMoneyFields) {
        if (row.contains(f) && row[f].is_number()) sums[f] += row[f].get<double>();
      }
    }
    return out;
  }
  static void ExpectSameMoney(const json& whole, const json& series, const std::string& what) {
    const auto a = SumByGroup(whole);
    const auto b = SumByGroup(series);
    ASSERT_EQ(a.size(), b.size()) << what;
    for (const auto& [group, sums] : a) {
      ASSERT_TRUE(b.count(group)) << what << " " << group;
      for (const auto& [field, value] : sums) {
        EXPECT_NEAR(value, b.at(group).at(field), 1e-9 * std::max(1.0, std::fabs(value)))
            << what << " " << group << " " << field;
      }
    }
    EXPECT_NEAR(whole["totals"]["cost_usd"].get<double>(),
                series["totals"]["cost_usd"].get<double>(), 1e-9)
        << what;
  }

  static TempDir* dir_;
  static std::string input_;
};
TempDir* ReportEvery::dir_ = nullptr;
std::string ReportEvery::input_;

TEST_F(ReportEvery, ByDefaultOneRowPerGroupForTheWholeWindow) {
  const json doc = Report("--price-per-gpu-hour 3");
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["accumulated"], true);
  std::map<std::string, int> rows_per_group;
  for (const json& row : doc["rows"]) {
    EXPECT_FALSE(row.contains("start")) << row.dump();
    ++rows_per_group[row["namespace"].get<std::string>()];
  }
  ASSERT_GT(rows_per_group.size(), 1u);
  for (const auto& [group, n] : rows_per_group) EXPECT_EQ(n, 1) << group;
  // --accumulate is the default, kept for scripts: the same bytes.
  EXPECT_EQ(doc, Report("--price-per-gpu-hour 3 --accumulate"));
}

TEST_F(ReportEvery, HourlyBucketsAddUpToTheAccumulatedReport) {
  const json whole = Report("--price-per-gpu-hour 3");
  const json hourly = Report("--price-per-gpu-hour 3 --every 1h");
  EXPECT_EQ(hourly["accumulated"], false);
  EXPECT_EQ(hourly["step_s"], 3600);
  std::map<std::string, int> buckets;
  for (const json& row : hourly["rows"]) ++buckets[row["start"].get<std::string>()];
  EXPECT_EQ(buckets.size(), 5u);
  EXPECT_TRUE(buckets.count("2026-10-31T21:00:00Z"));
  EXPECT_TRUE(buckets.count("2026-11-01T01:00:00Z"));
  ExpectSameMoney(whole, hourly, "--every 1h");
  // A coarser attribution step with output buckets of its multiple: the same check holds.
  ExpectSameMoney(Report("--price-per-gpu-hour 3 --step 5m"),
                  Report("--price-per-gpu-hour 3 --step 5m --every 30m"), "--step 5m --every 30m");
}

TEST_F(ReportEvery, DailyAndMonthlyBucketsCutAtTheirBoundaries) {
  const json whole = Report("--price-per-gpu-hour 3");
  const json daily = Report("--price-per-gpu-hour 3 --every 1d");
  for (const json& row : daily["rows"]) {
    EXPECT_EQ(row["start"], "2026-10-31T21:00:00Z");  // one day from the window's start
    EXPECT_EQ(row["end"], "2026-11-01T02:00:00Z");    // clipped to its end
  }
  ExpectSameMoney(whole, daily, "--every 1d");

  const json monthly = Report("--price-per-gpu-hour 3 --every month");
  EXPECT_EQ(monthly["every"], "month");
  std::map<std::string, std::string> ends;
  for (const json& row : monthly["rows"]) ends[row["start"]] = row["end"];
  ASSERT_EQ(ends.size(), 2u) << monthly.dump();
  EXPECT_EQ(ends["2026-10-31T21:00:00Z"], "2026-11-01T00:00:00Z");
  EXPECT_EQ(ends["2026-11-01T00:00:00Z"], "2026-11-01T02:00:00Z");
  ExpectSameMoney(whole, monthly, "--every month");
  // October's bucket holds October's three hours: the report of that window alone.
  const json october = Report(
      "--price-per-gpu-hour 3 --window "
      "2026-10-31T21:00:00Z,2026-11-01T00:00:00Z");
  double october_cost = 0;
  for (const json& row : monthly["rows"]) {
    if (row["start"] == "2026-10-31T21:00:00Z") {
      october_cost += row["namespace"] == "__idle__" ? row["idle_usd"].get<double>()
                                                     : row["allocated_usd"].get<double>();
    }
  }
  EXPECT_NEAR(october_cost, october["totals"]["cost_usd"].get<double>(), 1e-9);
}

// Samples stamped 15 s past the minute, across a month's end: the report's steps are on the
// minute grid all the same, so the month's bucket of `report --every month` is what `chargeback
// --month` states and what a report of the month alone costs (the step across midnight used to go
// whole into October).
TEST(ReportEveryMonth, SamplesPastTheMinuteAreCutAtTheMonthAsChargebackCutsThem) {
  TempDir dir;
  const std::string input = (dir.path() / "late.om").string();
  const RunResult sim = RunShell(StrCat(kBinary,
                                        " simulate --nodes 2 --gpu-models a100-80gb:1 --seed 4 "
                                        "--sharing whole:1 --scrape-interval 30s --window "
                                        "2026-10-31T23:00:15Z,2026-11-01T01:00:15Z --out ",
                                        input, " 2>&1"));
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  const auto json_of = [&](const std::string& args) {
    const RunResult r = RunShell(StrCat(kBinary, " ", args, " --input ", input,
                                        " --price-per-gpu-hour 12 --format json 2>/dev/null"));
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    return json::parse(r.output, nullptr, false);
  };
  const json monthly = json_of("report --every month --by namespace");
  EXPECT_EQ(monthly["window"]["start"], "2026-10-31T23:00:00Z");
  EXPECT_EQ(monthly["covered"]["complete"], true);
  double november = 0;
  double all = 0;
  for (const json& row : monthly["rows"]) {
    const double usd = row["namespace"] == "__idle__" ? row["idle_usd"].get<double>()
                                                      : row["allocated_usd"].get<double>();
    all += usd;
    if (row["start"] == "2026-11-01T00:00:00Z") november += usd;
  }
  // 2 nodes x 8 GPUs x $12 for the hour and 15 s of November.
  EXPECT_NEAR(november, 16 * 12 * (1 + 15.0 / 3600), 1e-9);
  const json statement = json_of("chargeback --by team --month 2026-11");
  EXPECT_NEAR(statement["cluster"]["cost_usd"].get<double>(), november, 1e-9);
  const json alone = json_of("report --window 2026-11-01T00:00:00Z,2026-11-01T01:01:00Z");
  EXPECT_NEAR(alone["totals"]["cost_usd"].get<double>(), november, 1e-9);
  EXPECT_NEAR(monthly["totals"]["cost_usd"].get<double>(), all, 1e-9);
  EXPECT_NEAR(all, 16 * 12 * 2.0, 1e-9);
}

// Steps of 7 minutes do not divide a day: one straddles the month's start. A month of the ledger
// is refused at either edge (a roll-up of the hour before held the straddling step whole, and the
// month after lost it), and so is --every month from files and from the ledger, rather than count
// the step in one month where chargeback --month cuts it.
TEST(ReportEveryMonth, AStepAcrossTheMonthsStartIsRefusedNotCountedInOneMonth) {
  TempDir dir;
  const std::string input = (dir.path() / "late.om").string();
  const std::string ledger = (dir.path() / "seven.db").string();
  const RunResult made = RunShell(StrCat(
      kBinary, " simulate --nodes 1 --gpu-models a100-80gb:1 --seed 4 --sharing whole:1 ",
      "--window 2026-10-31T22:00:15Z,2026-11-01T02:00:15Z --out ", input, " 2>&1 && ", kBinary,
      " ledger write ", ledger, " --input ", input, " --step 7m --price-per-gpu-hour 12 2>&1"));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  for (const std::string& args :
       {StrCat("report --ledger ", ledger, " --window 2026-10-01T00:00:00Z,2026-11-01T00:00:00Z"),
        StrCat("report --ledger ", ledger, " --window 2026-11-01T00:00:00Z,2026-12-01T00:00:00Z"),
        StrCat("report --ledger ", ledger, " --every month"),
        StrCat("report --input ", input, " --step 7m --every month --price-per-gpu-hour 12")}) {
    const RunResult r = RunShell(StrCat(kBinary, " ", args, " 2>&1"));
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "inside")) << args << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "2026-11-01T00:0")) << args << "\n" << r.output;
  }
  // The whole ledger, and the file's report, cost the same.
  const RunResult whole =
      RunShell(StrCat(kBinary, " report --ledger ", ledger, " --format json 2>/dev/null"));
  const RunResult files =
      RunShell(StrCat(kBinary, " report --input ", input,
                      " --step 7m --price-per-gpu-hour 12 --format json 2>/dev/null"));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  ASSERT_EQ(files.exit_code, 0) << files.output;
  EXPECT_NEAR(json::parse(whole.output)["totals"]["cost_usd"].get<double>(),
              json::parse(files.output)["totals"]["cost_usd"].get<double>(), 1e-9);
}

TEST_F(ReportEvery, BadValuesAndContradictionsAreUsageErrors) {
  const std::string base = kBinary + " report --input " + input_ + " --price-per-gpu-hour 3 ";
  RunResult r = RunShell(base + "--every fortnight 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--every \"fortnight\"")) << r.output;
  r = RunShell(base + "--every 1h --accumulate 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "give one")) << r.output;
  r = RunShell(base + "--step 7m --every 1h 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "not a whole multiple of --step 7m")) << r.output;
  r = RunShell(base + "--every 1d --format focus 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--every does not apply to --format focus")) << r.output;
}

TEST_F(ReportEvery, TheLedgerGivesTheSameBucketsAndRefusesAStep) {
  const std::string ledger = (dir_->path() / "costs.db").string();
  RunResult w = RunShell(kBinary + " ledger write " + ledger + " --input " + input_ +
                         " --price-per-gpu-hour 3 2>&1");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  for (const char* every : {"1h", "month"}) {
    const json files = Report(std::string("--price-per-gpu-hour 3 --every ") + every);
    const RunResult r = RunShell(kBinary + " report --ledger " + ledger +
                                 " --by namespace --format json --every " + every + " 2>/dev/null");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const json stored = json::parse(r.output);
    ASSERT_EQ(files["rows"].size(), stored["rows"].size()) << every;
    for (size_t i = 0; i < files["rows"].size(); ++i) {
      EXPECT_EQ(files["rows"][i]["namespace"], stored["rows"][i]["namespace"]) << every << i;
      EXPECT_EQ(files["rows"][i]["start"], stored["rows"][i]["start"]) << every << i;
      EXPECT_NEAR(files["rows"][i]["allocated_usd"].get<double>(),
                  stored["rows"][i]["allocated_usd"].get<double>(), 1e-9)
          << every << i;
    }
  }
  // --step would re-attribute, which records cannot be: refused, not silently ignored.
  for (const char* command : {"report", "chargeback", "recommend", "alerts"}) {
    const RunResult r =
        RunShell(kBinary + " " + command + " --ledger " + ledger + " --step 5m 2>&1");
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_TRUE(Contains(r.output, "--step sets the attribution step")) << command << r.output;
  }
}

}  // namespace
}  // namespace gpucost
