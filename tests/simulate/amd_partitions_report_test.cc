// `gpucost simulate --gpu-models mi300x-cpx` through `gpucost report`: partitioned AMD nodes
// whose compute partitions are units measured by AMD's exporter, and cost conserved.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

// Without --sharing, a cluster of AMD GPUs only is simulated whole (the default mix of sharing
// modes is NVIDIA's); an explicit mode AMD nodes cannot take is still refused.
TEST(SimulatedAmdPartitions, ReportMeasuresEveryPartitionAndConservesCost) {
  const TempDir dir;
  const std::string input = (dir.path() / "cpx.om").string();
  const RunResult sim = RunShell(kBinary +
                                 " simulate --nodes 2 --gpu-models mi300x-cpx "
                                 "--duration 6h --seed 5 --out " +
                                 input + " 2>&1");
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  const RunResult refused = RunShell(kBinary +
                                     " simulate --nodes 1 --gpu-models mi300x-cpx --sharing mig:1 "
                                     "--duration 10m --out /dev/null 2>&1");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("needs an NVIDIA model"), std::string::npos) << refused.output;
  const RunResult report = RunShell(kBinary + " report --input " + input +
                                    " --by namespace,pod --price-per-gpu-hour 2 --accumulate "
                                    "--format json 2>/dev/null");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const nlohmann::json doc = nlohmann::json::parse(report.output);
  int held = 0;
  for (const nlohmann::json& r : doc["rows"]) {
    if (r.value("idle", false) || r.value("namespace", "") == "__idle__") continue;
    ++held;
    EXPECT_FALSE(r["effective_usd"].is_null()) << r.dump();
    EXPECT_EQ(r["unmeasured_gpu_hours"].get<double>(), 0.0) << r.dump();
  }
  EXPECT_GT(held, 0);
  // 2 nodes x 8 GPUs x $2 x 6 h, however the GPUs are partitioned.
  const nlohmann::json& t = doc["totals"];
  const double want = 16 * 2.0 * 6;
  EXPECT_NEAR(t["cost_usd"].get<double>(), want, 1e-9 * want);
  EXPECT_NEAR(t["allocated_usd"].get<double>() + t["idle_usd"].get<double>(), want, 1e-9 * want);
  EXPECT_GT(t["idle_usd"].get<double>(), 0) << "unheld partitions are idle";
  EXPECT_EQ(t["unmeasured_gpu_hours"].get<double>(), 0.0) << "every held partition measured";
  EXPECT_GT(t["effective_usd"].get<double>(), 0);
  EXPECT_LT(t["effective_usd"].get<double>(), t["allocated_usd"].get<double>());
}

}  // namespace
}  // namespace gpucost
