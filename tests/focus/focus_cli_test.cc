// `gpucost report --format focus` as a user runs it, every output checked column by column by
// the spec validator: the built-in demo cluster, a Slurm accounting file over two UTC days, and
// the errors (no price, --accumulate, idle shared across nodes).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "core/money.h"
#include "focus/focus_validator.h"

namespace gpucost {
namespace {

using focus_test::Validate;
using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

const std::string kSource = GPUCOST_SOURCE_DIR;

double SumColumn(const focus_test::Table& t, std::string_view column) {
  CompensatedSum s;
  for (size_t r = 0; r < t.rows.size(); ++r) s.Add(t.Num(r, column));
  return s.value();
}

double ReportCost(const std::string& args) {
  const RunResult r = RunShell(kBinary + " report " + args + " --accumulate --format json 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(r.output)["totals"]["cost_usd"].get<double>();
}

// The demo cluster (one A100 in MIG single strategy, seven 1g.5gb slices held 3/2/2 by
// namespaces bu-a, bu-b, bu-c for one hour at $12/GPU-hour): the node's hour is one origin
// charge split over the seven pods' slices, with no idle.
TEST(FocusCli, DemoClusterValidatesAndCarriesTheReportsMoney) {
  TempDir tmp;
  const std::string om = (tmp.path() / "demo.om").string();
  ASSERT_EQ(RunShell(kBinary + " demo --write-openmetrics " + om).exit_code, 0);
  const std::string args = "--input " + om + " --price-per-gpu-hour 12";
  const RunResult r = RunShell(kBinary + " report " + args + " --format focus 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rep = Validate(r.output);
  ASSERT_TRUE(rep.ok()) << rep.ToString();
  const focus_test::Table& t = *rep.table;
  ASSERT_FALSE(t.rows.empty());

  // Σ EffectiveCost = the report's cost (allocated + idle) = one A100 hour at $12.
  const double cost = ReportCost(args);
  EXPECT_NEAR(SumColumn(t, "EffectiveCost"), cost, 1e-9 * cost);
  EXPECT_NEAR(cost, 12.0, 1e-9);
  EXPECT_NEAR(SumColumn(t, "BilledCost"), cost, 1e-9 * cost);
  EXPECT_NEAR(SumColumn(t, "PricingQuantity"), 1.0, 1e-9);  // one physical GPU for one hour

  std::map<std::string, double> by_namespace;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    EXPECT_EQ(t.Str(i, "ChargePeriodStart"), "2026-10-01T00:00:00Z");
    EXPECT_EQ(t.Str(i, "ChargePeriodEnd"), "2026-10-01T01:00:00Z");
    EXPECT_EQ(t.Str(i, "BillingPeriodStart"), "2026-10-01T00:00:00Z");
    EXPECT_EQ(t.Str(i, "BillingPeriodEnd"), "2026-11-01T00:00:00Z");
    EXPECT_EQ(t.Str(i, "ServiceName"), "Kubernetes GPU");
    EXPECT_EQ(t.Str(i, "PricingCategory"), "Standard");
    EXPECT_EQ(t.Str(i, "ListUnitPrice"), "12");
    EXPECT_EQ(t.Str(i, "x_MigProfile"), "1g.5gb");
    if (t.At(i, "x_Namespace")) {
      by_namespace[t.Str(i, "x_Namespace")] += t.Num(i, "EffectiveCost");
      const auto tags = nlohmann::json::parse(t.Str(i, "AllocatedTags"));
      EXPECT_EQ(tags["gpucost/namespace"], t.Str(i, "x_Namespace"));
      EXPECT_TRUE(tags.contains("gpucost/team"));
    }
  }
  // 3, 2 and 2 of the seven slices for the hour.
  EXPECT_NEAR(by_namespace["bu-a"], 12.0 * 3 / 7, 1e-9);
  EXPECT_NEAR(by_namespace["bu-b"], 12.0 * 2 / 7, 1e-9);
  EXPECT_NEAR(by_namespace["bu-c"], 12.0 * 2 / 7, 1e-9);
}

// Slurm accounting over 30 hours across a UTC midnight: charge periods are UTC days (clipped to
// the window); job 1003 (2 GPUs, running from 20:00) is split 4 h / 6 h over the two days.
TEST(FocusCli, SlurmJobsOverTwoDaysSplitAtMidnight) {
  const std::string args = "--slurm-sacct " + kSource +
                           "/tests/slurm/data/basic.txt --slurm-time-zone UTC "
                           "--window 2026-03-02T00:00:00Z,2026-03-03T06:00:00Z "
                           "--price-per-gpu-hour 2";
  const RunResult r = RunShell(kBinary + " report " + args + " --format focus 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rep = Validate(r.output);
  ASSERT_TRUE(rep.ok()) << rep.ToString();
  const focus_test::Table& t = *rep.table;
  const double cost = ReportCost(args);
  EXPECT_GT(cost, 0);
  EXPECT_NEAR(SumColumn(t, "EffectiveCost"), cost, 1e-9 * cost);

  std::map<std::string, double> job1003_hours;  // by charge period start
  std::set<std::string> periods;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    EXPECT_EQ(t.Str(i, "ServiceName"), "Slurm GPU");
    EXPECT_EQ(t.Str(i, "ResourceType"), "Slurm Node");
    EXPECT_EQ(t.Str(i, "BillingAccountId"), "hpc1");
    EXPECT_EQ(t.Str(i, "SkuId").rfind("gpu/", 0), 0u) << t.Str(i, "SkuId");
    periods.insert(t.Str(i, "ChargePeriodStart") + "/" + t.Str(i, "ChargePeriodEnd"));
    if (t.Str(i, "AllocatedResourceId") == "hpc1/job/1003") {
      job1003_hours[t.Str(i, "ChargePeriodStart")] += t.Num(i, "ConsumedQuantity");
      const auto tags = nlohmann::json::parse(t.Str(i, "AllocatedTags"));
      EXPECT_EQ(tags["slurm/user"], "frank");
      EXPECT_EQ(tags["slurm/partition"], "gpu");
      EXPECT_EQ(tags["slurm/account"], "chem");
      EXPECT_EQ(t.Str(i, "x_Team"), "chem");
    }
  }
  EXPECT_EQ(periods, (std::set<std::string>{"2026-03-02T00:00:00Z/2026-03-03T00:00:00Z",
                                            "2026-03-03T00:00:00Z/2026-03-03T06:00:00Z"}));
  EXPECT_NEAR(job1003_hours["2026-03-02T00:00:00Z"], 2 * 4.0, 1e-9);
  EXPECT_NEAR(job1003_hours["2026-03-03T00:00:00Z"], 2 * 6.0, 1e-9);
}

// With --step, the step buckets are the charge periods.
TEST(FocusCli, StepGivesTheChargePeriods) {
  const std::string args = "--slurm-sacct " + kSource +
                           "/tests/slurm/data/basic.txt --slurm-time-zone UTC "
                           "--window 2026-03-02T00:00:00Z,2026-03-02T06:00:00Z "
                           "--price-per-gpu-hour 2 --step 1h";
  const RunResult r = RunShell(kBinary + " report " + args + " --format focus 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rep = Validate(r.output);
  ASSERT_TRUE(rep.ok()) << rep.ToString();
  std::set<std::string> starts;
  for (size_t i = 0; i < rep.table->rows.size(); ++i) {
    const int64_t len = focus_test::EpochSeconds(rep.table->Str(i, "ChargePeriodEnd")) -
                        focus_test::EpochSeconds(rep.table->Str(i, "ChargePeriodStart"));
    EXPECT_EQ(len, 3600);
    starts.insert(rep.table->Str(i, "ChargePeriodStart"));
  }
  EXPECT_EQ(starts.size(), 6u);  // jobs run on gpu05/gpu06 from 01:00 and gpu01..04 later
}

// Money is never written as zero: a node without a price fails the export, naming the node.
TEST(FocusCli, UnknownPriceExitsTwoNamingTheNode) {
  const std::string input = kSource + "/tests/golden/cases/whole_gpu/input";
  RunResult r = RunShell(kBinary + " report --input " + input + " --format focus 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "no price")) << r.output;
  EXPECT_TRUE(Contains(r.output, "node n1")) << r.output;
  EXPECT_FALSE(Contains(r.output, "BilledCost")) << r.output;

  // A rate card that prices another node only.
  TempDir tmp;
  const std::string prices = (tmp.path() / "prices.yaml").string();
  std::ofstream(prices) << "prices:\n  - match: {node: n9}\n    usd_per_gpu_hour: 3\n";
  r = RunShell(kBinary + " report --input " + input + " --prices " + prices +
               " --format focus 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "node n1")) << r.output;
}

TEST(FocusCli, FlagsThatCannotApplyAreErrors) {
  const std::string input = kSource + "/tests/golden/cases/whole_gpu/input";
  RunResult r = RunShell(kBinary + " report --input " + input +
                         " --price-per-gpu-hour 4 --accumulate --format focus 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--accumulate")) << r.output;

  r = RunShell(kBinary + " report --input " + input +
               " --price-per-gpu-hour 4 --idle proportional --format focus 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--idle-scope node")) << r.output;

  r = RunShell(kBinary + " report --input " + input + " --price-per-gpu-hour 4 --format xml 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "focus")) << r.output;

  r = RunShell(kBinary + " report --input " + input +
               " --price-per-gpu-hour 4 --format focus --focus-version 1.2 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--focus-version")) << r.output;

  r = RunShell(kBinary + " report --input " + input +
               " --price-per-gpu-hour 4 --format json --focus-version 1.4 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--focus-version applies to --format focus")) << r.output;
}

// Idle shared within each node: the idle GPU's cost moves into the pod's charge, whose
// AllocatedMethodDetails then has a second element, and no unallocated charge is left.
TEST(FocusCli, IdleSharedWithinTheNode) {
  const std::string input = kSource + "/tests/golden/cases/whole_gpu/input";
  const std::string args = "--input " + input +
                           " --window 1790812800,1790813400 --price-per-gpu-hour 4"
                           " --idle proportional --idle-scope node";
  const RunResult r = RunShell(kBinary + " report " + args + " --format focus 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rep = Validate(r.output);
  ASSERT_TRUE(rep.ok()) << rep.ToString();
  const focus_test::Table& t = *rep.table;
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.Str(0, "AllocatedResourceName"), "ml/train-0/main");
  EXPECT_NEAR(t.Num(0, "EffectiveCost"), 2 * 4.0 / 6, 1e-12);   // both GPUs for 10 minutes
  EXPECT_NEAR(t.Num(0, "x_HeldGpuHours"), 1.0 / 6, 1e-12);      // its own GPU
  EXPECT_NEAR(t.Num(0, "x_IdleCost"), 4.0 / 6, 1e-12);
  EXPECT_NEAR(t.Num(0, "x_UtilizedCost"), 0.5 * 4.0 / 6, 1e-12);  // 50 % busy
  const auto details = nlohmann::json::parse(t.Str(0, "AllocatedMethodDetails"));
  ASSERT_EQ(details["Elements"].size(), 2u);
  EXPECT_EQ(details["Elements"][1]["x_Component"], "IdleShare");
  EXPECT_NEAR(details["Elements"][0]["AllocatedRatio"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(details["x_IdlePolicy"], "proportional");
  EXPECT_NEAR(SumColumn(t, "EffectiveCost"), ReportCost(args), 1e-12);
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

// A GPU node and a Neuron node (the golden case neuron_and_gpu_by_unit_kind): the Neuron node's
// rows count accelerator-hours, the GPU node's GPU-hours, and the file still validates and
// carries the report's money.
TEST(FocusCli, NeuronRowsCountAcceleratorHours) {
  const std::string dir = kSource + "/tests/golden/cases/neuron_and_gpu_by_unit_kind";
  const std::string args = "--input " + dir + "/input --window 1790812800,1790813400 --step 60s";
  const RunResult r = RunShell(kBinary + " report " + args + " --format focus 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rep = Validate(r.output);
  ASSERT_TRUE(rep.ok()) << rep.ToString();
  const focus_test::Table& t = *rep.table;
  std::map<std::string, std::set<std::string>> units;  // ResourceName -> PricingUnit
  std::map<std::string, double> quantity;
  for (size_t row = 0; row < t.rows.size(); ++row) {
    units[t.Str(row, "ResourceName")].insert(t.Str(row, "PricingUnit"));
    EXPECT_EQ(t.Str(row, "PricingUnit"), t.Str(row, "ConsumedUnit"));
    quantity[t.Str(row, "ResourceName")] += t.Num(row, "PricingQuantity");
  }
  EXPECT_EQ(units["inf-b"], std::set<std::string>{"Accelerator-Hours"});
  EXPECT_EQ(units["gpu-a"], std::set<std::string>{"GPU-Hours"});
  EXPECT_NEAR(quantity["inf-b"], 1.0 / 6, 1e-9);  // one device for ten minutes
  EXPECT_NEAR(quantity["gpu-a"], 8.0 / 6, 1e-9);
  const double cost = ReportCost(args);
  EXPECT_NEAR(SumColumn(t, "EffectiveCost"), cost, 1e-9 * cost);
}

}  // namespace
}  // namespace gpucost
