// `gpucost prices` and the price book through `gpucost report`: catalog, spot and commitment
// prices on nodes read from kube-state-metrics series, with totals checked against the catalog's
// published numbers.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "focus/focus_validator.h"

namespace gpucost {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

// One hour of two nodes, no pods: a p5.48xlarge on demand and a g6.12xlarge on spot.
void WriteCluster(const std::filesystem::path& dir) {
  std::ofstream out(dir / "ksm.prom");
  const int64_t t0 = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
  for (int i = 0; i <= 60; ++i) {
    const int64_t t = t0 + i * 60'000LL;
    out << "kube_node_labels{node=\"p5-a\",label_node_kubernetes_io_instance_type=\"p5.48xlarge\","
           "label_topology_kubernetes_io_region=\"us-east-1\",label_karpenter_sh_capacity_type="
           "\"on-demand\",label_nvidia_com_gpu_count=\"8\",label_nvidia_com_gpu_product="
           "\"NVIDIA-H100-80GB-HBM3\"} 1 "
        << t << "\n";
    out << "kube_node_info{node=\"p5-a\",provider_id=\"aws:///us-east-1a/i-0p5a\"} 1 " << t << "\n";
    out << "kube_node_status_capacity{node=\"p5-a\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 8 "
        << t << "\n";
    out << "kube_node_labels{node=\"g6-s\",label_node_kubernetes_io_instance_type=\"g6.12xlarge\","
           "label_topology_kubernetes_io_region=\"us-east-1\",label_karpenter_sh_capacity_type="
           "\"spot\",label_nvidia_com_gpu_count=\"4\",label_nvidia_com_gpu_product=\"NVIDIA-L4\"} 1 "
        << t << "\n";
    out << "kube_node_status_capacity{node=\"g6-s\",resource=\"nvidia_com_gpu\",unit=\"integer\"} 4 "
        << t << "\n";
  }
}

void WritePrices(const std::filesystem::path& file) {
  std::ofstream out(file);
  out << "commitments:\n"
         "  - match: {instance_type: p5.48xlarge}\n"
         "    name: 1-yr compute savings plan\n"
         "    discount: 0.31\n"
         "spot:\n"
         "  discount: 0.55\n";
}

TEST(PricesCommand, ExplainsEveryNodesPrice) {
  TempDir dir;
  WriteCluster(dir.path());
  WritePrices(dir.path() / "prices.yaml");
  const RunResult r = RunShell(kBinary + " prices --input " + (dir.path() / "ksm.prom").string() +
                               " --prices " + (dir.path() / "prices.yaml").string() + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "default/p5-a  p5.48xlarge  us-east-1  on_demand  8 x"))
      << r.output;
  // Every rate with the decimals the most precise one needs (0.51768 = 4.6016 / 4 x 0.45).
  EXPECT_TRUE(Contains(r.output, "4.74720   commitment list 6.88000 (31 % off)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "1-yr compute savings plan")) << r.output;
  EXPECT_TRUE(Contains(r.output, "0.51768   spot       list 1.15040 (55 % off)")) << r.output;
  EXPECT_FALSE(Contains(r.output, "no price")) << r.output;

  const RunResult catalog = RunShell(kBinary + " prices --catalog");
  ASSERT_EQ(catalog.exit_code, 0);
  EXPECT_TRUE(Contains(catalog.output, "p4d.24xlarge")) << catalog.output;
  EXPECT_TRUE(Contains(catalog.output, "aws-cut:")) << catalog.output;
}

TEST(PricesCommand, ReportTotalsFollowThePriceBook) {
  TempDir dir;
  WriteCluster(dir.path());
  WritePrices(dir.path() / "prices.yaml");
  const RunResult r =
      RunShell(kBinary + " report --input " + (dir.path() / "ksm.prom").string() + " --prices " +
               (dir.path() / "prices.yaml").string() + " --window 2026-10-01T00:00:00Z,2026-10-01T01:00:00Z --accumulate --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  // One hour: 8 GPUs at $55.04/8 less 31 %, and 4 GPUs at $4.6016/4 less 55 %.
  const double expected = 55.04 * 0.69 + 4.6016 * 0.45;
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), expected, 1e-9) << r.output;

  // Without the catalog and with nothing else, the price is unknown, never zero.
  const RunResult off = RunShell(kBinary + " report --input " +
                                 (dir.path() / "ksm.prom").string() +
                                 " --no-catalog --accumulate --format json");
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_TRUE(nlohmann::json::parse(off.output)["totals"]["cost_usd"].is_null()) << off.output;
}

TEST(PricesCommand, BadPriceFileIsNamed) {
  TempDir dir;
  WriteCluster(dir.path());
  {
    std::ofstream out(dir.path() / "bad.yaml");
    out << "spot:\n  discount: 2\n";
  }
  const RunResult r = RunShell(kBinary + " prices --input " + (dir.path() / "ksm.prom").string() +
                               " --prices " + (dir.path() / "bad.yaml").string() + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.output, "bad.yaml:2: spot: discount: must be a fraction")) << r.output;
}

}  // namespace
}  // namespace gpucost

