// `gpucost report` as a user runs it: flags, errors that name what is wrong, unknown prices.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

const std::string kBinary = GPUCOST_BINARY;
const std::string kCase = std::string(GPUCOST_SOURCE_DIR) + "/tests/golden/cases/whole_gpu/input";

RunResult Report(const std::string& args) { return RunShell(kBinary + " report " + args + " 2>&1"); }

TEST(ReportCommand, TableHasTotalsThatAddUp) {
  const RunResult r = Report("--input " + kCase + " --accumulate --price-per-gpu-hour 4");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "namespace")) << r.output;
  EXPECT_TRUE(Contains(r.output, "__idle__")) << r.output;
  EXPECT_TRUE(Contains(r.output, "total")) << r.output;
  EXPECT_TRUE(Contains(r.output, "cost_usd: 1.33 USD")) << r.output;
}

TEST(ReportCommand, WithoutAPriceMoneyIsUnknownNotZero) {
  const RunResult r = RunShell(kBinary + " report --input " + kCase + " --accumulate --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  ASSERT_FALSE(doc["rows"].empty());
  EXPECT_TRUE(doc["rows"][0]["allocated_usd"].is_null()) << r.output;
  EXPECT_GT(doc["rows"][0]["gpu_hours"].get<double>(), 0.0);
  EXPECT_EQ(doc["totals"]["prices_known"], false);
}

TEST(ReportCommand, PerStepSeriesCarryBucketTimes) {
  const RunResult r = RunShell(kBinary + " report --input " + kCase +
                               " --window 1790812800,1790813400 --step 5m --by namespace "
                               "--price-per-gpu-hour 4 --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "namespace,start,end,gpu_hours")) << r.output;
  EXPECT_TRUE(Contains(r.output, "ml,2026-10-01T00:00:00Z,2026-10-01T00:05:00Z")) << r.output;
  EXPECT_TRUE(Contains(r.output, "ml,2026-10-01T00:05:00Z,2026-10-01T00:10:00Z")) << r.output;
}

TEST(ReportCommand, BadFlagsAreNamed) {
  RunResult r = Report("--input " + kCase + " --by nodes");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "nodes")) << r.output;

  r = Report("--input " + kCase + " --window 2026-10-01T00:00:00Z");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "START,END")) << r.output;

  r = Report("--input " + kCase + " --step 5x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "5x")) << r.output;

  r = Report("--input " + kCase + " --idle sometimes");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "sometimes")) << r.output;

  r = Report("--input /nonexistent/metrics.prom");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "/nonexistent/metrics.prom")) << r.output;
}

TEST(ReportCommand, MalformedLinesAreWarnedWithFileAndLineAndTheRestIsKept) {
  TempDir tmp;
  const std::string good = std::string(GPUCOST_SOURCE_DIR) +
                           "/tests/golden/cases/whole_gpu/input/scrape.prom";
  const std::string bad = (tmp.path() / "scrape.prom").string();
  {
    std::ifstream in(good);
    std::ofstream out(bad);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      if (++n == 5) out << "kube_pod_info{namespace=\"ml\",pod=\"x\" 1 1790812800000\n";
      out << line << "\n";
    }
  }
  const RunResult r = RunShell(kBinary + " report --input " + bad +
                               " --accumulate --price-per-gpu-hour 4 --format json 2>&1 >/dev/null");
  EXPECT_TRUE(Contains(r.output, "scrape.prom:5:")) << r.output;
  const RunResult j = RunShell(kBinary + " report --input " + bad +
                               " --accumulate --price-per-gpu-hour 4 --format json 2>/dev/null");
  ASSERT_EQ(j.exit_code, 0);
  const auto doc = nlohmann::json::parse(j.output);
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 8.0 / 6, 1e-9);  // nothing else lost
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

// A Kubernetes cluster (the whole_gpu golden case: 2 GPUs, one held) and a Slurm cluster (two
// nodes of 2 GPUs: job 501 holds one GPU for 5 minutes, job 502 both GPUs of gpu02 all window,
// 503 is pending) in one report, at $4/GPU-hour over the same 10 minutes.
TEST(ReportCommand, KubernetesAndSlurmInOneReport) {
  const std::string sacct =
      std::string(GPUCOST_SOURCE_DIR) + "/tests/cli/data/report/sacct_mixed.txt";
  const RunResult r = RunShell(kBinary + " report --input " + kCase + " --slurm-sacct " + sacct +
                               " --slurm-time-zone UTC --slurm-gpus-per-node 2"
                               " --window 1790812800,1790813400 --by cluster,team --accumulate"
                               " --price-per-gpu-hour 4 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  const double h = 1.0 / 6;
  std::map<std::string, double> allocated;
  double idle = 0;
  for (const auto& row : doc["rows"]) {
    if (row["cluster"] == "__idle__") {
      idle += row["idle_usd"].get<double>();
    } else {
      allocated[row["cluster"].get<std::string>() + "/" + row["team"].get<std::string>()] =
          row["allocated_usd"].get<double>();
    }
  }
  EXPECT_NEAR(allocated["default/ml"], 4 * h, 1e-9);
  EXPECT_NEAR(allocated["hpc1/physics"], 4 * 5.0 / 60, 1e-9);  // job 501: 1 GPU, 5 minutes
  EXPECT_NEAR(allocated["hpc1/chemistry"], 2 * 4 * h, 1e-9);   // job 502: 2 GPUs, cut at the end
  EXPECT_EQ(allocated.size(), 3u);                             // 503 is pending: no row
  // 6 GPUs x $4 x 1/6 h in all: conservation across both clusters.
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 6 * 4 * h, 1e-9);
  EXPECT_NEAR(idle + allocated["default/ml"] + allocated["hpc1/physics"] +
                  allocated["hpc1/chemistry"],
              6 * 4 * h, 1e-9);
}

}  // namespace
}  // namespace gpucost
