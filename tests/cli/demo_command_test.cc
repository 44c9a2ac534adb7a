// `gpucost demo`: the seed numbers, and its input file accepted by gpucost report and promtool.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

TEST(DemoCommand, PrintsTheSeedNumbers) {
  const RunResult r = RunShell(kBinary + " demo 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // bu-a, bu-b and bu-c hold 3, 2 and 2 of seven 1g.5gb slices at $12/GPU-hour.
  EXPECT_TRUE(Contains(r.output, "bu-a        3       5.142857")) << r.output;
  EXPECT_TRUE(Contains(r.output, "bu-b        2       3.428571")) << r.output;
  EXPECT_TRUE(Contains(r.output, "bu-c        2       3.428571")) << r.output;
  EXPECT_TRUE(Contains(r.output, "total       7      12.000000")) << r.output;
  EXPECT_TRUE(Contains(r.output, "allocated + idle = 12.000000 $/h")) << r.output;
  EXPECT_TRUE(Contains(r.output, "One cluster-wide utilization")) << r.output;
  EXPECT_TRUE(Contains(r.output, "by 100 again")) << r.output;
}

TEST(DemoCommand, InputFileImportsWithPromtoolAndReportsTheSame) {
  TempDir tmp;
  const std::string om = (tmp.path() / "demo.om").string();
  RunResult w = RunShell(kBinary + " demo --write-openmetrics " + om + " 2>&1");
  ASSERT_EQ(w.exit_code, 0) << w.output;

  const RunResult p = RunShell("promtool tsdb create-blocks-from openmetrics " + om + " " +
                               (tmp.path() / "tsdb").string() + " 2>&1");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_TRUE(Contains(p.output, "BLOCK ULID")) << p.output;

  const RunResult r = RunShell(kBinary + " report --input " + om +
                               " --by namespace --accumulate --price-per-gpu-hour 12 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  ASSERT_EQ(doc["rows"].size(), 3u) << r.output;  // no idle: all seven slices are held
  EXPECT_EQ(doc["rows"][0]["namespace"], "bu-a");
  EXPECT_NEAR(doc["rows"][0]["allocated_usd"].get<double>(), 12.0 * 3 / 7, 1e-9);
  EXPECT_NEAR(doc["rows"][1]["allocated_usd"].get<double>(), 12.0 * 2 / 7, 1e-9);
  EXPECT_NEAR(doc["rows"][2]["allocated_usd"].get<double>(), 12.0 * 2 / 7, 1e-9);
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 12.0, 1e-9);
}

}  // namespace
}  // namespace gpucost