namespace gpucost {
namespace {

const std::string kCur = std::string(GPUCOST_SOURCE_DIR) + "/tests/billing/data/legacy_cur.csv";

struct BilledNode {
  const char* name;
  const char* instance_type;
  const char* instance_id;
  int gpus;
  const char* capacity;
  int first_minute;  // present from this minute of 00:00-03:00
};

// Nodes whose provider IDs name the instances of tests/billing/data/legacy_cur.csv.
void WriteBilledCluster(const std::filesystem::path& dir, bool with_spot_node) {
  const BilledNode nodes[] = {
      {"p5-a", "p5.48xlarge", "i-0a1b2c3d4e5f60718", 8, "on-demand", 0},
      {"p4d-ri", "p4d.24xlarge", "i-0123456789abcdef0", 8, "on-demand", 0},
      {"g5-sp", "g5.12xlarge", "i-0fedcba9876543210", 4, "on-demand", 0},
      {"g5-spot", "g5.xlarge", "i-05a5b5c5d5e5f5a5b", 1, "spot", 0},
      {"p5-b", "p5.48xlarge", "i-0f9e8d7c6b5a40321", 8, "on-demand", 90},
  };
  std::ofstream out(dir / "ksm.prom");
  const int64_t t0 = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
  for (const BilledNode& n : nodes) {
    if (!with_spot_node && std::string(n.name) == "g5-spot") continue;
    for (int m = n.first_minute; m < 180; ++m) {
      const int64_t t = t0 + m * 60'000LL;
      out << "kube_node_labels{node=\"" << n.name << "\",label_node_kubernetes_io_instance_type=\""
          << n.instance_type << "\",label_topology_kubernetes_io_region=\"us-east-1\","
          << "label_karpenter_sh_capacity_type=\"" << n.capacity << "\"} 1 " << t << "\n";
      out << "kube_node_info{node=\"" << n.name << "\",provider_id=\"aws:///us-east-1a/"
          << n.instance_id << "\"} 1 " << t << "\n";
      out << "kube_node_status_capacity{node=\"" << n.name
          << "\",resource=\"nvidia_com_gpu\",unit=\"integer\"} " << n.gpus << " " << t << "\n";
    }
  }
}

constexpr const char* kWindow3h = " --window 2026-10-01T00:00:00Z,2026-10-01T03:00:00Z";

TEST(BillPricing, ReportGpuCostEqualsTheBillToTheCent) {
  TempDir dir;
  WriteBilledCluster(dir.path(), true);
  const RunResult r = RunShell(kBinary + " report --input " + (dir.path() / "ksm.prom").string() +
                               " --bill " + kCur + kWindow3h + " --accumulate --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto doc = nlohmann::json::parse(r.output);
  // tests/billing/data/README.md: the 14 instance charges' effective cost is 300.3164, the
  // second p5 billed for half of its first hour.
  EXPECT_NEAR(doc["totals"]["cost_usd"].get<double>(), 300.3164, 1e-9) << r.output;
}

// The FOCUS export of the bill-priced cluster names the bill's accounts (payer and usage
// account) on every row, in FOCUS 1.4 as in 1.3, and carries the report's money.
TEST(BillPricing, FocusExportNamesTheBillsAccounts) {
  TempDir dir;
  WriteBilledCluster(dir.path(), true);
  const std::string args =
      " --input " + (dir.path() / "ksm.prom").string() + " --bill " + kCur + kWindow3h;
  const RunResult report = RunShell(kBinary + " report" + args + " --accumulate --format json");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const double cost = nlohmann::json::parse(report.output)["totals"]["cost_usd"].get<double>();
  for (const char* version : {"1.3", "1.4"}) {
    const RunResult r = RunShell(kBinary + " report" + args + " --format focus --focus-version " +
                                 version + " 2>/dev/null");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rep = focus_test::Validate(
        r.output, {.version = std::string(version) == "1.4" ? focus_test::Version::k1_4
                                                            : focus_test::Version::k1_3});
    ASSERT_TRUE(rep.ok()) << version << "\n" << rep.ToString();
    const focus_test::Table& t = *rep.table;
    ASSERT_FALSE(t.rows.empty());
    double sum = 0;
    for (size_t i = 0; i < t.rows.size(); ++i) {
      EXPECT_EQ(t.Str(i, "BillingAccountId"), "111122223333") << "row " << i + 1;
      EXPECT_EQ(t.Str(i, "BillingAccountType"), "Billing Account");
      EXPECT_EQ(t.Str(i, "SubAccountId"), "111122223333");
      EXPECT_EQ(t.Str(i, "x_PriceSource"), "bill");
      sum += t.Num(i, "EffectiveCost");
    }
    EXPECT_NEAR(sum, cost, 1e-9 * cost) << version;
  }
}

TEST(BillPricing, PricesReconcilesPerNodeAndNamesUnmatchedInstances) {
  TempDir dir;
  WriteBilledCluster(dir.path(), false);
  const RunResult r = RunShell(kBinary + " prices --input " + (dir.path() / "ksm.prom").string() +
                               " --bill " + kCur + kWindow3h + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "Reconciliation with")) << r.output;
  // p5-a: list = billed = charged = 3 x 55.04.
  EXPECT_TRUE(Contains(
      r.output, "i-0a1b2c3d4e5f60718          $165.12       $165.12       $165.12         $0.00"))
      << r.output;
  // The RI-covered p4d: list 3 x 21.957642, billed and charged 3 x 13.17.
  EXPECT_TRUE(Contains(
      r.output, "i-0123456789abcdef0           $65.87        $39.51        $39.51       -$26.36"))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "not matched to any node: i-05a5b5c5d5e5f5a5b $1.22")) << r.output;
  EXPECT_TRUE(Contains(r.output, "bill (") || Contains(r.output, "legacy_cur.csv (")) << r.output;
}

