// `gpucost unit-cost` as a user runs it, on a small cluster written by the test: one node with
// two A100s at $4/GPU-hour for ten minutes; ml/vllm-a (Deployment vllm) holds GPU 0 at 50 %
// activity and serves requests, research/exp-2-x (Job exp-2) holds GPU 1 and reports no work.
// The right answers are worked out in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "workcost/cluster_input.h"

namespace gpucost {
namespace {

using nlohmann::json;
using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

using workcost_test::ClusterText;
class UnitCostCommand : public testing::Test {
 protected:
  void SetUp() override { input_ = dir_.Write("cluster.prom", ClusterText()); }
  RunResult Run(const std::string& flags, bool with_stderr = false) {
    return RunShell(kBinary + " unit-cost --input " + input_ + " " + flags +
                    (with_stderr ? " 2>&1" : " 2>/dev/null"));
  }
  TempDir dir_;
  std::string input_;
};

constexpr const char* kRequestsFlags =
    "--work-metric vllm:request_success_total --per 1000 --unit requests "
    "--price-per-gpu-hour 4";

TEST_F(UnitCostCommand, DollarsPerThousandRequestsPerWorkload) {
  const RunResult r = Run(std::string(kRequestsFlags) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  EXPECT_EQ(doc["by"], json({"namespace", "workload_kind", "workload"}));
  EXPECT_EQ(doc["window"]["start"], "2026-10-01T00:00:00Z");
  EXPECT_EQ(doc["window"]["end"], "2026-10-01T00:10:00Z");
  ASSERT_EQ(doc["rows"].size(), 2u);
  const json& vllm = doc["rows"][0];
  EXPECT_EQ(vllm["workload"], "vllm");
  EXPECT_EQ(vllm["workload_kind"], "Deployment");
  EXPECT_DOUBLE_EQ(vllm["work"].get<double>(), 420);
  EXPECT_EQ(vllm["resets"], 1);
  // One GPU for 10 minutes at $4: 4/6 allocated; 50 % activity: 2/6 effective.
  const double allocated = 4.0 / 6, effective = 2.0 / 6, hours = 1.0 / 6;
  EXPECT_NEAR(vllm["gpu_hours"].get<double>(), hours, 1e-12);
  EXPECT_NEAR(vllm["allocated_usd"].get<double>(), allocated, 1e-12);
  EXPECT_NEAR(vllm["effective_usd"].get<double>(), effective, 1e-12);
  EXPECT_NEAR(vllm["allocated_usd_per_n"].get<double>(), allocated / 420 * 1000, 1e-12);  // 1.5873
  EXPECT_NEAR(vllm["effective_usd_per_n"].get<double>(), effective / 420 * 1000, 1e-12);
  EXPECT_NEAR(vllm["gpu_hours_per_n"].get<double>(), hours / 420 * 1000, 1e-12);
  // The Job did no work: its cost is known, its cost per request is not (null, not 0 or inf).
  const json& job = doc["rows"][1];
  EXPECT_EQ(job["workload"], "exp-2");
  EXPECT_DOUBLE_EQ(job["work"].get<double>(), 0);
  EXPECT_NEAR(job["allocated_usd"].get<double>(), allocated, 1e-12);
  EXPECT_TRUE(job["allocated_usd_per_n"].is_null());
  EXPECT_TRUE(job["gpu_hours_per_n"].is_null());
  // frontend-0 held no GPU: 27 requests left out.
  EXPECT_DOUBLE_EQ(doc["unmatched"]["work"].get<double>(), 27);
  EXPECT_DOUBLE_EQ(doc["totals"]["work"].get<double>(), 420);
  EXPECT_NEAR(doc["totals"]["allocated_usd_per_n"].get<double>(), 2 * allocated / 420 * 1000,
              1e-12);
}

TEST_F(UnitCostCommand, CostsFromALedgerGiveTheSameFigures) {
  // The costs written to a ledger first, the counter read from the input: the same table.
  const std::string ledger = (dir_.path() / "costs.db").string();
  const RunResult w = RunShell(kBinary + " ledger write " + ledger + " --input " + input_ +
                               " --price-per-gpu-hour 4 2>&1");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  const RunResult direct = Run(std::string(kRequestsFlags) + " --format json");
  const RunResult stored =
      Run("--ledger " + ledger + " --work-metric vllm:request_success_total --per 1000 "
          "--unit requests --format json");
  ASSERT_EQ(direct.exit_code, 0) << direct.output;
  ASSERT_EQ(stored.exit_code, 0) << stored.output;
  const json a = json::parse(direct.output);
  const json b = json::parse(stored.output);
  ASSERT_EQ(a["rows"].size(), b["rows"].size());
  for (size_t i = 0; i < a["rows"].size(); ++i) {
    EXPECT_EQ(a["rows"][i]["workload"], b["rows"][i]["workload"]);
    EXPECT_EQ(a["rows"][i]["work"], b["rows"][i]["work"]);
    EXPECT_EQ(a["rows"][i]["allocated_usd_per_n"], b["rows"][i]["allocated_usd_per_n"]);
  }
}

TEST_F(UnitCostCommand, TextTableAndWarning) {
  const RunResult r = Run(kRequestsFlags, true);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "Cost per 1000 requests (vllm:request_success_total)"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "$/1000 requests")) << r.output;
  EXPECT_TRUE(Contains(r.output, "$1.5873")) << r.output;             // 0.6667 / 420 x 1000
  EXPECT_TRUE(Contains(r.output, "$0.7937")) << r.output;             // 0.3333 / 420 x 1000
  EXPECT_TRUE(Contains(r.output, "unknown")) << r.output;             // exp-2's per-request figures
  EXPECT_TRUE(Contains(r.output, "pod=\"frontend-0\"")) << r.output;  // the warning
  EXPECT_TRUE(Contains(r.output, "Not joined to a GPU holder: 27 requests in 1 series"))
      << r.output;
}

TEST_F(UnitCostCommand, CsvLeavesUnknownFiguresEmpty) {
  const RunResult r = Run(std::string(kRequestsFlags) + " --format csv --by namespace");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream lines(r.output);
  std::string header, ml, research;
  std::getline(lines, header);
  std::getline(lines, ml);
  std::getline(lines, research);
  EXPECT_EQ(header,
            "namespace,work,gpu_hours,allocated_usd,effective_usd,unmeasured_gpu_hours,"
            "unpriced_gpu_hours,allocated_usd_per_n,effective_usd_per_n,gpu_hours_per_n,series,"
            "resets");
  EXPECT_TRUE(ml.starts_with("ml,420,")) << ml;
  EXPECT_TRUE(research.starts_with("research,0,")) << research;
  EXPECT_TRUE(research.ends_with(",,,,0,0")) << research;
}

TEST_F(UnitCostCommand, UnknownPriceIsUnknownNeverZero) {
  const RunResult r =
      Run("--work-metric vllm:request_success_total --per 1000 --no-catalog --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  const json& vllm = doc["rows"][0];
  EXPECT_DOUBLE_EQ(vllm["work"].get<double>(), 420);
  EXPECT_TRUE(vllm["allocated_usd"].is_null());
  EXPECT_TRUE(vllm["allocated_usd_per_n"].is_null());
  EXPECT_TRUE(vllm["effective_usd_per_n"].is_null());
  EXPECT_NEAR(vllm["gpu_hours_per_n"].get<double>(), 1.0 / 6 / 420 * 1000, 1e-12);
  const RunResult text = Run("--work-metric vllm:request_success_total --per 1000 --no-catalog");
  EXPECT_FALSE(Contains(text.output, "$0.00")) << text.output;
}

TEST_F(UnitCostCommand, RelabelledCountersJoinThroughExportedLabels) {
  const RunResult r =
      Run("--work-metric vllm:generation_tokens_total --per 1e6 --unit tokens --by pod "
          "--price-per-gpu-hour 4 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  EXPECT_DOUBLE_EQ(doc["per"].get<double>(), 1e6);
  ASSERT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["rows"][0]["pod"], "vllm-a");
  EXPECT_DOUBLE_EQ(doc["rows"][0]["work"].get<double>(), 9000);  // 0 .. 9000 tokens
  // $0.6667 for 9000 tokens: $74.07 per million.
  EXPECT_NEAR(doc["rows"][0]["allocated_usd_per_n"].get<double>(), 4.0 / 6 / 9000 * 1e6, 1e-9);
}

TEST_F(UnitCostCommand, PerExperimentIsPerJob) {
  const RunResult r = Run(std::string(kRequestsFlags) + " --workload-kind Job --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(r.output);
  ASSERT_EQ(doc["rows"].size(), 1u);
  EXPECT_EQ(doc["rows"][0]["workload"], "exp-2");
  EXPECT_EQ(doc["workload_kind"], "Job");
}

TEST_F(UnitCostCommand, ErrorsNameWhatIsWrong) {
  RunResult r = Run("--work-metric vllm_requests --price-per-gpu-hour 4", true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "no timestamped samples of vllm_requests")) << r.output;
  r = Run("--work-metric vllm:request_success_total --per 0", true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--per")) << r.output;
  r = Run(std::string(kRequestsFlags) + " --by node", true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "unknown grouping \"node\"")) << r.output;
  r = RunShell(kBinary + " unit-cost --work-metric x --kube 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "--input or --prometheus")) << r.output;
}

}  // namespace
}  // namespace gpucost