// A rate card above the list price says so, not "-16.3 % off".
TEST(BillPricing, APriceAboveListSaysAboveList) {
  TempDir dir;
  const std::string prices = dir.Write("above.yaml",
                                       "prices:\n  - match: {instance_type: p5.48xlarge}\n"
                                       "    usd_per_gpu_hour: 8.00\n");
  const RunResult r =
      RunShell(kBinary + " prices --input " + std::string(GPUCOST_SOURCE_DIR) +
               "/tests/golden/cases/prices_bill/input --prices " + prices + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "list 6.88 (16.3 % above list)")) << r.output;
  EXPECT_FALSE(Contains(r.output, "% off")) << r.output;
}

// A window that cuts a bill's hour: "billed" is the charge's part in the window, the same time as
// list and charged, never the whole hour beside a pro-rated charge.
TEST(BillPricing, ReconciliationOfAWindowThatCutsAnHourIsOverTheSameTime) {
  const std::string c = std::string(GPUCOST_SOURCE_DIR) + "/tests/golden/cases/prices_bill";
  const RunResult r = RunShell(kBinary + " prices --input " + c + "/input --bill " + c +
                               "/bill.csv --window 1790812800,1790813400 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // $44.00 for the hour, a sixth of it in the ten minutes: $7.33 billed and charged.
  EXPECT_TRUE(
      Contains(r.output, "i-0b111ed000000001             $9.17         $7.33         $7.33"))
      << r.output;
}

}  // namespace
}  // namespace gpucost
